"""DPE commands: tl.dot as one matmul into the accumulator tile (fresh, or in place), its K in slices
when the loop's K steps were coalesced."""
from __future__ import annotations

from isa import dpe, se
from isa.types import Tile

from ...ir import Op
from ..analysis.plan import Uniform


def _dot(g, op) -> None:
    a, b, c = op.a, op.b, op.c
    out = g.out_tile(op)
    cloc = g.plan.loc.get(c)
    if out.mode == "push":
        if (isinstance(cloc, Uniform) and g.is_zero(cloc.value)) or g.is_zero(c):
            pass                                          # C = A @ B: the DPE writes fresh (even when the
                                                          # zero tile also lives in a slot, shared by CSE)
        else:                                             # copy the accumulator, then add in place
            g.e.emit(se.SeMov, out=out, a=g.src(c, op))
            out = Tile(out.cb, "acc", out.dtype, out.shape)
    ta, tb = g.tile(a, op), g.tile(b, op)
    la, lb = g.plan.loc[a], g.plan.loc[b]
    if ta.dtype != tb.dtype:
        raise g.error(op, f"tl.dot of {ta.dtype} by {tb.dtype}: the DPE multiplies operands of one type")
    if ta.dtype not in g.target.dpe_dtypes:
        raise g.error(op, f"tl.dot on {ta.dtype} is not supported by the DPE of {g.target.name} "
                          f"(it multiplies {', '.join(g.target.dpe_dtypes)})")
    slices = {}
    if op.attrs.get("kslices", 1) > 1:                    # coalesced K steps (passes/coalesce_k.py)
        slices = {"kslices": op.attrs["kslices"], "kused": g.reg(op.kused) if op.kused is not None else 0}
    g.e.emit(dpe.DpeMatmul, out=out, a=ta, b=tb, trans_a=int(la.trans), trans_b=int(lb.trans), **slices)


LOWER = {Op.DOT: _dot}
