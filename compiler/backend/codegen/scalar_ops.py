"""Scalar IR ops -> RISC-V on the control core.

Integers live in 64-bit registers in canonical form: signed types sign-extended, unsigned types
zero-extended, i1 as 0/1, so a wrapping op re-extends its result to the type's width (the
`addw`-style wrap Triton's i32 arithmetic needs). Floats live in f registers as f32.
"""
from __future__ import annotations

from isa import scalar as riscv
from isa import sync

from ...ir import Op
from ...ir.types import f32, f64, i1
from ..target import WIDE_ONLY

_RR = {Op.ADDI: riscv.Add, Op.SUBI: riscv.Sub, Op.MULI: riscv.Mul, Op.DIVSI: riscv.Div, Op.DIVUI: riscv.Divu,
       Op.REMSI: riscv.Rem, Op.REMUI: riscv.Remu, Op.ANDI: riscv.And, Op.ORI: riscv.Or, Op.XORI: riscv.Xor,
       Op.SHLI: riscv.Sll, Op.SHRSI: riscv.Sra, Op.SHRUI: riscv.Srl, Op.MAXSI: riscv.Max, Op.MINSI: riscv.Min}
_IMM = {riscv.Add: riscv.Addi, riscv.And: riscv.Andi, riscv.Or: riscv.Ori, riscv.Xor: riscv.Xori, riscv.Sll: riscv.Slli,
        riscv.Srl: riscv.Srli, riscv.Sra: riscv.Srai}
_COMMUTATIVE = {riscv.Add, riscv.Mul, riscv.And, riscv.Or, riscv.Xor, riscv.Max, riscv.Min}
_WRAPS = {Op.ADDI, Op.SUBI, Op.MULI, Op.SHLI, Op.DIVSI, Op.DIVUI, Op.REMSI, Op.REMUI, Op.MAXSI, Op.MINSI,
          Op.ANDI, Op.ORI, Op.XORI, Op.SHRSI, Op.SHRUI}
_FF = {Op.ADDF: riscv.FaddS, Op.SUBF: riscv.FsubS, Op.MULF: riscv.FmulS, Op.DIVF: riscv.FdivS,
       Op.PRECISE_DIVF: riscv.FdivS, Op.MAXNUMF: riscv.FmaxS, Op.MINNUMF: riscv.FminS}
_DOUBLE = {riscv.FaddS: riscv.FaddD, riscv.FsubS: riscv.FsubD, riscv.FmulS: riscv.FmulD, riscv.FdivS: riscv.FdivD,
           riscv.FmaxS: riscv.FmaxD, riscv.FminS: riscv.FminD, riscv.FsqrtS: riscv.FsqrtD, riscv.FnegS: riscv.FnegD,
           riscv.FeqS: riscv.FeqD,
           riscv.FltS: riscv.FltD, riscv.FleS: riscv.FleD, riscv.FcvtSL: riscv.FcvtDL, riscv.FcvtLS: riscv.FcvtLD,
           riscv.FcvtSLU: riscv.FcvtDLU, riscv.FcvtLUS: riscv.FcvtLUD, riscv.Fli: riscv.FliD}


def fop(cls, t):
    """The f64 form of a float instruction when the type is f64 (f registers hold f64)."""
    return _DOUBLE.get(cls, cls) if t == f64 else cls


def canonicalize(g, reg, t) -> None:
    """Re-extend an integer register to its type's width after a wrapping op."""
    if not t.is_int() or t == i1:
        return
    bits = t.int_bitwidth
    if bits == 64:
        return
    signed = t.is_int_signed()
    cls = {(8, True): riscv.SextB, (16, True): riscv.SextH, (32, True): riscv.SextW,
           (8, False): riscv.ZextB, (16, False): riscv.ZextH, (32, False): riscv.ZextW}[(bits, signed)]
    g.e.emit(cls, rd=reg, rs1=reg)


def lower(g, op) -> bool:
    """Emit code for a scalar op; False if this module does not handle it."""
    name = op.name
    e = g.e
    if name in _RR:
        t = op.result.type
        a, b = op.operands
        cls = _RR[name]
        rd = g.def_reg(op.result)
        bc = g.const_int(b)
        if bc is None and cls in _COMMUTATIVE and g.const_int(a) is not None:
            a, b, bc = b, a, g.const_int(a)              # the constant on the right, as an immediate
        if cls is riscv.Mul and bc is not None and bc > 0 and bc & (bc - 1) == 0:
            e.emit(riscv.Slli, rd=rd, rs1=g.reg(a), imm=bc.bit_length() - 1)   # x * 2^k = x << k (same wrap)
        elif cls in _IMM and bc is not None:
            e.emit(_IMM[cls], rd=rd, rs1=g.reg(a), imm=bc)
        elif cls is riscv.Sub and bc is not None:
            e.emit(riscv.Addi, rd=rd, rs1=g.reg(a), imm=-bc)
        else:
            ra, rb = g.reg(a), g.reg(b)
            if name in (Op.SHRUI, Op.DIVUI, Op.REMUI, Op.MAXUI, Op.MINUI) and t.int_bitwidth < 64:
                ra, rb = g.zext(ra, t), g.zext(rb, t)
            e.emit(cls, rd=rd, rs1=ra, rs2=rb)
        if name in _WRAPS:
            canonicalize(g, rd, t)
        return True
    if name == Op.ABSI:                                  # max(a, -a): INT_MIN wraps back to itself
        t = op.result.type
        a = g.reg(op.operands[0])
        rd = g.def_reg(op.result)
        neg = e.vreg("x")
        e.emit(riscv.Sub, rd=neg, rs1=g.zero(), rs2=a)
        e.emit(riscv.Max, rd=rd, rs1=a, rs2=neg)
        canonicalize(g, rd, t)
        return True
    if name in (Op.MAXUI, Op.MINUI):
        a, b = g.reg(op.lhs), g.reg(op.rhs)
        rd = g.def_reg(op.result)
        lt = e.vreg("x")
        e.emit(riscv.Sltu, rd=lt, rs1=a, rs2=b)
        g.select_into(rd, lt, (b, a) if name == Op.MAXUI else (a, b))
        return True
    if name == Op.CMPI:
        _cmpi(g, op)
        return True
    if name == Op.SELECT:
        c, a, b = op.operands
        rd = g.def_reg(op.result)
        g.select_into(rd, g.reg(c), (g.reg(a), g.reg(b)))
        return True
    if name in (Op.EXTSI, Op.EXTUI) and g.const_int(op.x) is None and (
            (name == Op.EXTSI and op.x.type.is_int_signed()) or
            (name == Op.EXTUI and (op.x.type.is_int_unsigned() or op.x.type == i1))):
        g.regs[op.result] = g.reg(op.x)                # already canonical in 64 bits: no code
        return True
    if name in (Op.EXTSI, Op.EXTUI, Op.TRUNCI):
        src, t = op.x, op.result.type
        rd = g.def_reg(op.result)
        ra = g.reg(src)
        if name == Op.EXTUI and src.type.is_int_signed() and src.type != i1:
            ra = g.zext(ra, src.type)
        e.emit(riscv.Mv, rd=rd, rs1=ra)
        canonicalize(g, rd, t)
        return True
    if name == Op.BITCAST:
        src, t = op.x, op.result.type
        rd = g.def_reg(op.result)
        if t.is_floating() and src.type.is_int():
            e.emit(riscv.FmvDX if t == f64 else riscv.FmvWX, fd=rd, rs1=g.reg(src))
        elif t.is_int() and src.type.is_floating():
            e.emit(riscv.FmvXD if src.type == f64 else riscv.FmvXW, rd=rd, fs1=g.reg(src))
            canonicalize(g, rd, t)
        else:
            e.emit(riscv.Mv, rd=rd, rs1=g.reg(src))
            canonicalize(g, rd, t)
        return True
    if name in (Op.PTR_TO_INT, Op.INT_TO_PTR, Op.PTR_BITCAST) and g.const_int(op.x) is None:
        g.regs[op.result] = g.reg(op.x)                # the same 64-bit address
        return True
    if name in (Op.PTR_TO_INT, Op.INT_TO_PTR, Op.PTR_BITCAST):
        e.emit(riscv.Mv, rd=g.def_reg(op.result), rs1=g.reg(op.x))
        return True
    if name == Op.ADDPTR:
        p, off = op.operands
        isz = p.type.element_ty.itemsize
        rd = g.def_reg(op.result)
        c = g.const_int(off)
        if c is not None:
            e.emit(riscv.Addi, rd=rd, rs1=g.reg(p), imm=c * isz)
            return True
        ro = g.reg(off)
        if off.type.is_int_unsigned() and off.type.int_bitwidth < 64:
            ro = g.zext(ro, off.type)
        if isz > 1:
            t = e.vreg("x")
            if isz & (isz - 1) == 0:
                e.emit(riscv.Slli, rd=t, rs1=ro, imm=isz.bit_length() - 1)
            else:
                e.emit(riscv.Mul, rd=t, rs1=ro, rs2=g.const_reg(isz))
            ro = t
        e.emit(riscv.Add, rd=rd, rs1=g.reg(p), rs2=ro)
        return True
    if name in (Op.GET_PROGRAM_ID, Op.GET_NUM_PROGRAMS):
        cls = sync.Pid if name == Op.GET_PROGRAM_ID else sync.Nprog
        e.emit(cls, rd=g.def_reg(op.result), axis=op.attrs["axis"])
        return True
    if name == Op.GET_PE_ID:
        e.emit(sync.PeId, rd=g.def_reg(op.result))
        return True
    if name in _FF:
        a, b = op.operands
        e.emit(fop(_FF[name], op.result.type), fd=g.def_reg(op.result), fs1=g.reg(a), fs2=g.reg(b))
        return True
    if name == Op.NEGF:         # a sign flip, not 0 - x (which gives +0.0 for 0.0)
        e.emit(fop(riscv.FnegS, op.result.type), fd=g.def_reg(op.result), fs1=g.reg(op.x))
        return True
    if name in (Op.SQRT, Op.PRECISE_SQRT):
        e.emit(fop(riscv.FsqrtS, op.result.type), fd=g.def_reg(op.result), fs1=g.reg(op.x))
        return True
    if name == Op.CMPF:
        _cmpf(g, op)
        return True
    if name in (Op.SITOFP, Op.UITOFP):
        src = op.x
        ra = g.reg(src)
        if name == Op.UITOFP and src.type.is_int_signed() and src.type != i1:
            ra = g.zext(ra, src.type)
        wide_unsigned = name == Op.UITOFP and src.type.int_bitwidth == 64     # past 2^63: not a signed value
        e.emit(fop(riscv.FcvtSLU if wide_unsigned else riscv.FcvtSL, op.result.type), fd=g.def_reg(op.result), rs1=ra)
        return True
    if name in (Op.FPTOSI, Op.FPTOUI):
        _float_to_int(g, op)
        return True
    if name == Op.EXTF or (name == Op.FP_TO_FP and op.result.type == f32 and op.x.type.ir in WIDE_ONLY):
        e.emit(riscv.FmvS, fd=g.def_reg(op.result), fs1=g.reg(op.x))       # (held as f32 already)
        return True
    if name == Op.TRUNCF and op.x.type == f64:
        e.emit(riscv.FcvtSD, fd=g.def_reg(op.result), fs1=g.reg(op.x))
        return True
    return False


def _float_to_int(g, op) -> None:
    """Saturating, nan -> 0, as isa/float_to_int.py defines: fcvt saturates to 64 bits (fcvt.l.s gives 0
    for nan), then a narrower type clamps to its range; fcvt.lu.s gives 2^64 - 1 for nan, so that one is
    multiplied by (x == x)."""
    e, t = g.e, op.result.type
    rd, fs = g.def_reg(op.result), g.reg(op.x)
    bits, signed = t.int_bitwidth, op.name == Op.FPTOSI
    if bits == 64 and not signed:
        ordered = e.vreg("x")
        e.emit(fop(riscv.FcvtLUS, op.x.type), rd=rd, fs1=fs)
        e.emit(fop(riscv.FeqS, op.x.type), rd=ordered, fs1=fs, fs2=fs)
        e.emit(riscv.Mul, rd=rd, rs1=rd, rs2=ordered)
        return
    e.emit(fop(riscv.FcvtLS, op.x.type), rd=rd, fs1=fs)
    if bits < 64:              # in range, so already sign- or zero-extended as canonicalize would leave it
        lo, hi = (-(1 << bits - 1), (1 << bits - 1) - 1) if signed else (0, (1 << bits) - 1)
        e.emit(riscv.Max, rd=rd, rs1=rd, rs2=g.const_reg(lo))
        e.emit(riscv.Min, rd=rd, rs1=rd, rs2=g.const_reg(hi))


def _cmpi(g, op) -> None:
    e = g.e
    pred = op.attrs["predicate"]
    a, b = op.operands
    rd = g.def_reg(op.result)
    ra, rb = g.reg(a), g.reg(b)
    if pred in ("eq", "ne"):
        d = e.vreg("x")
        e.emit(riscv.Xor, rd=d, rs1=ra, rs2=rb)
        if pred == "eq":
            e.emit(riscv.Sltiu, rd=rd, rs1=d, imm=1)
        else:
            e.emit(riscv.Sltu, rd=rd, rs1=g.zero(), rs2=d)
        return
    unsigned = pred[0] == "u"
    lt = riscv.Sltu if unsigned else riscv.Slt
    kind = pred[1:]
    if kind == "lt":
        e.emit(lt, rd=rd, rs1=ra, rs2=rb)
    elif kind == "gt":
        e.emit(lt, rd=rd, rs1=rb, rs2=ra)
    elif kind == "le":                  # a <= b  <=>  !(b < a)
        e.emit(lt, rd=rd, rs1=rb, rs2=ra)
        e.emit(riscv.Xori, rd=rd, rs1=rd, imm=1)
    else:                               # ge
        e.emit(lt, rd=rd, rs1=ra, rs2=rb)
        e.emit(riscv.Xori, rd=rd, rs1=rd, imm=1)


def _cmpf(g, op) -> None:
    e = g.e
    pred = op.attrs["predicate"]
    t = op.lhs.type
    feq, flt, fle = fop(riscv.FeqS, t), fop(riscv.FltS, t), fop(riscv.FleS, t)
    a, b = (g.reg(v) for v in op.operands)
    rd = g.def_reg(op.result)
    if pred in ("oeq", "une"):
        e.emit(feq, rd=rd, fs1=a, fs2=b)
        if pred == "une":
            e.emit(riscv.Xori, rd=rd, rs1=rd, imm=1)
    elif pred == "olt":
        e.emit(flt, rd=rd, fs1=a, fs2=b)
    elif pred == "ole":
        e.emit(fle, rd=rd, fs1=a, fs2=b)
    elif pred == "ogt":
        e.emit(flt, rd=rd, fs1=b, fs2=a)
    elif pred == "oge":
        e.emit(fle, rd=rd, fs1=b, fs2=a)
    elif pred == "one":                 # ordered and not equal: a < b or b < a
        t = e.vreg("x")
        e.emit(flt, rd=rd, fs1=a, fs2=b)
        e.emit(flt, rd=t, fs1=b, fs2=a)
        e.emit(riscv.Or, rd=rd, rs1=rd, rs2=t)
    elif pred in ("ord", "uno"):        # x == x is false only for nan
        t = e.vreg("x")
        e.emit(feq, rd=rd, fs1=a, fs2=a)
        e.emit(feq, rd=t, fs1=b, fs2=b)
        e.emit(riscv.And, rd=rd, rs1=rd, rs2=t)
        if pred == "uno":
            e.emit(riscv.Xori, rd=rd, rs1=rd, imm=1)
    else:
        raise g.error(op, f"float comparison '{pred}' is not supported on scalars")
