"""The scalar RISC-V subset the control core runs: RV64IM arithmetic, compares, branches, loads and
stores, a few Zbb ops (min/max) and single-precision floats (RV F), plus pseudo-instructions that
keep generated code short (li, mv, j, fli).

Integer registers are 64 bits and wrap; x0 always reads 0. Loads and stores address the PE's local
store ([0, LS size)) or global memory (SRAM scratch and DRAM, see isa.types for the map). A load or
store of global memory keeps program order with this PE's DMA commands: it waits until those issued
before it that write its bytes have written them and, for a store, those that read them have read.
"""
from __future__ import annotations

from .fields import FImm, FReg, Imm, Label, XReg
from .instruction import Instr, family, instruction


@family
class RType(Instr):
    rd: XReg
    rs1: XReg
    rs2: XReg


@family
class IType(Instr):
    rd: XReg
    rs1: XReg
    imm: Imm


@instruction("add", "scalar")
class Add(RType):
    """rd = rs1 + rs2 (wraps at 64 bits)."""


@instruction("sub", "scalar")
class Sub(RType):
    """rd = rs1 - rs2 (wraps at 64 bits)."""


@instruction("mul", "scalar")
class Mul(RType):
    """rd = low 64 bits of rs1 * rs2."""


@instruction("mulh", "scalar")
class Mulh(RType):
    """rd = high 64 bits of the signed 128-bit product rs1 * rs2."""


@instruction("mulhu", "scalar")
class Mulhu(RType):
    """rd = high 64 bits of the unsigned 128-bit product rs1 * rs2."""


@instruction("div", "scalar")
class Div(RType):
    """rd = rs1 / rs2, signed, rounding toward zero (C semantics); division by zero gives -1."""


@instruction("divu", "scalar")
class Divu(RType):
    """rd = rs1 / rs2, unsigned; division by zero gives 2^64-1."""


@instruction("rem", "scalar")
class Rem(RType):
    """rd = rs1 % rs2, signed, the sign follows the dividend (C semantics); x % 0 = x."""


@instruction("remu", "scalar")
class Remu(RType):
    """rd = rs1 % rs2, unsigned; x % 0 = x."""


@instruction("and", "scalar")
class And(RType):
    """rd = rs1 & rs2."""


@instruction("or", "scalar")
class Or(RType):
    """rd = rs1 | rs2."""


@instruction("xor", "scalar")
class Xor(RType):
    """rd = rs1 ^ rs2."""


@instruction("sll", "scalar")
class Sll(RType):
    """rd = rs1 << (rs2 & 63)."""


@instruction("srl", "scalar")
class Srl(RType):
    """rd = rs1 >> (rs2 & 63), logical."""


@instruction("sra", "scalar")
class Sra(RType):
    """rd = rs1 >> (rs2 & 63), arithmetic."""


@instruction("slt", "scalar")
class Slt(RType):
    """rd = 1 if rs1 < rs2 (signed) else 0."""


@instruction("sltu", "scalar")
class Sltu(RType):
    """rd = 1 if rs1 < rs2 (unsigned) else 0."""


@instruction("min", "scalar")
class Min(RType):
    """rd = min(rs1, rs2), signed (Zbb)."""


@instruction("max", "scalar")
class Max(RType):
    """rd = max(rs1, rs2), signed (Zbb)."""


@instruction("addi", "scalar")
class Addi(IType):
    """rd = rs1 + imm."""


@instruction("andi", "scalar")
class Andi(IType):
    """rd = rs1 & imm."""


@instruction("ori", "scalar")
class Ori(IType):
    """rd = rs1 | imm."""


@instruction("xori", "scalar")
class Xori(IType):
    """rd = rs1 ^ imm."""


@instruction("slli", "scalar")
class Slli(IType):
    """rd = rs1 << imm."""


@instruction("srli", "scalar")
class Srli(IType):
    """rd = rs1 >> imm, logical."""


@instruction("srai", "scalar")
class Srai(IType):
    """rd = rs1 >> imm, arithmetic."""


@instruction("slti", "scalar")
class Slti(IType):
    """rd = 1 if rs1 < imm (signed) else 0."""


@instruction("sltiu", "scalar")
class Sltiu(IType):
    """rd = 1 if rs1 < imm (unsigned) else 0."""


@instruction("li", "scalar")
class Li(Instr):
    """rd = imm (pseudo-instruction: any 64-bit constant)."""
    rd: XReg
    imm: Imm


@instruction("mv", "scalar")
class Mv(Instr):
    """rd = rs1 (pseudo-instruction)."""
    rd: XReg
    rs1: XReg


@family
class Ext(Instr):
    rd: XReg
    rs1: XReg


@instruction("sext.b", "scalar")
class SextB(Ext):
    """rd = the low 8 bits of rs1, sign-extended (Zbb): keeps an i8 value canonical."""


@instruction("sext.h", "scalar")
class SextH(Ext):
    """rd = the low 16 bits of rs1, sign-extended (Zbb)."""


@instruction("sext.w", "scalar")
class SextW(Ext):
    """rd = the low 32 bits of rs1, sign-extended (addiw rd, rs1, 0): wraps i32 arithmetic."""


@instruction("zext.b", "scalar")
class ZextB(Ext):
    """rd = the low 8 bits of rs1, zero-extended."""


@instruction("zext.h", "scalar")
class ZextH(Ext):
    """rd = the low 16 bits of rs1, zero-extended (Zbb)."""


@instruction("zext.w", "scalar")
class ZextW(Ext):
    """rd = the low 32 bits of rs1, zero-extended (Zba add.uw): wraps u32 arithmetic."""


# ---- control flow -------------------------------------------------------------------------------

@family
class Branch(Instr):
    rs1: XReg
    rs2: XReg
    target: Label


@instruction("beq", "scalar")
class Beq(Branch):
    """Jump to target if rs1 == rs2."""


@instruction("bne", "scalar")
class Bne(Branch):
    """Jump to target if rs1 != rs2."""


@instruction("blt", "scalar")
class Blt(Branch):
    """Jump to target if rs1 < rs2 (signed)."""


@instruction("bge", "scalar")
class Bge(Branch):
    """Jump to target if rs1 >= rs2 (signed)."""


@instruction("bltu", "scalar")
class Bltu(Branch):
    """Jump to target if rs1 < rs2 (unsigned)."""


@instruction("bgeu", "scalar")
class Bgeu(Branch):
    """Jump to target if rs1 >= rs2 (unsigned)."""


@instruction("j", "scalar")
class J(Instr):
    """Jump to target (pseudo for jal x0)."""
    target: Label


@instruction("jal", "scalar")
class Jal(Instr):
    """rd = index of the next instruction; jump to target."""
    rd: XReg
    target: Label


@instruction("jalr", "scalar")
class Jalr(Instr):
    """rd = index of the next instruction; jump to instruction index rs1 + imm."""
    rd: XReg
    rs1: XReg
    imm: Imm = 0


@instruction("halt", "scalar")
class Halt(Instr):
    """End this program instance. The core waits for its commands to drain, then takes the next
    program id mapped to its PE."""


@instruction("nop", "scalar")
class Nop(Instr):
    """Do nothing for one issue slot."""


# ---- loads and stores ---------------------------------------------------------------------------

@family
class Load(Instr):
    rd: XReg
    rs1: XReg
    imm: Imm


@family
class Store(Instr):
    rs2: XReg
    rs1: XReg
    imm: Imm


_L = "{rd}, {imm}({rs1})"
_S = "{rs2}, {imm}({rs1})"


@instruction("lb", "scalar", asm=_L)
class Lb(Load):
    """rd = sign-extended byte at address rs1 + imm."""


@instruction("lbu", "scalar", asm=_L)
class Lbu(Load):
    """rd = zero-extended byte at address rs1 + imm."""


@instruction("lh", "scalar", asm=_L)
class Lh(Load):
    """rd = sign-extended 16-bit value at rs1 + imm (little endian)."""


@instruction("lhu", "scalar", asm=_L)
class Lhu(Load):
    """rd = zero-extended 16-bit value at rs1 + imm."""


@instruction("lw", "scalar", asm=_L)
class Lw(Load):
    """rd = sign-extended 32-bit value at rs1 + imm."""


@instruction("lwu", "scalar", asm=_L)
class Lwu(Load):
    """rd = zero-extended 32-bit value at rs1 + imm."""


@instruction("ld", "scalar", asm=_L)
class Ld(Load):
    """rd = 64-bit value at rs1 + imm."""


@instruction("sb", "scalar", asm=_S)
class Sb(Store):
    """Byte at rs1 + imm = low 8 bits of rs2."""


@instruction("sh", "scalar", asm=_S)
class Sh(Store):
    """16-bit value at rs1 + imm = low 16 bits of rs2."""


@instruction("sw", "scalar", asm=_S)
class Sw(Store):
    """32-bit value at rs1 + imm = low 32 bits of rs2."""


@instruction("sd", "scalar", asm=_S)
class Sd(Store):
    """64-bit value at rs1 + imm = rs2."""


# ---- floats (RV F and D): f registers hold f64; the .s forms round their results to f32 ---------

@family
class FRType(Instr):
    fd: FReg
    fs1: FReg
    fs2: FReg


@instruction("flw", "scalar", asm="{fd}, {imm}({rs1})")
class Flw(Instr):
    """fd = the f32 at address rs1 + imm."""
    fd: FReg
    rs1: XReg
    imm: Imm


@instruction("fsw", "scalar", asm="{fs2}, {imm}({rs1})")
class Fsw(Instr):
    """The f32 at address rs1 + imm = fs2."""
    fs2: FReg
    rs1: XReg
    imm: Imm


@instruction("fli", "scalar")
class Fli(Instr):
    """fd = imm rounded to f32 (pseudo-instruction)."""
    fd: FReg
    imm: FImm


@instruction("fadd.s", "scalar")
class FaddS(FRType):
    """fd = fs1 + fs2 in f32."""


@instruction("fsub.s", "scalar")
class FsubS(FRType):
    """fd = fs1 - fs2 in f32."""


@instruction("fmul.s", "scalar")
class FmulS(FRType):
    """fd = fs1 * fs2 in f32."""


@instruction("fdiv.s", "scalar")
class FdivS(FRType):
    """fd = fs1 / fs2 in f32 (IEEE: x/0 is inf or nan)."""


@instruction("fmin.s", "scalar")
class FminS(FRType):
    """fd = min(fs1, fs2) in f32 (a nan operand yields the other)."""


@instruction("fmax.s", "scalar")
class FmaxS(FRType):
    """fd = max(fs1, fs2) in f32 (a nan operand yields the other)."""


@instruction("fsqrt.s", "scalar")
class FsqrtS(Instr):
    """fd = sqrt(fs1) in f32."""
    fd: FReg
    fs1: FReg


@instruction("fneg.s", "scalar")
class FnegS(Instr):
    """fd = fs1 with its sign bit flipped (pseudo for fsgnjn.s fd, fs1, fs1): -0.0 for 0.0, unlike 0 - fs1."""
    fd: FReg
    fs1: FReg


@instruction("fmv.s", "scalar")
class FmvS(Instr):
    """fd = fs1."""
    fd: FReg
    fs1: FReg


@instruction("fcvt.s.l", "scalar")
class FcvtSL(Instr):
    """fd = the signed 64-bit integer rs1 converted to f32 (round to nearest even)."""
    fd: FReg
    rs1: XReg


@instruction("fcvt.s.lu", "scalar")
class FcvtSLU(Instr):
    """fd = the unsigned 64-bit integer rs1 converted to f32 (round to nearest even)."""
    fd: FReg
    rs1: XReg


@instruction("fcvt.lu.s", "scalar")
class FcvtLUS(Instr):
    """rd = fs1 converted to an unsigned 64-bit integer, truncating toward zero (negative values give 0,
    nan gives 2^64 - 1, as RISC-V saturates)."""
    rd: XReg
    fs1: FReg


@instruction("fcvt.l.s", "scalar")
class FcvtLS(Instr):
    """rd = fs1 converted to a signed 64-bit integer, truncating toward zero (nan gives 0)."""
    rd: XReg
    fs1: FReg


@instruction("fmv.x.w", "scalar")
class FmvXW(Instr):
    """rd = the 32 bits of fs1, sign-extended (a bit cast)."""
    rd: XReg
    fs1: FReg


@instruction("fmv.w.x", "scalar")
class FmvWX(Instr):
    """fd = the low 32 bits of rs1 read as an f32 (a bit cast)."""
    fd: FReg
    rs1: XReg


@instruction("fmv.x.d", "scalar")
class FmvXD(Instr):
    """rd = the 64 bits of fs1 (an f64; a bit cast)."""
    rd: XReg
    fs1: FReg


@instruction("fmv.d.x", "scalar")
class FmvDX(Instr):
    """fd = the 64 bits of rs1 read as an f64 (a bit cast)."""
    fd: FReg
    rs1: XReg


@family
class FCmp(Instr):
    rd: XReg
    fs1: FReg
    fs2: FReg


@instruction("feq.s", "scalar")
class FeqS(FCmp):
    """rd = 1 if fs1 == fs2 else 0 (nan compares false)."""


@instruction("flt.s", "scalar")
class FltS(FCmp):
    """rd = 1 if fs1 < fs2 else 0."""


@instruction("fle.s", "scalar")
class FleS(FCmp):
    """rd = 1 if fs1 <= fs2 else 0."""


# ---- double precision (RV D) ---------------------------------------------------------------------

@instruction("fli.d", "scalar")
class FliD(Instr):
    """fd = imm as an f64 (pseudo-instruction)."""
    fd: FReg
    imm: FImm


@instruction("fld", "scalar", asm="{fd}, {imm}({rs1})")
class Fld(Instr):
    """fd = the f64 at address rs1 + imm."""
    fd: FReg
    rs1: XReg
    imm: Imm


@instruction("fsd", "scalar", asm="{fs2}, {imm}({rs1})")
class Fsd(Instr):
    """The f64 at address rs1 + imm = fs2."""
    fs2: FReg
    rs1: XReg
    imm: Imm


@instruction("fadd.d", "scalar")
class FaddD(FRType):
    """fd = fs1 + fs2 in f64."""


@instruction("fsub.d", "scalar")
class FsubD(FRType):
    """fd = fs1 - fs2 in f64."""


@instruction("fmul.d", "scalar")
class FmulD(FRType):
    """fd = fs1 * fs2 in f64."""


@instruction("fdiv.d", "scalar")
class FdivD(FRType):
    """fd = fs1 / fs2 in f64 (IEEE: x/0 is inf or nan)."""


@instruction("fmin.d", "scalar")
class FminD(FRType):
    """fd = min(fs1, fs2) in f64 (a nan operand yields the other)."""


@instruction("fmax.d", "scalar")
class FmaxD(FRType):
    """fd = max(fs1, fs2) in f64 (a nan operand yields the other)."""


@instruction("fneg.d", "scalar")
class FnegD(Instr):
    """fd = fs1 with its sign bit flipped, in f64 (pseudo for fsgnjn.d fd, fs1, fs1)."""
    fd: FReg
    fs1: FReg


@instruction("fsqrt.d", "scalar")
class FsqrtD(Instr):
    """fd = sqrt(fs1) in f64."""
    fd: FReg
    fs1: FReg


@instruction("fcvt.d.l", "scalar")
class FcvtDL(Instr):
    """fd = the signed 64-bit integer rs1 converted to f64 (round to nearest even)."""
    fd: FReg
    rs1: XReg


@instruction("fcvt.d.lu", "scalar")
class FcvtDLU(Instr):
    """fd = the unsigned 64-bit integer rs1 converted to f64 (round to nearest even)."""
    fd: FReg
    rs1: XReg


@instruction("fcvt.lu.d", "scalar")
class FcvtLUD(Instr):
    """rd = fs1 converted to an unsigned 64-bit integer, truncating toward zero (negative values give 0,
    nan gives 2^64 - 1)."""
    rd: XReg
    fs1: FReg


@instruction("fcvt.l.d", "scalar")
class FcvtLD(Instr):
    """rd = fs1 converted to a signed 64-bit integer, truncating toward zero (nan gives 0)."""
    rd: XReg
    fs1: FReg


@instruction("fcvt.s.d", "scalar")
class FcvtSD(Instr):
    """fd = fs1 rounded to f32."""
    fd: FReg
    fs1: FReg


@instruction("fcvt.d.s", "scalar")
class FcvtDS(Instr):
    """fd = fs1 (an f32, exactly representable in f64)."""
    fd: FReg
    fs1: FReg


@instruction("feq.d", "scalar")
class FeqD(FCmp):
    """rd = 1 if fs1 == fs2 else 0 (f64; nan compares false)."""


@instruction("flt.d", "scalar")
class FltD(FCmp):
    """rd = 1 if fs1 < fs2 else 0 (f64)."""


@instruction("fle.d", "scalar")
class FleD(FCmp):
    """rd = 1 if fs1 <= fs2 else 0 (f64)."""
