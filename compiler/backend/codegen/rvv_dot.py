"""tl.dot on the RISC-V vector core, for element types the DPE does not multiply (fp64).

Slow but exact per step: for each row i of a (each batch), each strip of up to VLMAX columns of the
result keeps an accumulator in a vector register group, and for k = 0..K-1 the core loads a[i, k]
into an f register and the vector core adds a[i, k] * b[k, strip] to it (vfmacc.vf: the product is
rounded, then the sum). The accumulator c is added at the end. The interpreter sums in the same order
(isa/dot_numerics.f64_product), so the two agree bit for bit.

b is read with unit stride (or strided when it is a transposed view); a by scalar loads at its own
layout. The control core waits for the operand tiles, reserves the output slot, runs the loops and
pushes it.
"""
from __future__ import annotations

import isa
from isa import cb as cbi
from isa import scalar as riscv
from isa import vector
from isa.types import Tile, itemsize

from ...ir.core import Operation, Value
from ..analysis.plan import TileLoc, Uniform

_ACC, _B, _C = 24, 8, 16  # LMUL=8 register groups: the accumulator, a strip of b, a strip of c


def lower(g, op: Operation) -> None:
    e = g.e
    out = g.plan.loc[op.results[0]]
    la, lb, lc = g.plan.loc[op.a], g.plan.loc[op.b], g.plan.loc.get(op.c)
    shape = tuple(op.results[0].type.shape)
    batch, (m, n), k = (shape[0] if len(shape) == 3 else 1), shape[-2:], op.a.type.shape[-1]
    isz = itemsize(out.dtype)
    ld, lds, st = (isa.REGISTRY[name] for name in (f"vle{8 * isz}.v", f"vlse{8 * isz}.v", f"vse{8 * isz}.v"))
    ra, rb = _wait(g, la), _wait(g, lb)                    # row starts of a, of b (per batch), of c, of out
    rc = _wait(g, lc) if isinstance(lc, TileLoc) else None
    ro = e.vreg("x")
    e.emit(cbi.CbReserve, rd=ro, cb=out.sid)
    # byte steps: a along k and along its rows; b along k and along its columns (a strip's stride)
    a_k, a_row = (m * isz, isz) if la.trans else (isz, k * isz)
    b_k, b_col = (isz, k * isz) if lb.trans else (n * isz, isz)
    row_bytes, b_batch = n * isz, k * n * isz
    a_batch_rest = m * k * isz - m * a_row      # a's rows end one matrix on when a is not transposed
    cval = None
    if isinstance(lc, Uniform) and not g.is_zero(lc.value):
        cval = _f64_reg(g, lc.value)
    steps = {s: g.const_reg(s) for s in sorted({a_k, b_k, b_col, a_row, row_bytes, b_batch, a_batch_rest})}
    zero = g.zero()

    def rows_body():
        left, vl, step = e.vreg("x"), e.vreg("x"), e.vreg("x")
        xa, xb = e.vreg("x"), e.vreg("x")                  # walking along k
        sb, sc, so = (e.vreg("x") for _ in range(3))       # strip starts
        e.emit(riscv.Li, rd=left, imm=n)
        e.emit(riscv.Mv, rd=sb, rs1=rb)
        e.emit(riscv.Mv, rd=so, rs1=ro)
        if rc is not None:
            e.emit(riscv.Mv, rd=sc, rs1=rc)
        strip = e.new_label("rvv_dot_strip")
        e.place(strip)
        e.emit(vector.Vsetvli, rd=vl, rs1=left, sew=f"e{8 * isz}", lmul="m8")
        e.emit(vector.VmvVI, vd=_ACC, imm=0)
        e.emit(riscv.Mv, rd=xa, rs1=ra)
        e.emit(riscv.Mv, rd=xb, rs1=sb)

        def k_body():
            f = e.vreg("f")
            e.emit(riscv.Fld, fd=f, rs1=xa, imm=0)
            if lb.trans:
                e.emit(lds, vd=_B, rs1=xb, rs2=steps[b_col])
            else:
                e.emit(ld, vd=_B, rs1=xb)
            e.emit(vector.VfmaccVF, vd=_ACC, fs1=f, vs2=_B)
            e.emit(riscv.Add, rd=xa, rs1=xa, rs2=steps[a_k])
            e.emit(riscv.Add, rd=xb, rs1=xb, rs2=steps[b_k])

        _counted(g, k, k_body, "rvv_dot_k", zero)
        if rc is not None:
            e.emit(ld, vd=_C, rs1=sc)
            e.emit(vector.VfaddVV, vd=_ACC, vs2=_ACC, vs1=_C)
        elif cval is not None:
            e.emit(vector.VfaddVF, vd=_ACC, vs2=_ACC, fs1=cval)
        e.emit(st, vs3=_ACC, rs1=so)
        e.emit(riscv.Slli, rd=step, rs1=vl, imm=isz.bit_length() - 1)     # bytes of this strip
        e.emit(riscv.Add, rd=so, rs1=so, rs2=step)
        if rc is not None:
            e.emit(riscv.Add, rd=sc, rs1=sc, rs2=step)
        if lb.trans:
            e.emit(riscv.Mul, rd=xb, rs1=vl, rs2=steps[b_col])
            e.emit(riscv.Add, rd=sb, rs1=sb, rs2=xb)
        else:
            e.emit(riscv.Add, rd=sb, rs1=sb, rs2=step)
        e.emit(riscv.Sub, rd=left, rs1=left, rs2=vl)
        e.emit(riscv.Bne, rs1=left, rs2=zero, target=strip)
        e.emit(riscv.Add, rd=ra, rs1=ra, rs2=steps[a_row])
        e.emit(riscv.Add, rd=ro, rs1=ro, rs2=steps[row_bytes])
        if rc is not None:
            e.emit(riscv.Add, rd=rc, rs1=rc, rs2=steps[row_bytes])

    def batch_body():
        _counted(g, m, rows_body, "rvv_dot_row", zero)
        if batch > 1:          # c and out rows run on into the next batch; b moves on by one matrix
            e.emit(riscv.Add, rd=rb, rs1=rb, rs2=steps[b_batch])
            if a_batch_rest:
                e.emit(riscv.Add, rd=ra, rs1=ra, rs2=steps[a_batch_rest])

    _counted(g, batch, batch_body, "rvv_dot_batch", zero)
    e.emit(cbi.CbPush, cb=out.sid)
    # the listings show the product (the accumulator's add is part of the same loop)
    g.listing.rvv_loop(op, "vfmacc.vf", Tile(out.sid, "push", out.dtype, out.shape),
                       [Tile(la.sid, "keep", la.dtype, la.shape), Tile(lb.sid, "keep", lb.dtype, lb.shape)])


def _f64_reg(g, value):
    """An f register holding a uniform accumulator: a scalar SSA value, or a constant of the kernel."""
    if isinstance(value, Value):
        return g.reg(value)
    r = g.e.vreg("f")
    g.e.emit(riscv.FliD, fd=r, imm=float(value))
    return r


def _wait(g, loc: TileLoc):
    """The address of an input tile's slot, once its engine has written it."""
    addr = g.e.vreg("x")
    g.e.emit(cbi.CbWait, rd=addr, cb=loc.sid)
    return addr


def _counted(g, count: int, body, stem: str, zero) -> None:
    """Emit a loop running `body` `count` times (the body alone when count is 1)."""
    e = g.e
    if count == 1:
        body()
        return
    left = e.vreg("x")
    e.emit(riscv.Li, rd=left, imm=count)
    top = e.new_label(stem)
    e.place(top)
    body()
    e.emit(riscv.Addi, rd=left, rs1=left, imm=-1)
    e.emit(riscv.Bne, rs1=left, rs2=zero, target=top)
