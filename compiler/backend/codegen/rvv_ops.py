"""The long tail on the RISC-V vector core: integer division, remainder and high-half multiply.

The SE's datapath covers the element-wise work of typical kernels; these integer operations (Philox
random numbers use `umulhi`, index arithmetic uses `//` and `%`) run on the RVV core instead. The
control core waits for the input tiles (`cb.wait`), strip-mines the tile through LMUL=8 register
groups with unit-stride loads, the operation and a store into a reserved output slot, then pushes
it. Scalar operands use the vector-scalar forms (`.vx`), so a splat is never materialised.
"""
from __future__ import annotations

from isa import cb as cbi
from isa import scalar as riscv
from isa import vector
from isa.types import Tile, itemsize

from ...ir import Op
from ...ir.core import Operation
from ..analysis.plan import TileLoc, Uniform
from ..target import RVV_OPS
from . import rvv_dot

# op name -> (vector-vector mnemonic, vector-scalar mnemonic)
MNEMONICS = {
    Op.MULHIUI: ("vmulhu.vv", "vmulhu.vx"), Op.DIVSI: ("vdiv.vv", "vdiv.vx"), Op.DIVUI: ("vdivu.vv", "vdivu.vx"),
    Op.REMSI: ("vrem.vv", "vrem.vx"), Op.REMUI: ("vremu.vv", "vremu.vx"),
}


def lower(g, op: Operation) -> None:
    """Emit the strip-mined vector loop for `op` (see the module docstring)."""
    import isa
    e = g.e
    out = g.plan.loc[op.results[0]]
    isz = itemsize(out.dtype)
    sew = f"e{8 * isz}"
    n = 1
    for d in out.shape:
        n *= d
    vv, vx = (isa.REGISTRY[m] for m in MNEMONICS[op.name])
    ld, st = isa.REGISTRY[f"vle{8 * isz}.v"], isa.REGISTRY[f"vse{8 * isz}.v"]
    ptrs, scalar = [], None
    for x in op.operands:
        loc = g.plan.loc.get(x)
        if isinstance(loc, TileLoc):
            addr = e.vreg("x")
            e.emit(cbi.CbWait, rd=addr, cb=loc.sid)           # the core waits for the engine that makes it
            ptrs.append(addr)
        else:
            scalar = g.reg(x) if not isinstance(loc, Uniform) else _scalar_reg(g, loc.value)
            ptrs.append(None)
    dst = e.vreg("x")
    e.emit(cbi.CbReserve, rd=dst, cb=out.sid)
    left, vl, step = e.vreg("x"), e.vreg("x"), e.vreg("x")
    e.emit(riscv.Li, rd=left, imm=n)
    loop = e.new_label("rvv")
    e.place(loop)
    e.emit(vector.Vsetvli, rd=vl, rs1=left, sew=sew, lmul="m8")
    regs = [8, 16]
    for i, p in enumerate(ptrs):
        if p is not None:
            e.emit(ld, vd=regs[i], rs1=p)
    a, b = ptrs
    if a is not None and b is not None:
        e.emit(vv, vd=24, vs2=regs[0], vs1=regs[1])
    elif a is not None:
        e.emit(vx, vd=24, vs2=regs[0], rs1=scalar)
    else:                                                   # scalar op vector: splat the scalar first
        e.emit(vector.VmvVX, vd=8, rs1=scalar)
        e.emit(vv, vd=24, vs2=8, vs1=regs[1])
    e.emit(st, vs3=24, rs1=dst)
    e.emit(riscv.Slli, rd=step, rs1=vl, imm=isz.bit_length() - 1)
    for p in ptrs + [dst]:
        if p is not None:
            e.emit(riscv.Add, rd=p, rs1=p, rs2=step)
    e.emit(riscv.Sub, rd=left, rs1=left, rs2=vl)
    e.emit(riscv.Bne, rs1=left, rs2=g.zero(), target=loop)
    e.emit(cbi.CbPush, cb=out.sid)
    sources = []                                            # for the C++ listing: tiles and scalars
    for x in op.operands:
        loc = g.plan.loc.get(x)
        sources.append(Tile(loc.sid, "keep", loc.dtype, loc.shape) if isinstance(loc, TileLoc) else
                       loc.value if isinstance(loc, Uniform) else x)
    both = all(isinstance(s, Tile) for s in sources)
    g.listing.rvv_loop(op, (vv if both else vx).mnemonic, Tile(out.sid, "push", out.dtype, out.shape), sources)


def _scalar_reg(g, value):
    if isinstance(value, (int, bool)):
        return g.const_reg(int(value))
    return g.reg(value)


LOWER = {**{n: lower for n in RVV_OPS}, Op.DOT: rvv_dot.lower}
