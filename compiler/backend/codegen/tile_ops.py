"""Block IR ops -> engine commands on CB tiles: SE element-wise, RE reductions and scans, DPE
matmuls, MLU layout changes, DMA transfers.

Which engine runs an op is the `ENGINE` table (the map-engines pass annotates the IR with it).
Every operand is a tile of the value's storage (`pop` at its last read, `keep` before), or a scalar
when the value is uniform; every result is a `push` of its storage, or an in-place `acc` update.
"""
from __future__ import annotations

from isa import dma, dpe, mlu, se
from isa import re as rei
from isa.types import Tile

from ...ir import Op, patterns
from ...ir.core import Operation
from .. import dialect as mtia
from ..passes.bufferize import TileLoc, Uniform, dtype_of, tile_shape

UNARY = {Op.NEGF: se.SeNeg, Op.EXP: se.SeExp, Op.EXP2: se.SeExp2, Op.LOG: se.SeLog, Op.LOG2: se.SeLog2,
         Op.SQRT: se.SeSqrt, Op.PRECISE_SQRT: se.SeSqrt, Op.RSQRT: se.SeRsqrt, Op.ABSF: se.SeAbs,
         Op.ABSI: se.SeAbs, Op.ERF: se.SeErf, Op.FLOOR: se.SeFloor, Op.CEIL: se.SeCeil, Op.SIN: se.SeSin,
         Op.COS: se.SeCos, Op.TANH: se.SeTanh, Op.ROUNDEVEN: se.SeRint, Op.ISNAN: se.SeIsnan, Op.ISINF: se.SeIsinf}
CASTS = (Op.EXTSI, Op.EXTUI, Op.TRUNCI, Op.SITOFP, Op.UITOFP, Op.FPTOSI, Op.FPTOUI, Op.EXTF, Op.TRUNCF,
         Op.FP_TO_FP)
BINARY = {Op.ADDI: se.SeAdd, Op.ADDF: se.SeAdd, Op.SUBI: se.SeSub, Op.SUBF: se.SeSub, Op.MULI: se.SeMul,
          Op.MULF: se.SeMul, Op.DIVF: se.SeDiv, Op.PRECISE_DIVF: se.SeDiv, Op.DIVSI: se.SeDiv,
          Op.DIVUI: se.SeDiv, Op.REMSI: se.SeRem, Op.REMUI: se.SeRem, Op.REMF: se.SeRem, Op.ANDI: se.SeAnd,
          Op.ORI: se.SeOr, Op.XORI: se.SeXor, Op.SHLI: se.SeShl, Op.SHRSI: se.SeShr, Op.SHRUI: se.SeShr,
          Op.MAXSI: se.SeMax, Op.MINSI: se.SeMin, Op.MAXUI: se.SeMax, Op.MINUI: se.SeMin,
          Op.MAXNUMF: se.SeMax, Op.MINNUMF: se.SeMin, Op.MAXIMUMF: se.SeMaxNan, Op.MINIMUMF: se.SeMinNan,
          Op.MULHIUI: se.SeUmulhi, Op.POWF: se.SePow, Op.ATAN2: se.SeAtan2}
UNSIGNED_VIEW = {Op.DIVUI, Op.REMUI, Op.SHRUI, Op.MAXUI, Op.MINUI, Op.MULHIUI}
SIGNED_VIEW = {Op.DIVSI, Op.REMSI, Op.SHRSI, Op.MAXSI, Op.MINSI}
CMP = {"eq": se.SeEq, "ne": se.SeNe, "slt": se.SeLt, "sle": se.SeLe, "sgt": se.SeGt, "sge": se.SeGe,
       "ult": se.SeLt, "ule": se.SeLe, "ugt": se.SeGt, "uge": se.SeGe, "oeq": se.SeEq, "une": se.SeNe,
       "one": se.SeNe, "olt": se.SeLt, "ole": se.SeLe, "ogt": se.SeGt, "oge": se.SeGe}

ENGINE = {**{k: "se" for k in (*UNARY, *BINARY, *CASTS, Op.CMPI, Op.CMPF, Op.SELECT, Op.FMA, Op.BITCAST,
                                Op.MAKE_RANGE, Op.CONSTANT, Op.SPLAT)},
          Op.DOT: "dpe", Op.REDUCE: "re", Op.SCAN: "re", Op.TRANS: "mlu", Op.JOIN: "mlu", Op.SPLIT: "mlu",
          Op.CAT: "mlu", Op.EXTRACT_SLICE: "mlu", Op.BROADCAST: "mlu", Op.EXPAND_DIMS: "view",
          Op.RESHAPE: "view", mtia.LOAD_BOX: "dma", mtia.STORE_BOX: "dma", mtia.GATHER: "dma", mtia.SCATTER: "dma",
          mtia.ATOMIC: "dma", mtia.CAS: "dma", mtia.TO_SCALAR: "core", "tt.gather": "mlu", "tt.histogram": "re"}

_SIGNED = {"u8": "i8", "u16": "i16", "u32": "i32", "u64": "i64"}
_UNSIGNED = {v: k for k, v in _SIGNED.items()}


def _view_dtype(name, dtype: str) -> str:
    if name in UNSIGNED_VIEW:
        return _UNSIGNED.get(dtype, dtype)
    if name in SIGNED_VIEW:
        return _SIGNED.get(dtype, dtype)
    return dtype


def _cmp_view(pred: str, dtype: str) -> str:
    if pred[0] == "u":
        return _UNSIGNED.get(dtype, dtype)
    if pred[0] == "s":
        return _SIGNED.get(dtype, dtype)
    return dtype


def out_tile(g, op: Operation, result=None) -> Tile:
    """The tile an op's result is written to: a push, or acc when the op updates in place."""
    r = result if result is not None else op.results[0]
    loc = g.plan.loc[r]
    mode = "acc" if g.plan.inplace.get(op) == loc.sid else "push"
    return Tile(loc.sid, mode, loc.dtype, loc.shape)


def lower(g, op: Operation) -> bool:
    name = op.name
    e = g.e
    res = op.results[0] if op.results else None
    if name in (Op.CONSTANT, Op.SPLAT) and res is not None and res in g.plan.fill_at_def:
        e.emit(se.SeFill, out=out_tile(g, op), value=g.scalar_src(op.attrs["value"] if name == Op.CONSTANT
                                                                   else op.src))
        return True
    if name in (Op.SPLAT, Op.BROADCAST, Op.EXPAND_DIMS, Op.RESHAPE, Op.TRANS) and op not in g.plan.inplace:
        src = g.plan.loc.get(op.src)
        if isinstance(src, TileLoc) and g.plan.loc[res].sid == src.sid:
            return True                                   # a view of the source's bytes: no data moves
    if name == Op.SPLAT:
        e.emit(mlu.MluBcast, out=out_tile(g, op), a=g.tile(op.src, op))
        return True
    if name == mtia.TO_SCALAR:
        return True                                       # the core reads it (Codegen.fetch_results)
    if name in UNARY:
        e.emit(UNARY[name], out=out_tile(g, op), a=g.src(op.x, op))
        return True
    if name in BINARY:
        dt = _view_dtype(name, dtype_of(res.type))
        out = out_tile(g, op)
        out = Tile(out.cb, out.mode, dt, out.shape)
        a, b = (g.src(v, op, dt) for v in op.operands)
        e.emit(BINARY[name], out=out, a=a, b=b)
        return True
    if name in (Op.CMPI, Op.CMPF):
        pred = op.attrs["predicate"]
        if pred not in CMP:
            raise g.error(op, f"comparison '{pred}' on blocks is not supported by the MTIA backend")
        dt = _cmp_view(pred, dtype_of(op.lhs.type))
        e.emit(CMP[pred], out=out_tile(g, op), a=g.src(op.lhs, op, dt), b=g.src(op.rhs, op, dt))
        return True
    if name == Op.SELECT:
        c, a, b = op.operands
        e.emit(se.SeSelect, out=out_tile(g, op), cond=g.src(c, op), a=g.src(a, op), b=g.src(b, op))
        return True
    if name == Op.FMA:
        e.emit(se.SeFma, out=out_tile(g, op), **{k: g.src(v, op) for k, v in zip("abc", op.operands)})
        return True
    if name in CASTS:
        src = op.x
        sdt = dtype_of(src.type)
        if name == Op.EXTUI and sdt != "i1":
            sdt = _UNSIGNED.get(sdt, sdt)
        if name in (Op.UITOFP, Op.FPTOUI):
            sdt = _UNSIGNED.get(sdt, sdt) if name == Op.UITOFP else sdt
        out = out_tile(g, op)
        if name == Op.FPTOUI:
            out = Tile(out.cb, out.mode, _UNSIGNED.get(out.dtype, out.dtype), out.shape)
        e.emit(se.SeMov, out=out, a=g.src(src, op, sdt))
        return True
    if name == Op.BITCAST:
        e.emit(se.SeBitcast, out=out_tile(g, op), a=g.tile(op.x, op))
        return True
    if name == Op.MAKE_RANGE:
        e.emit(se.SeIota, out=out_tile(g, op), start=op.attrs["start"])
        return True
    if name == Op.DOT:
        _dot(g, op)
        return True
    if name == Op.REDUCE:
        _reduce(g, op)
        return True
    if name == Op.SCAN:
        _scan(g, op)
        return True
    if name in (Op.BROADCAST, Op.EXPAND_DIMS, Op.RESHAPE):
        # not a view (bufferize decided): materialise the source broadcast to the source's full shape
        src = op.src
        out = out_tile(g, op)
        full = tile_shape(src.type) if name != Op.BROADCAST else out.shape
        e.emit(mlu.MluBcast, out=Tile(out.cb, out.mode, out.dtype, full), a=g.tile(src, op))
        return True
    if name == Op.TRANS:
        e.emit(mlu.MluTranspose, out=out_tile(g, op), a=g.tile(op.src, op), perm=tuple(op.attrs["order"]))
        return True
    if name == Op.JOIN:
        e.emit(mlu.MluJoin, out=out_tile(g, op), a=g.tile(op.lhs, op), b=g.tile(op.rhs, op))
        return True
    if name == Op.CAT:
        e.emit(mlu.MluConcat, out=out_tile(g, op), a=g.tile(op.lhs, op), b=g.tile(op.rhs, op),
               axis=0)
        return True
    if name == Op.SPLIT:
        src = op.src
        rank = len(src.type.shape)
        for k, r in enumerate(op.results):
            if r in g.plan.loc:
                out = out_tile(g, op, r)
                t = g.tile(src, op)
                e.emit(mlu.MluSlice, out=Tile(out.cb, out.mode, out.dtype, out.shape + (1,)), a=t,
                       start=(0,) * (rank - 1) + (k,), step=(1,) * (rank - 1) + (2,))
        return True
    if name == "tt.gather":                  # tl.gather(src, index, axis)
        e.emit(mlu.MluGather, out=out_tile(g, op), a=g.tile(op.src, op), index=g.tile(op.index, op),
               axis=op.attrs["axis"])
        return True
    if name == "tt.histogram":               # tl.histogram(x, num_bins[, mask])
        mask = g.tile(op.mask, op) if op.mask is not None else None
        e.emit(rei.ReHistogram, out=out_tile(g, op), a=g.tile(op.src, op), mask=mask)
        return True
    if name == Op.EXTRACT_SLICE:
        e.emit(mlu.MluSlice, out=out_tile(g, op), a=g.tile(op.src, op),
               start=tuple(op.attrs["offsets"]), step=tuple(op.attrs["strides"]))
        return True
    return _dma(g, op)


def _dot(g, op: Operation) -> None:
    a, b, c = op.operands
    out = out_tile(g, op)
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
    if ta.dtype not in g.cfg.pe.dpe.macs_per_cycle:
        raise g.error(op, f"tl.dot on {ta.dtype} is not supported by the DPE of {g.cfg.name} "
                          f"(it multiplies {', '.join(g.cfg.pe.dpe.macs_per_cycle)})")
    g.e.emit(dpe.DpeMatmul, out=out, a=ta, b=tb, trans_a=int(la.trans), trans_b=int(lb.trans))


RE_KINDS = {"add": "sum", "mul": "prod", "max": "max", "min": "min", "and": "and", "or": "or", "xor": "xor"}
RE_SCANS = ("sum", "prod", "max", "min")


def combine_kind(op: Operation) -> str | None:
    """What a tt.reduce / tt.scan combine region computes, when the RE runs it: 'sum', 'max', 'argmax', ...
    None for any other combine (the expand-combine pass rewrites those into SE and MLU steps)."""
    if len(op.srcs) == 1:
        return RE_KINDS.get(patterns.combine_kind(op))
    if len(op.srcs) == 2 and op.name == Op.REDUCE:
        return _arg_extreme(op)
    return None


def runs_on_re(op: Operation) -> bool:
    """Whether the RE runs this tt.reduce / tt.scan as one command."""
    kind = combine_kind(op)
    return kind is not None and (op.name == Op.REDUCE or kind in RE_SCANS)


def _arg_extreme(op: Operation) -> str | None:
    """'argmax' / 'argmin' for tl.argmax's combine over (x, the index along the axis):
    better = v1 > v2 [or (v1 == v2 and i1 < i2)] (or v1 >= v2), returning select(better, v1, v2) and
    select(better, i1, i2). The RE gives the first index of the extreme; a combine preferring later
    indices on ties, or carrying anything but the index, is not this."""
    v1, i1, v2, i2 = op.body.args
    rv, ri = op.body.terminator.operands
    sv, si = patterns.defining_op(rv, Op.SELECT), patterns.defining_op(ri, Op.SELECT)
    if sv is None or si is None or (sv.true_value, sv.false_value) != (v1, v2) \
            or (si.true_value, si.false_value) != (i1, i2) or sv.cond is not si.cond \
            or not _is_index(op.srcs[1], op.attrs["axis"]):
        return None
    better = sv.cond
    cmp = _compare(better, v1, v2)
    if cmp is None:                                  # or(v1 > v2, and(v1 == v2, i1 < i2))
        either = patterns.defining_op(better, Op.ORI)
        sides = [(either.lhs, either.rhs), (either.rhs, either.lhs)] if either is not None else []
        for first, second in sides:
            both = patterns.defining_op(second, Op.ANDI)
            cmp = _compare(first, v1, v2)
            if cmp in ("gt", "lt") and both is not None and \
                    {_compare(both.lhs, v1, v2), _compare(both.rhs, i1, i2)} == {"eq", "lt"}:
                return "argmax" if cmp == "gt" else "argmin"
        return None
    return {"gt": "argmax", "ge": "argmax", "lt": "argmin", "le": "argmin"}.get(cmp)


def _compare(v, a, b) -> str | None:
    """'gt', 'ge', 'lt', 'le' or 'eq' when v is the comparison a <pred> b (signedness aside)."""
    c = patterns.defining_op(v)
    if c is None or c.name not in (Op.CMPF, Op.CMPI) or c.operands != (a, b):
        return None
    pred = c.attrs["predicate"]
    return pred if pred == "eq" else pred[1:]


def _is_index(v, axis: int) -> bool:
    """Whether v is 0, 1, ..., n-1 along `axis` (tl.arange expanded and broadcast to the block)."""
    n = v.type.shape[axis]
    while (o := patterns.defining_op(v, Op.BROADCAST)) is not None:
        v = o.src
    shape = v.type.shape
    if shape[axis] != n or any(d != 1 for i, d in enumerate(shape) if i != axis):
        return False
    while (o := patterns.defining_op(v)) is not None and o.name in (Op.EXPAND_DIMS, Op.RESHAPE):
        v = o.src
    r = patterns.defining_op(v, Op.MAKE_RANGE)
    return r is not None and r.attrs["start"] == 0 and r.attrs["end"] == n


def _reduce(g, op: Operation) -> None:
    kind = combine_kind(op)
    if kind is None:
        raise g.error(op, "this tl.reduce combine function is not supported by the MTIA reduction engine "
                          "(it runs sum, prod, max, min, argmax, argmin, and, or, xor)")
    axis = op.attrs["axis"]
    x = op.srcs[0]
    if kind in ("argmax", "argmin"):
        vals, idx = op.results
        if vals in g.plan.loc:
            g.e.emit(rei.ReReduce, out=out_tile(g, op, vals), a=g.tile(x, op),
                     op="max" if kind == "argmax" else "min", axis=axis)
        if idx in g.plan.loc:
            g.e.emit(rei.ReReduce, out=out_tile(g, op, idx), a=g.tile(x, op), op=kind, axis=axis)
        return
    g.e.emit(rei.ReReduce, out=out_tile(g, op), a=g.tile(x, op), op=kind, axis=axis)


def _scan(g, op: Operation) -> None:
    kind = combine_kind(op)
    if kind not in RE_SCANS:
        raise g.error(op, "this tl.associative_scan combine function is not supported by the MTIA reduction "
                          "engine (it scans sum, prod, max, min)")
    g.e.emit(rei.ReScan, out=out_tile(g, op), a=g.tile(op.srcs[0], op), op=kind, axis=op.attrs["axis"],
             reverse=int(bool(op.attrs.get("reverse"))))


def _dma(g, op: Operation) -> bool:
    name = op.name
    e = g.e
    if name == mtia.LOAD_BOX:
        out = out_tile(g, op)
        pad = g.scalar_src(op.other) if op.other is not None else float(op.attrs.get("pad", 0))
        e.emit(dma.DmaIn, out_comment(g, op), dst=out, base=g.reg(op.ptr), strides=g.xlist(op.strides),
               valid=g.valid(op.valid, out.shape), pad=pad, unaligned=int(bool(op.attrs.get("unaligned"))))
        return True
    if name == mtia.STORE_BOX:
        src = g.tile(op.value, op)
        e.emit(dma.DmaOut, out_comment(g, op), src=src, base=g.reg(op.ptr), strides=g.xlist(op.strides),
               valid=g.valid(op.valid, src.shape), unaligned=int(bool(op.attrs.get("unaligned"))))
        return True
    if name == mtia.GATHER:
        mask = g.tile(op.mask, op) if op.mask is not None else None
        e.emit(dma.DmaGather, dst=out_tile(g, op), base=g.reg(op.ptr), offsets=g.tile(op.offsets, op), mask=mask,
               pad=float(op.attrs.get("pad", 0) or 0))
        return True
    if name == mtia.SCATTER:
        mask = g.tile(op.mask, op) if op.mask is not None else None
        e.emit(dma.DmaScatter, src=g.tile(op.value, op), base=g.reg(op.ptr), offsets=g.tile(op.offsets, op),
               mask=mask)
        return True
    if name == mtia.ATOMIC:
        mask = g.tile(op.mask, op) if op.mask is not None else None
        e.emit(dma.DmaAtomic, op=op.attrs["kind"], dst=out_tile(g, op), base=g.reg(op.ptr),
               offsets=g.tile(op.offsets, op), val=g.tile(op.value, op), mask=mask)
        return True
    if name == mtia.CAS:
        e.emit(dma.DmaCas, dst=out_tile(g, op), base=g.reg(op.ptr), offsets=g.tile(op.offsets, op),
               cmp=g.tile(op.cmp, op), val=g.tile(op.value, op))
        return True
    return False


def out_comment(g, op) -> str:
    return f"line {op.loc.line}" if op.loc else ""
