"""The storage-only fp8 formats: Triton's `float8e4b15` and AMD's "fnuz" `float8e4b8` / `float8e5b16`.

Kernels load, store and move them and convert them with `.to()`; nothing computes on them directly
(Triton's GPUs keep e4b15 as bytes too, and the fnuz formats are native only on AMD's gfx942): every
conversion is written here with integer, f16 and f32 operations and the OCP fp8 conversions the
hardware has, so both executors run the same operations and agree bit for bit.

- fp8e4b15 (e4m3, bias 15): Triton's own format, whose conversions are Triton's (its CUDA inline
  assembly, `language/extra/cuda/utils.py`): every value widens to f16 exactly (sign to bit 15,
  exponent and mantissa to bits 13..7: no inf, no NaN, 0x7f is 1.875); a float narrows through f16
  (rounded toward zero from f32), its magnitude capped at 1.75 (NaN and inf too), half an e4b15 ulp
  added and the bits shifted down: ties round away from zero.
- fp8e4b8 / fp8e5b16 (e4m3 / e5m2 with bias 8 / 16): no inf, one NaN (0x80), no -0, conversions
  rounded to nearest even with overflow to NaN, as ml_dtypes' float8_e4m3fnuz / float8_e5m2fnuz.
  The same bits read as the OCP format (e4m3fn, e5m2, one less bias) are twice the value, so a
  magnitude converts as OCP(2|x|), or in the top binade (where the OCP format keeps inf or NaN) as
  OCP(|x| / 2) two binades up; the OCP conversions round to nearest even once, and scaling by 2 is exact.
Sources other than f16/f32 go through f32 first (an f64 is rounded twice, an int once more).
"""
from __future__ import annotations

from ..ir import types as T

FORMATS = T.STORAGE_FP8
_OCP = {T.f8e4m3fnuz: (T.f8e4m3, 8, 128.0), T.f8e5m2fnuz: (T.f8e5m2, 4, 32768.0)}  # format, codes per binade,
#                                                                                     its top binade's start
NAN = 0x80        # the fnuz formats' NaN (no -0)
E4B15_MAX_F16 = 0x3F00   # 1.75 in f16: Triton caps magnitudes there (0x7f, 1.875, is never produced)


def _bits(s, x, t=T.u8):
    return s.bitcast(x, t)


def _ocp_to_f32(s, code, fmt):
    """The f32 values of uint8 codes read as the OCP fp8 format `fmt` (exact)."""
    return s.cast(s.bitcast(code, fmt), T.f32)


def decode(s, x, dst):
    """`x` (a storage fp8 tensor) as `dst`: widened exactly to f16 (e4b15) or f32 (fnuz), then cast."""
    t = x.type.scalar
    b = _bits(s, x)
    if t == T.f8e4b15:
        w = s.cast(b, T.u16)
        h = s.or_(s.shl(s.and_(w, 0x80), 8), s.shl(s.and_(w, 0x7F), 7))
        v = s.bitcast(h, T.f16)
    else:
        fmt, per_binade, _ = _OCP[t]
        mag = s.and_(b, 0x7F)
        top = 0x80 - per_binade      # the first code of the top binade, where the OCP format has inf / NaN
        low = s.mul(_ocp_to_f32(s, mag, fmt), 0.5)
        high = _ocp_to_f32(s, s.sub(s.maximum(mag, top), per_binade), fmt)   # one binade down: the fnuz value
        v = s.where(s.greater_equal(mag, top), high, low)
        v = s.where(s.not_equal(s.and_(b, 0x80), 0), s.minus(v), v)
        v = s.where(s.equal(b, NAN), float("nan"), v)
    return s.cast(v, dst) if dst != v.type.scalar else v


def encode(s, x, dst, rounding=None):
    """`x` (any int or float tensor) in the storage fp8 format `dst`."""
    if rounding not in (None, "rtne"):
        raise ValueError(f"fp_downcast_rounding={rounding!r}: {dst} conversions round one way only (rtne)")
    src = x.type.scalar
    if src in FORMATS or src.is_fp8():
        x, src = (decode(s, x, T.f32) if src in FORMATS else s.cast(x, T.f32)), T.f32
    if dst == T.f8e4b15:
        if src != T.f16:
            x = s.cast(s.cast(x, T.f32), T.f16, fp_downcast_rounding="rtz")
        w = _bits(s, x, T.u16)
        m = s.minimum(s.and_(w, 0x7FFF), E4B15_MAX_F16)
        code = s.or_(s.shr(s.add(m, 0x40), 7), s.and_(s.shr(w, 8), 0x80))
    else:
        fmt, per_binade, top = _OCP[dst]
        v = s.cast(x, T.f32) if src != T.f32 else x
        a = s.abs(v)
        # (unsaturated: a value rounding past the OCP format's largest finite one takes the next code)
        small = s.cast(_bits(s, s.fp_to_fp_overflowing(s.mul(a, 2.0), fmt)), T.u16)
        big = s.add(s.cast(_bits(s, s.fp_to_fp_overflowing(s.mul(a, 0.5), fmt)), T.u16), 2 * per_binade)
        mag = s.where(s.less_than(a, top), small, big)      # NaN and inf: `big`, past 0x7f
        sign = s.where(s.less_than(v, 0.0), 0x80, 0)
        code = s.where(s.greater_equal(mag, 0x80), NAN, s.where(s.equal(mag, 0), 0, s.or_(mag, sign)))
    return s.bitcast(s.cast(code, T.u8), dst)


def abs(s, x):   # noqa: A001  (tl.abs)
    """|x| by clearing the sign bit (Triton's for e4b15); the fnuz NaN stays NaN."""
    b = _bits(s, x)
    m = s.and_(b, 0x7F)
    if x.type.scalar != T.f8e4b15:
        m = s.where(s.equal(b, NAN), b, m)
    return s.bitcast(m, x.type.scalar)
