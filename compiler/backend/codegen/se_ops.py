"""SE commands: element-wise arithmetic, comparisons, selects, casts, math functions, fills and iotas.

Every operand is a tile of the value's storage or, when the value is uniform, a scalar the SE
broadcasts; the result is a push of its storage, or an in-place `acc` update.
"""
from __future__ import annotations

from isa import scalar as riscv
from isa import se, sync
from isa.types import Tile

from ...ir import Op
from .. import dialect as mtia
from ..analysis.plan import TileLoc, dtype_of
from .emitter import VReg

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


def _fill(g, op) -> None:
    """A constant or splat block some reader needs as a whole tile."""
    g.e.emit(se.SeFill, out=g.out_tile(op), value=g.scalar_src(op.attrs["value"] if op.name == Op.CONSTANT
                                                                else op.src))


def _unary(g, op) -> None:
    g.e.emit(UNARY[op.name], out=g.out_tile(op), a=g.src(op.x, op))


def _binary(g, op) -> None:
    dt = _view_dtype(op.name, dtype_of(op.result.type))
    out = g.out_tile(op)
    # signed/unsigned ops read their operands as that view; the others as their tiles are (a folded
    # cast's narrow tile included: the SE converts it to the result's type)
    signed_view = op.name in UNSIGNED_VIEW or op.name in SIGNED_VIEW
    a, b = (g.src(v, op, dt if signed_view else None) for v in op.operands)
    g.e.emit(BINARY[op.name], out=Tile(out.cb, out.mode, dt, out.shape) if signed_view else out, a=a, b=b)


def _compare(g, op) -> None:
    pred = op.attrs["predicate"]
    if pred not in CMP:
        raise g.error(op, f"comparison '{pred}' on blocks is not supported by the MTIA backend")
    dt = _cmp_view(pred, dtype_of(op.lhs.type))
    g.e.emit(CMP[pred], out=g.out_tile(op), a=g.src(op.lhs, op, dt), b=g.src(op.rhs, op, dt))


def _select(g, op) -> None:
    g.e.emit(se.SeSelect, out=g.out_tile(op), cond=g.src(op.cond, op), a=g.src(op.true_value, op),
             b=g.src(op.false_value, op))


def _select_box(g, op) -> None:
    g.e.emit(se.SeSelectBox, out=g.out_tile(op), a=g.src(op.true_value, op), b=g.src(op.false_value, op),
             valid=g.xlist(op.valid))


def _fma(g, op) -> None:
    g.e.emit(se.SeFma, out=g.out_tile(op), a=g.src(op.a, op), b=g.src(op.b, op), c=g.src(op.c, op))


def _cast(g, op) -> None:
    name = op.name
    sdt = dtype_of(op.x.type)
    if (name == Op.EXTUI and sdt != "i1") or name == Op.UITOFP:
        sdt = _UNSIGNED.get(sdt, sdt)
    out = g.out_tile(op)
    if name == Op.FPTOUI:
        out = Tile(out.cb, out.mode, _UNSIGNED.get(out.dtype, out.dtype), out.shape)
    a = g.src(op.x, op, sdt)
    if sdt == "u64" and isinstance(a, VReg) and a.cls == "x":
        a = _unsigned_scalar_to_float(g, a, out.dtype)
    g.e.emit(se.SeMov, out=out, a=a)


def _unsigned_scalar_to_float(g, r: VReg, dtype: str) -> VReg:
    """An x register holding a u64 past 2^63, which the SE would read as a negative value: the core
    converts it (fcvt.s.lu, rounded once for f32; through f64 for the other float types)."""
    f = g.e.vreg("f")
    g.e.emit(riscv.FcvtSLU if dtype == "f32" else riscv.FcvtDLU, fd=f, rs1=r)
    return f


def _bitcast(g, op) -> None:
    out = g.out_tile(op)
    if not op.x.type.is_block() and not isinstance(g.plan.loc.get(op.x), TileLoc):
        # a scalar in a register (an f16/bf16/fp8 one held as f32): written into the result's slot in its
        # own type, the slot then holds its bits, which the result's type reads
        g.e.emit(se.SeFill, out=Tile(out.cb, out.mode, dtype_of(op.x.type), out.shape), value=g.scalar_src(op.x))
        return
    g.e.emit(se.SeBitcast, out=out, a=g.tile(op.x, op))


def _iota(g, op) -> None:
    g.e.emit(se.SeIota, out=g.out_tile(op), start=op.attrs["start"])


def _print(g, op) -> None:
    """tl.device_print: a dbg.print of each operand (a tile, or a scalar's register or immediate), or one of
    the prefix alone; the SE runs them in its order, each once its tile is computed."""
    prefix, hex = str(op.attrs.get("prefix", "")), int(bool(op.attrs.get("hex")))
    if not op.operands:
        g.e.emit(sync.DbgPrint, prefix=prefix, value=None, dtype="i32", operands=0)
    for k, v in enumerate(op.operands):
        if v.type.scalar.is_ptr():
            raise g.error(op, "printing pointers is not supported by the MTIA backend (print an offset)")
        src = g.tile(v, op) if v.type.is_block() else g.scalar_src(v)
        g.e.emit(sync.DbgPrint, prefix=prefix, value=src, dtype=v.type.scalar.ir, operand=k,
                 operands=len(op.operands), hex=hex)


LOWER = {Op.CONSTANT: _fill, Op.PRINT: _print, Op.SPLAT: _fill, Op.CMPI: _compare, Op.CMPF: _compare, Op.SELECT: _select,
         mtia.SELECT_BOX: _select_box,
         Op.FMA: _fma, Op.BITCAST: _bitcast, Op.MAKE_RANGE: _iota,
         **{n: _unary for n in UNARY}, **{n: _binary for n in BINARY}, **{n: _cast for n in CASTS}}
