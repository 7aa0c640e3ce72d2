"""The libdevice functions MTIA has no instruction for, written as @jit functions over tl primitives
(as `tl.sort` is in `standard.py`). They add no IR ops, so every backend that lowers the primitives
runs them, and the interpreter checks them. `libdevice.py` picks the dtypes; here every argument
already has one float type (f32 or f64) and one shape.

Each follows a classic accurate formulation rather than the textbook definition, so that it stays
within a few ulp of the correctly rounded result where the naive one cancels or overflows:
- log1p / expm1: Kahan's tricks, log(u) * x / (u - 1) with u = 1 + x, and (u - 1) * x / log(u) with
  u = e^x: the rounding of u cancels between numerator and denominator;
- exp10: e^(x*ln10) with the rounding errors of x*ln10 (recovered exactly by Dekker's product, which
  needs no fma) and of the constant itself applied as a first-order correction: e^(p + e) = e^p (1 + e);
- sinh / cosh: through expm1 near 0, and as (e^(|x|/2) / 2) * e^(|x|/2) for large |x|, which stays
  finite up to where the result overflows;
- asin / acos: atan2 of sqrt((1 - x)(1 + x)), which is accurate near |x| = 1;
- asinh / acosh / atanh: log1p forms near 0 (or 1), log(|x|) + ln2 where x*x would overflow;
- erfc: 1 - erf(x) below 0.5 (no cancellation there), above it the Chebyshev fit of Numerical
  Recipes (relative error < 1.2e-7, so f64 erfc is only that accurate for x >= 0.5), with e^(-x*x)
  taken on the exact x*x (its rounding error recovered by Dekker's product) so large x keeps its digits;
- cbrt: 2^(log2|x| / 3) refined by one Newton step;
- hypot: the larger magnitude times sqrt(1 + r*r), r the ratio (no overflow or underflow of the
  squares); inf wins over NaN, as in C.
"""
from __future__ import annotations

import numpy as np

from ...ir.ops import Op
from ...runtime.jit import jit
from .. import core as tl
from ..builtins import PropagateNan, maximum, minimum, static_range, where
from ..core import builtin
from ..math import abs, ceil, cos, erf, exp, exp2, floor, log, log2, sin, sqrt, umulhi
from ..semantic import current

_INF = float("inf")
_NAN = float("nan")
_LN2 = 0.6931471805599453
_INV_LN10 = 0.4342944819032518
# erfc(z) ~ t * exp(-z*z + P(t)), t = 1 / (1 + z/2), for z >= 0 (Numerical Recipes, 2nd ed., 6.2)
_ERFC_COEFFS = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398,
                1.48851587, -0.82215223, 0.17087277)


@builtin
def atan2(y, x):
    """The angle of the point (x, y) (the SE's atan2 instruction)."""
    return current().math_binary(Op.ATAN2, y, x)


@tl.constexpr_function
def _bits_of(dtype):
    """The signed integer type holding a float's bits."""
    return tl.int64 if dtype.primitive_bitwidth == 64 else tl.int32


@tl.constexpr_function
def _ln10_hi(dtype):
    """ln 10 rounded to `dtype`."""
    return 2.302585092994046 if dtype.primitive_bitwidth == 64 else 2.3025851249694824


@tl.constexpr_function
def _ln10_lo(dtype):
    """ln 10 minus _ln10_hi(dtype) (from a 50-digit ln 10)."""
    return -2.1707562233822494e-16 if dtype.primitive_bitwidth == 64 else -3.197543673785701e-08


def _np_float(dtype):
    return np.float64 if dtype.primitive_bitwidth == 64 else np.float32


@tl.constexpr_function
def _splitter(dtype):
    """Veltkamp's constant: x * (2^s + 1) splits x into two halves of its significand."""
    return 2.0 ** 27 + 1.0 if dtype.primitive_bitwidth == 64 else 2.0 ** 12 + 1.0


@tl.constexpr_function
def _high_half(v, dtype):
    """The leading half of the significand of constant v (rounded to dtype), as _halves splits x."""
    f = _np_float(dtype)
    c = f(v) * f(_splitter(dtype))
    return float(c - (c - f(v)))


@tl.constexpr_function
def _low_half(v, dtype):
    f = _np_float(dtype)
    return float(f(v) - f(_high_half(v, dtype)))


@tl.constexpr_function
def _big(dtype):
    """Above this, x*x + 1 rounds to x*x (and soon overflows): asinh/acosh switch to log(2x)."""
    return 2.0 ** 28 if dtype.primitive_bitwidth == 64 else 2.0 ** 13


@tl.constexpr_function
def _erfc_coeff(i):
    return _ERFC_COEFFS[i]


@jit
def _halves(x):
    """x = hi + lo exactly, each with half of x's significand (Veltkamp), so that products of halves
    are exact and the rounding error of a product can be computed without an fma (Dekker)."""
    c = x * _splitter(x.dtype)
    hi = c - (c - x)
    return hi, x - hi


# --- signs, rounding, classification --------------------------------------------------------------

@jit
def signbit(x):
    """1 (i32) where the sign bit of x is set (-0.0 and negative NaNs included), else 0."""
    return (x.to(_bits_of(x.dtype), bitcast=True) < 0).to(tl.int32)


@jit
def copysign(x, y):
    """|x| with the sign bit of y."""
    ax = abs(x)
    return where(y.to(_bits_of(y.dtype), bitcast=True) < 0, -ax, ax)


@jit
def isfinite(x):
    """1 (i32) where x is neither infinite nor NaN."""
    return (abs(x) < _INF).to(tl.int32)


@jit
def trunc(x):
    """x rounded toward zero."""
    return where(x < 0.0, ceil(x), floor(x))


@jit
def round(x):
    """x rounded to the nearest integer, halfway cases away from zero (C round)."""
    t = trunc(x)
    return where(abs(x - t) >= 0.5, t + where(x < 0.0, -1.0, 1.0), t)   # x - t is exact


@jit
def fdim(x, y):
    """x - y if x > y, else +0 (NaN if either is NaN)."""
    return where(x <= y, 0.0, x - y)


@jit
def saturate(x):
    """x clamped to [0, 1]; NaN gives 0."""
    return where(x > 0.0, minimum(x, 1.0), 0.0)


# --- exponentials and logarithms -----------------------------------------------------------------

@jit
def log1p(x):
    """log(1 + x), accurate for small x."""
    u = 1.0 + x
    r = log(u) * (x / (u - 1.0))
    r = where(u == 1.0, x, r)
    return where(u == _INF, u, r)


@jit
def expm1(x):
    """e^x - 1, accurate for small x."""
    u = exp(x)
    um1 = u - 1.0
    r = um1 * (x / log(u))
    r = where(u == 1.0, x, r)
    r = where(um1 == -1.0, -1.0, r)
    return where(u == _INF, u, r)


@jit
def exp10(x):
    """10^x."""
    hi: tl.constexpr = _ln10_hi(x.dtype)
    p = x * hi
    xh, xl = _halves(x)
    # x*ln10 = p + err to first order: Dekker's exact error of x*hi, plus the constant's own error
    err = ((xh * _high_half(hi, x.dtype) - p) + xh * _low_half(hi, x.dtype) + xl * _high_half(hi, x.dtype)) \
        + xl * _low_half(hi, x.dtype) + x * _ln10_lo(x.dtype)
    ep = exp(p)
    return where(abs(err) < 1.0, ep + ep * err, ep)    # |x| too large to split: e^p is 0 or inf


@jit
def log10(x):
    """The base-10 logarithm."""
    return log(x) * _INV_LN10


# --- trigonometric and hyperbolic ----------------------------------------------------------------

@jit
def tan(x):
    return sin(x) / cos(x)


@jit
def asin(x):
    return atan2(x, sqrt((1.0 - x) * (1.0 + x)))


@jit
def acos(x):
    return atan2(sqrt((1.0 - x) * (1.0 + x)), x)


@jit
def sinh(x):
    a = abs(x)
    e = expm1(a)
    near = 0.5 * (e + e / (e + 1.0))
    h = exp(0.5 * a)
    far = (0.5 * h) * h                                # e^-a is below the last bit once a >= 20
    return copysign(where(a < 20.0, near, far), x)


@jit
def cosh(x):
    h = exp(0.5 * abs(x))
    return (0.5 * h) * h + 0.5 / (h * h)


@jit
def asinh(x):
    a = abs(x)
    s = a * a
    near = log1p(a + s / (1.0 + sqrt(1.0 + s)))
    far = log(a) + _LN2
    return copysign(where(a > _big(x.dtype), far, near), x)


@jit
def acosh(x):
    t = x - 1.0                                        # exact near 1, where it matters
    near = log1p(t + sqrt(2.0 * t + t * t))
    far = log(x) + _LN2
    r = where(x > _big(x.dtype), far, near)
    return where(x >= 1.0, r, _NAN)


@jit
def atanh(x):
    a = abs(x)
    return copysign(0.5 * log1p(2.0 * a / (1.0 - a)), x)


# --- special functions ---------------------------------------------------------------------------

@jit
def erfc(x):
    """1 - erf(x), accurate where it is tiny."""
    z = abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    p = _erfc_coeff(9) + 0.0 * t
    for i in static_range(9):                          # Horner, from the highest power down
        p = p * t + _erfc_coeff(8 - i)
    z2 = z * z
    zh, zl = _halves(z)
    z2_err = ((zh * zh - z2) + 2.0 * (zh * zl)) + zl * zl   # z*z = z2 + z2_err exactly (Dekker)
    tail = t * exp(-z2) * exp(p - z2_err)
    tail = where(z >= 27.0, 0.0, tail)                 # below the smallest f64; z too large to split
    return where(x < 0.5, 1.0 - erf(x), tail)


@jit
def cbrt(x):
    a = abs(x)
    y = exp2(log2(a) * (1.0 / 3.0))                  # within ~1e-5 relative for f32
    y = y + (a / (y * y) - y) * (1.0 / 3.0)            # one Newton step squares the error
    return copysign(where((a == 0.0) | (a == _INF), a, y), x)


@jit
def hypot(x, y):
    a = abs(x)
    b = abs(y)
    m = maximum(a, b, propagate_nan=PropagateNan.ALL)
    r = minimum(a, b, propagate_nan=PropagateNan.ALL) / m
    h = where(m == 0.0, 0.0, m * sqrt(1.0 + r * r))
    return where((a == _INF) | (b == _INF), _INF, h)


# --- integers ------------------------------------------------------------------------------------

@jit
def mulhi_signed(x, y):
    """The high half of the signed product x * y: the unsigned one corrected for each negative factor
    (a signed value is its unsigned reading minus 2^N when negative)."""
    ut: tl.constexpr = tl.uint64 if x.dtype.primitive_bitwidth == 64 else tl.uint32
    ux = x.to(ut, bitcast=True)
    uy = y.to(ut, bitcast=True)
    hi = umulhi(ux, uy) - where(x < 0, uy, 0) - where(y < 0, ux, 0)
    return hi.to(x.dtype, bitcast=True)


@jit
def popc(x):
    """The number of set bits of a 32- or 64-bit integer, as int32 (CUDA's __nv_popc / __nv_popcll):
    the classic SWAR sum, pairs then nibbles then bytes, read off the top byte of a multiply."""
    if x.dtype.primitive_bitwidth == 64:
        u = x.to(tl.uint64, bitcast=True)
        u = u - ((u >> 1) & 0x5555555555555555)
        u = (u & 0x3333333333333333) + ((u >> 2) & 0x3333333333333333)
        u = (u + (u >> 4)) & 0x0F0F0F0F0F0F0F0F
        return ((u * 0x0101010101010101) >> 56).to(tl.int32)
    else:
        u = x.to(tl.uint32, bitcast=True)
        u = u - ((u >> 1) & 0x55555555)
        u = (u & 0x33333333) + ((u >> 2) & 0x33333333)
        u = (u + (u >> 4)) & 0x0F0F0F0F
        return ((u * 0x01010101) >> 24).to(tl.int32)


@jit
def clz(x):
    """The number of leading zero bits of a 32- or 64-bit integer, as int32 (__nv_clz / __nv_clzll; 32 or
    64 for 0): every bit below the highest set one is set, and the zeros left are the width minus that count."""
    if x.dtype.primitive_bitwidth == 64:
        u = x.to(tl.uint64, bitcast=True)
        u = u | (u >> 1)
        u = u | (u >> 2)
        u = u | (u >> 4)
        u = u | (u >> 8)
        u = u | (u >> 16)
        u = u | (u >> 32)
        return 64 - popc(u)
    else:
        u = x.to(tl.uint32, bitcast=True)
        u = u | (u >> 1)
        u = u | (u >> 2)
        u = u | (u >> 4)
        u = u | (u >> 8)
        u = u | (u >> 16)
        return 32 - popc(u)
