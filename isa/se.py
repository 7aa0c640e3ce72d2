"""SIMD Engine: element-wise arithmetic, compares, conversions and lookup-table functions on tiles.

Every source is broadcast to the output's shape by numpy rules (shapes aligned on the right). A
source may be a scalar (f/x register or immediate) instead of a tile: the vector-scalar forms that
avoid materialising a broadcast. Float sources narrower than f32 are computed in f32 and rounded
once to the output dtype; integers compute in their own dtype and wrap. Throughput: the config's
`se.elems_per_cycle` output elements per cycle (32 on MTIA 2i, any dtype).
"""
from __future__ import annotations

from .fields import FOrImm, Src, TileKind, XList, XOrImm
from .instruction import Instr, family, instruction


@family
class SeUnary(Instr):
    out: TileKind
    a: Src


@family
class SeBinary(Instr):
    out: TileKind
    a: Src
    b: Src


@instruction("se.mov", "se")
class SeMov(SeUnary):
    """out = a converted to out's dtype (a copy, a broadcast or a cast: float to int truncates
    toward zero and saturates, NaN -> 0, as isa/float_to_int.py defines; int to float rounds to
    nearest even)."""


@instruction("se.bitcast", "se")
class SeBitcast(SeUnary):
    """out = the bits of a reinterpreted as out's dtype (same element size)."""


@instruction("se.fill", "se")
class SeFill(Instr):
    """out = value everywhere."""
    out: TileKind
    value: FOrImm


@instruction("se.iota", "se")
class SeIota(Instr):
    """out[i] = start + i for the row-major index i (tl.arange)."""
    out: TileKind
    start: XOrImm = 0


@instruction("se.neg", "se")
class SeNeg(SeUnary):
    """out = -a."""


@instruction("se.abs", "se")
class SeAbs(SeUnary):
    """out = |a|."""


@instruction("se.not", "se")
class SeNot(SeUnary):
    """out = ~a (bitwise; logical not on i1)."""


@instruction("se.exp", "se")
class SeExp(SeUnary):
    """out = e^a (lookup table with interpolation, f32 accurate)."""


@instruction("se.exp2", "se")
class SeExp2(SeUnary):
    """out = 2^a."""


@instruction("se.log", "se")
class SeLog(SeUnary):
    """out = ln(a) (nan for a < 0, -inf at 0)."""


@instruction("se.log2", "se")
class SeLog2(SeUnary):
    """out = log2(a)."""


@instruction("se.sqrt", "se")
class SeSqrt(SeUnary):
    """out = sqrt(a)."""


@instruction("se.rsqrt", "se")
class SeRsqrt(SeUnary):
    """out = 1 / sqrt(a)."""


@instruction("se.recip", "se")
class SeRecip(SeUnary):
    """out = 1 / a."""


@instruction("se.sigmoid", "se")
class SeSigmoid(SeUnary):
    """out = 1 / (1 + e^-a)."""


@instruction("se.tanh", "se")
class SeTanh(SeUnary):
    """out = tanh(a)."""


@instruction("se.erf", "se")
class SeErf(SeUnary):
    """out = erf(a)."""


@instruction("se.sin", "se")
class SeSin(SeUnary):
    """out = sin(a)."""


@instruction("se.cos", "se")
class SeCos(SeUnary):
    """out = cos(a)."""


@instruction("se.floor", "se")
class SeFloor(SeUnary):
    """out = floor(a)."""


@instruction("se.ceil", "se")
class SeCeil(SeUnary):
    """out = ceil(a)."""


@instruction("se.rint", "se")
class SeRint(SeUnary):
    """out = a rounded to the nearest integer, ties to even."""


@instruction("se.isnan", "se")
class SeIsnan(SeUnary):
    """out = a is nan (i1)."""


@instruction("se.isinf", "se")
class SeIsinf(SeUnary):
    """out = a is +inf or -inf (i1)."""


@instruction("se.add", "se")
class SeAdd(SeBinary):
    """out = a + b."""


@instruction("se.sub", "se")
class SeSub(SeBinary):
    """out = a - b."""


@instruction("se.mul", "se")
class SeMul(SeBinary):
    """out = a * b."""


@instruction("se.div", "se")
class SeDiv(SeBinary):
    """out = a / b: IEEE division for floats; for integers truncation toward zero (C), and x / 0 = 0
    (undefined in Triton; the sanitizer reports it)."""


@instruction("se.rem", "se")
class SeRem(SeBinary):
    """out = a % b with the sign of a (C fmod for floats, C remainder for integers); x % 0 = 0 for
    integers."""


@instruction("se.max", "se")
class SeMax(SeBinary):
    """out = max(a, b); a nan operand yields the other (IEEE maxNum)."""


@instruction("se.min", "se")
class SeMin(SeBinary):
    """out = min(a, b); a nan operand yields the other (IEEE minNum)."""


@instruction("se.maxnan", "se")
class SeMaxNan(SeBinary):
    """out = max(a, b), nan if either is nan (propagate_nan=ALL)."""


@instruction("se.minnan", "se")
class SeMinNan(SeBinary):
    """out = min(a, b), nan if either is nan (propagate_nan=ALL)."""


@instruction("se.pow", "se")
class SePow(SeBinary):
    """out = a ** b (floats)."""


@instruction("se.atan2", "se")
class SeAtan2(SeBinary):
    """out = atan2(a, b)."""


@instruction("se.and", "se")
class SeAnd(SeBinary):
    """out = a & b (integers and i1)."""


@instruction("se.or", "se")
class SeOr(SeBinary):
    """out = a | b."""


@instruction("se.xor", "se")
class SeXor(SeBinary):
    """out = a ^ b."""


@instruction("se.shl", "se")
class SeShl(SeBinary):
    """out = a << b (bits shifted out are lost; shifts >= the width give 0)."""


@instruction("se.shr", "se")
class SeShr(SeBinary):
    """out = a >> b: arithmetic for signed dtypes, logical for unsigned."""


@instruction("se.umulhi", "se")
class SeUmulhi(SeBinary):
    """out = the high half of the double-width product a * b (32-bit or 64-bit integers)."""


@instruction("se.eq", "se")
class SeEq(SeBinary):
    """out = a == b (i1)."""


@instruction("se.ne", "se")
class SeNe(SeBinary):
    """out = a != b (i1; true when either is nan)."""


@instruction("se.lt", "se")
class SeLt(SeBinary):
    """out = a < b (i1)."""


@instruction("se.le", "se")
class SeLe(SeBinary):
    """out = a <= b (i1)."""


@instruction("se.gt", "se")
class SeGt(SeBinary):
    """out = a > b (i1)."""


@instruction("se.ge", "se")
class SeGe(SeBinary):
    """out = a >= b (i1)."""


@instruction("se.select", "se")
class SeSelect(Instr):
    """out = a where cond else b (tl.where)."""
    out: TileKind
    cond: Src
    a: Src
    b: Src


@instruction("se.select_box", "se")
class SeSelectBox(Instr):
    """out[i] = a[i] where i_k < valid[k] along every dimension k, else b[i]: tl.where under a mask that
    keeps the first valid[k] indices of each dimension (`offs < n`), with no mask tile. A count below 0
    keeps nothing of its dimension, one past the dimension's size all of it."""
    out: TileKind
    a: Src
    b: Src
    valid: XList


@instruction("se.fma", "se")
class SeFma(Instr):
    """out = a * b + c, rounded once."""
    out: TileKind
    a: Src
    b: Src
    c: Src
