"""RE commands: reductions, scans, histograms, the all-reduce over the reduction network, and the
and-reduction of a block condition for tl.device_assert."""
from __future__ import annotations

from isa import cb as cbi
from isa import re as rei
from isa import scalar as riscv
from isa import se, sync
from isa.types import Tile

from ...ir import Op
from ..analysis.plan import Uniform
from ..analysis.re_combine import RE_SCANS, re_combine


def _reduce(g, op) -> None:
    kind = re_combine(op)
    if kind is None:
        raise g.error(op, "this tl.reduce combine function is not supported by the MTIA reduction engine "
                          "(it runs sum, prod, max, min, argmax, argmin, and, or, xor)")
    axis = op.attrs["axis"]
    x = op.srcs[0]
    if kind in ("argmax", "argmin"):
        vals, idx = op.results
        if vals in g.plan.loc:
            g.e.emit(rei.ReReduce, out=g.out_tile(op, vals), a=g.tile(x, op),
                     op="max" if kind == "argmax" else "min", axis=axis)
        if idx in g.plan.loc:
            g.e.emit(rei.ReReduce, out=g.out_tile(op, idx), a=g.tile(x, op), op=kind, axis=axis)
        return
    g.e.emit(rei.ReReduce, out=g.out_tile(op), a=g.tile(x, op), op=kind, axis=axis)


def _scan(g, op) -> None:
    kind = re_combine(op)
    if kind not in RE_SCANS:
        raise g.error(op, "this tl.associative_scan combine function is not supported by the MTIA reduction "
                          "engine (it scans sum, prod, max, min)")
    g.e.emit(rei.ReScan, out=g.out_tile(op), a=g.tile(op.srcs[0], op), op=kind, axis=op.attrs["axis"],
             reverse=int(bool(op.attrs.get("reverse"))))


def _histogram(g, op) -> None:              # tl.histogram(x, num_bins[, mask])
    mask = g.tile(op.mask, op) if op.mask is not None else None
    g.e.emit(rei.ReHistogram, out=g.out_tile(op), a=g.tile(op.src, op), mask=mask)


def _re_reduce(g, op) -> None:
    """tl.mtia.re_reduce: a chain over the reduction network. Program i (on PE i) adds what
    program i-1 sends to its own value and sends the partial to i+1; the last one, now holding
    the total, sends it back to every other PE."""
    e = g.e
    x = op.x
    loc = g.plan.loc[op.results[0]]
    partial, total = g.plan.temps[op]
    t = lambda mode: Tile(loc.sid, mode, loc.dtype, loc.shape)  # noqa: E731
    combine = {"sum": se.SeAdd, "max": se.SeMax, "min": se.SeMin}.get(op.attrs.get("op", "sum"))
    if combine is None:
        raise g.error(op, f"tl.mtia.re_reduce combines with sum, max or min, not {op.attrs.get('op')!r}")
    pid = [e.vreg("x") for _ in range(3)]
    n = [e.vreg("x") for _ in range(3)]
    for axis in range(3):
        e.emit(sync.Pid, rd=pid[axis], axis=axis)
        e.emit(sync.Nprog, rd=n[axis], axis=axis)
    me, count, tmp = e.vreg("x"), e.vreg("x"), e.vreg("x")
    e.emit(riscv.Mul, rd=tmp, rs1=pid[2], rs2=n[1])           # me = x + nx * (y + ny * z)
    e.emit(riscv.Add, rd=tmp, rs1=tmp, rs2=pid[1])
    e.emit(riscv.Mul, rd=tmp, rs1=tmp, rs2=n[0])
    e.emit(riscv.Add, rd=me, rs1=tmp, rs2=pid[0])
    e.emit(riscv.Mul, rd=count, rs1=n[0], rs2=n[1])
    e.emit(riscv.Mul, rd=count, rs1=count, rs2=n[2])
    e.emit(riscv.Addi, rd=count, rs1=count, imm=-1)           # the last program's id
    src = g.plan.loc.get(x)
    if isinstance(src, Uniform):
        e.emit(se.SeFill, out=t("push"), value=g.scalar_src(src.value))
    else:
        e.emit(se.SeMov, out=t("push"), a=g.src(x, op))
    send, last, done = e.new_label("re_send"), e.new_label("re_last"), e.new_label("re_done")
    e.emit(riscv.Beq, rs1=me, rs2=g.zero(), target=send)
    e.emit(combine, out=t("acc"), a=t("keep"), b=Tile(partial, "pop", loc.dtype, loc.shape))
    e.place(send)
    e.emit(riscv.Beq, rs1=me, rs2=count, target=last)
    nxt = e.vreg("x")
    e.emit(riscv.Addi, rd=nxt, rs1=me, imm=1)
    e.emit(rei.ReSend, a=t("keep"), pe=nxt, cb=partial)
    e.emit(se.SeMov, out=t("acc"), a=Tile(total, "pop", loc.dtype, loc.shape))
    e.emit(riscv.J, target=done)
    e.place(last)
    i, loop = e.vreg("x"), e.new_label("re_bcast")
    e.emit(riscv.Li, rd=i, imm=0)
    e.place(loop)
    e.emit(riscv.Bge, rs1=i, rs2=count, target=done)
    e.emit(rei.ReSend, a=t("keep"), pe=i, cb=total)
    e.emit(riscv.Addi, rd=i, rs1=i, imm=1)
    e.emit(riscv.J, target=loop)
    e.place(done)
    g.listing.re_reduce(op, loc.sid, partial, total)


def _assert(g, op) -> None:
    """A block condition: the RE ands it into one flag the control core reads and asserts."""
    e = g.e
    (sid,) = g.plan.temps[op]
    loc = g.plan.loc[op.cond]
    n = 1
    for d in loc.shape:
        n *= d
    g.listing.commands(op, [e.emit(rei.ReReduce, out=Tile(sid, "push", "i1", (1,)), a=Tile(loc.sid, "keep", "i1", (n,)),
                               op="and", axis=0)])
    addr, flag = e.vreg("x"), e.vreg("x")
    e.emit(cbi.CbWait, rd=addr, cb=sid)
    e.emit(riscv.Lbu, rd=flag, rs1=addr, imm=0)
    e.emit(cbi.CbPop, cb=sid)
    g.device_assert(op, flag)
    g.listing.device_assert(op, sid)


LOWER = {Op.REDUCE: _reduce, Op.SCAN: _scan, Op.HISTOGRAM: _histogram, Op.RE_REDUCE: _re_reduce,
         Op.ASSERT: _assert}
