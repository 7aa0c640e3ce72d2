"""Scalar RISC-V semantics, run by the control core on its registers.

Each function takes `(core, ins)`, updates `core.x` (Python ints kept in signed 64-bit range) or
`core.f` (Python floats rounded to f32), and returns the index of the next instruction when it
branches (None falls through). Loads and stores go through `core.load` / `core.store`, which check
the address and charge its latency.
"""
from __future__ import annotations

import math
import struct

import numpy as np

from isa import scalar as riscv

from . import semantics

M64 = (1 << 64) - 1


def wrap(v: int) -> int:
    """Two's-complement wrap into signed 64 bits."""
    v &= M64
    return v - (1 << 64) if v >> 63 else v


def u64(v: int) -> int:
    return v & M64


def f32(v: float) -> float:
    return float(np.float32(v))


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


# each scalar op's value from its operands (shared with the scalar block compiler, pe/scalar_blocks.py):
# register-register ops, register-immediate ops and the sign and zero extensions
REGISTER_OPS = {
    riscv.Add: lambda a, b: a + b, riscv.Sub: lambda a, b: a - b, riscv.Mul: lambda a, b: a * b,
    riscv.Mulh: lambda a, b: (a * b) >> 64, riscv.Mulhu: lambda a, b: (u64(a) * u64(b)) >> 64,
    riscv.Div: lambda a, b: -1 if b == 0 else _tdiv(a, b),
    riscv.Divu: lambda a, b: M64 if b == 0 else u64(a) // u64(b),
    riscv.Rem: lambda a, b: a if b == 0 else a - b * _tdiv(a, b),
    riscv.Remu: lambda a, b: a if b == 0 else u64(a) % u64(b),
    riscv.And: lambda a, b: a & b, riscv.Or: lambda a, b: a | b, riscv.Xor: lambda a, b: a ^ b,
    riscv.Sll: lambda a, b: a << (b & 63), riscv.Srl: lambda a, b: u64(a) >> (b & 63), riscv.Sra: lambda a, b: a >> (b & 63),
    riscv.Slt: lambda a, b: int(a < b), riscv.Sltu: lambda a, b: int(u64(a) < u64(b)),
    riscv.Min: min, riscv.Max: max,
}
IMMEDIATE_OPS = {
    riscv.Addi: lambda a, i: a + i, riscv.Andi: lambda a, i: a & i, riscv.Ori: lambda a, i: a | i,
    riscv.Xori: lambda a, i: a ^ i, riscv.Slli: lambda a, i: a << (i & 63), riscv.Srli: lambda a, i: u64(a) >> (i & 63),
    riscv.Srai: lambda a, i: a >> (i & 63), riscv.Slti: lambda a, i: int(a < i), riscv.Sltiu: lambda a, i: int(u64(a) < u64(i)),
}


@semantics(*REGISTER_OPS)
def rtype(core, ins):
    if ins.rd:
        x = core.x
        core.x[ins.rd] = wrap(REGISTER_OPS[type(ins)](x[ins.rs1], x[ins.rs2]))


@semantics(*IMMEDIATE_OPS)
def itype(core, ins):
    if ins.rd:
        core.x[ins.rd] = wrap(IMMEDIATE_OPS[type(ins)](core.x[ins.rs1], ins.imm))


@semantics(riscv.Li)
def li(core, ins):
    if ins.rd:
        core.x[ins.rd] = wrap(ins.imm)


@semantics(riscv.Mv)
def mv(core, ins):
    if ins.rd:
        core.x[ins.rd] = core.x[ins.rs1]


def _sext(bits):
    def f(v):
        v &= (1 << bits) - 1
        return v - (1 << bits) if v >> (bits - 1) else v
    return f


EXTENSIONS = {riscv.SextB: _sext(8), riscv.SextH: _sext(16), riscv.SextW: _sext(32),
              riscv.ZextB: lambda v: v & 0xFF, riscv.ZextH: lambda v: v & 0xFFFF, riscv.ZextW: lambda v: v & 0xFFFFFFFF}


@semantics(*EXTENSIONS)
def extend(core, ins):
    if ins.rd:
        core.x[ins.rd] = EXTENSIONS[type(ins)](core.x[ins.rs1])


_B = {
    riscv.Beq: lambda a, b: a == b, riscv.Bne: lambda a, b: a != b, riscv.Blt: lambda a, b: a < b,
    riscv.Bge: lambda a, b: a >= b, riscv.Bltu: lambda a, b: u64(a) < u64(b), riscv.Bgeu: lambda a, b: u64(a) >= u64(b),
}


@semantics(*_B)
def branch(core, ins):
    if _B[type(ins)](core.x[ins.rs1], core.x[ins.rs2]):
        return core.labels[ins.target]
    return None


@semantics(riscv.J)
def jump(core, ins):
    return core.labels[ins.target]


@semantics(riscv.Jal)
def jal(core, ins):
    if ins.rd:
        core.x[ins.rd] = core.pc + 1
    return core.labels[ins.target]


@semantics(riscv.Jalr)
def jalr(core, ins):
    target = core.x[ins.rs1] + ins.imm
    if ins.rd:
        core.x[ins.rd] = core.pc + 1
    return target


@semantics(riscv.Nop)
def nop(core, ins):
    return None


@semantics(riscv.Halt)
def halt(core, ins):
    return -1


_LOAD = {riscv.Lb: ("<b", 1), riscv.Lbu: ("<B", 1), riscv.Lh: ("<h", 2), riscv.Lhu: ("<H", 2), riscv.Lw: ("<i", 4),
         riscv.Lwu: ("<I", 4), riscv.Ld: ("<q", 8)}
_STORE = {riscv.Sb: ("<B", 1), riscv.Sh: ("<H", 2), riscv.Sw: ("<I", 4), riscv.Sd: ("<Q", 8)}


@semantics(*_LOAD)
def load(core, ins):
    fmt, n = _LOAD[type(ins)]
    raw = core.load(core.x[ins.rs1] + ins.imm, n, ins)
    if ins.rd:
        core.x[ins.rd] = struct.unpack(fmt, raw)[0]


@semantics(*_STORE)
def store(core, ins):
    fmt, n = _STORE[type(ins)]
    core.store(core.x[ins.rs1] + ins.imm, struct.pack(fmt, core.x[ins.rs2] & ((1 << (8 * n)) - 1)), ins)


@semantics(riscv.Flw)
def flw(core, ins):
    core.f[ins.fd] = struct.unpack("<f", core.load(core.x[ins.rs1] + ins.imm, 4, ins))[0]


@semantics(riscv.Fsw)
def fsw(core, ins):
    core.store(core.x[ins.rs1] + ins.imm, struct.pack("<f", core.f[ins.fs2]), ins)


@semantics(riscv.Fli)
def fli(core, ins):
    core.f[ins.fd] = f32(ins.imm)


def _fminmax(pick):
    """fmin.s / fmax.s: a NaN loses to a number, and -0.0 < +0.0 (Python's min and max return
    either zero when they compare equal; isa/float_minmax.py)."""
    def fn(a, b):
        if math.isnan(a):
            return b
        if math.isnan(b):
            return a
        if a == b:              # equal numbers are alike; of two zeros, max takes +0 and min -0
            negative_a = math.copysign(1.0, a) < 0
            return (b if negative_a else a) if pick is max else (a if negative_a else b)
        return pick(a, b)
    return fn


def _fdiv(a, b):
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


_F = {riscv.FaddS: lambda a, b: a + b, riscv.FsubS: lambda a, b: a - b, riscv.FmulS: lambda a, b: a * b,
      riscv.FdivS: _fdiv, riscv.FminS: _fminmax(min), riscv.FmaxS: _fminmax(max)}


@semantics(*_F)
def frtype(core, ins):
    try:
        core.f[ins.fd] = f32(_F[type(ins)](core.f[ins.fs1], core.f[ins.fs2]))
    except OverflowError:
        core.f[ins.fd] = math.inf


@semantics(riscv.FsqrtS)
def fsqrt(core, ins):
    a = core.f[ins.fs1]
    core.f[ins.fd] = f32(math.sqrt(a)) if a >= 0 else math.nan


@semantics(riscv.FnegS, riscv.FnegD)
def fneg(core, ins):
    core.f[ins.fd] = -core.f[ins.fs1]          # flips the sign bit: 0.0 -> -0.0, as Triton's arith.negf


@semantics(riscv.FmvS)
def fmv(core, ins):
    core.f[ins.fd] = core.f[ins.fs1]


@semantics(riscv.FcvtSL)
def fcvt_s_l(core, ins):
    core.f[ins.fd] = float(np.float32(np.int64(core.x[ins.rs1])))      # one rounding (not via f64)


@semantics(riscv.FcvtSLU)
def fcvt_s_lu(core, ins):
    core.f[ins.fd] = float(np.float32(np.uint64(u64(core.x[ins.rs1]))))


@semantics(riscv.FcvtDLU)
def fcvt_d_lu(core, ins):
    core.f[ins.fd] = float(u64(core.x[ins.rs1]))


@semantics(riscv.FcvtLUS, riscv.FcvtLUD)
def fcvt_lu(core, ins):
    a = core.f[ins.fs1]
    if ins.rd:
        core.x[ins.rd] = wrap(M64 if math.isnan(a) else min(int(max(min(a, 2.0**64), 0.0)), M64))   # 2^64 - 1: no float


def _saturated_i64(a: float) -> int:
    """a truncated toward zero into [-2^63, 2^63 - 1], nan 0 (2^63 - 1 is not a float: clamp as an int)."""
    return 0 if math.isnan(a) else min(int(max(min(a, 2.0**63), -2.0**63)), (1 << 63) - 1)


@semantics(riscv.FcvtLS)
def fcvt_l_s(core, ins):
    if ins.rd:
        core.x[ins.rd] = _saturated_i64(core.f[ins.fs1])


@semantics(riscv.FmvXW)
def fmv_x_w(core, ins):
    if ins.rd:
        core.x[ins.rd] = struct.unpack("<i", struct.pack("<f", core.f[ins.fs1]))[0]


@semantics(riscv.FmvWX)
def fmv_w_x(core, ins):
    core.f[ins.fd] = struct.unpack("<f", struct.pack("<I", core.x[ins.rs1] & 0xFFFFFFFF))[0]


@semantics(riscv.FmvXD)
def fmv_x_d(core, ins):
    if ins.rd:
        core.x[ins.rd] = struct.unpack("<q", struct.pack("<d", core.f[ins.fs1]))[0]


@semantics(riscv.FmvDX)
def fmv_d_x(core, ins):
    core.f[ins.fd] = struct.unpack("<d", struct.pack("<Q", core.x[ins.rs1] & 0xFFFFFFFFFFFFFFFF))[0]


_FC = {riscv.FeqS: lambda a, b: a == b, riscv.FltS: lambda a, b: a < b, riscv.FleS: lambda a, b: a <= b,
       riscv.FeqD: lambda a, b: a == b, riscv.FltD: lambda a, b: a < b, riscv.FleD: lambda a, b: a <= b}


@semantics(*_FC)
def fcmp(core, ins):
    if ins.rd:
        core.x[ins.rd] = int(_FC[type(ins)](core.f[ins.fs1], core.f[ins.fs2]))


_D = {riscv.FaddD: lambda a, b: a + b, riscv.FsubD: lambda a, b: a - b, riscv.FmulD: lambda a, b: a * b,
      riscv.FdivD: _fdiv, riscv.FminD: _fminmax(min), riscv.FmaxD: _fminmax(max)}


@semantics(*_D)
def drtype(core, ins):
    try:
        core.f[ins.fd] = float(_D[type(ins)](core.f[ins.fs1], core.f[ins.fs2]))
    except OverflowError:
        core.f[ins.fd] = math.inf


@semantics(riscv.FsqrtD)
def fsqrt_d(core, ins):
    a = core.f[ins.fs1]
    core.f[ins.fd] = math.sqrt(a) if a >= 0 else math.nan


@semantics(riscv.Fld)
def fld(core, ins):
    core.f[ins.fd] = struct.unpack("<d", core.load(core.x[ins.rs1] + ins.imm, 8, ins))[0]


@semantics(riscv.Fsd)
def fsd(core, ins):
    core.store(core.x[ins.rs1] + ins.imm, struct.pack("<d", core.f[ins.fs2]), ins)


@semantics(riscv.FcvtDL)
def fcvt_d_l(core, ins):
    core.f[ins.fd] = float(core.x[ins.rs1])


@semantics(riscv.FcvtLD)
def fcvt_l_d(core, ins):
    if ins.rd:
        core.x[ins.rd] = _saturated_i64(core.f[ins.fs1])


@semantics(riscv.FcvtSD)
def fcvt_s_d(core, ins):
    core.f[ins.fd] = f32(core.f[ins.fs1])


@semantics(riscv.FcvtDS)
def fcvt_d_s(core, ins):
    core.f[ins.fd] = core.f[ins.fs1]


@semantics(riscv.FliD)
def fli_d(core, ins):
    core.f[ins.fd] = float(ins.imm)
