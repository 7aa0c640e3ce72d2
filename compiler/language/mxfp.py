"""tl.dot_scaled: the product of two blocks in OCP microscaling (MX) formats, as a @jit composition.

The DPE has no MX formats, so each operand is decoded to fp32 first (what Triton does on hardware
without native MX support, and what its interpreter computes), then one tl.dot runs:

- e2m1 (fp4): two values per uint8 along K, the first in the low nibble; a nibble s|e e|m is
  (-1)^s * (e == 0 ? m / 2 : (1 + m / 2) * 2^(e - 1)), i.e. 0, 0.5, 1, 1.5, 2, 3, 4, 6;
- e4m3 / e5m2: the uint8 bits are fp8e4nv / fp8e5 values (NaN and inf kept);
- fp16 / bf16: the operand as it is;
- the scale (e8m0, uint8, one per 32 elements along K, shape [M, K/32] for lhs and [N, K/32] for
  rhs) is 2^(s - 127): its bits shifted into an fp32 exponent (0 gives 0.0, 255 gives inf, as in
  Triton's interpreter).
Element-wise decoding runs on the SE, the interleave and the transposes on the MLU.
"""
from __future__ import annotations

from ..runtime.jit import jit
from . import core as tl
from .builtins import arange, dot, interleave, reshape, static_assert, trans

FORMATS = ("e2m1", "e4m3", "e5m2", "bf16", "fp16")


@tl.constexpr_function
def _known_format(fmt):
    return fmt in FORMATS


@tl.constexpr_function
def _packed(fmt):
    return 2 if fmt == "e2m1" else 1


@jit
def _e2m1_codes(w):
    """fp32 values of e2m1 codes (uint32 in 0..15), in steps that each overwrite their input (no
    temporaries): multiplying by 2^22 + 2^28 copies the code to bits 22..25 and 28..31 without
    carries; the mask keeps its exponent and mantissa at f32's bits 22..24 and its sign at bit 31,
    which read as the value times 2^-126 (codes with e == 0 as f32 subnormals); 2^126 rescales exactly."""
    bits = (w * ((1 << 22) + (1 << 28))) & 0x81C00000
    return bits.to(tl.float32, bitcast=True) * 8.507059173023462e37


@jit
def _e2m1_along_last(x):
    """[R, C/2] uint8 -> [R, C] fp32: each byte gives two values along the last axis, low nibble first.
    Each byte is repeated, then the odd columns shift its high nibble down: one uint32 tile and the
    decoded values in place of it."""
    both = interleave(x, x).to(tl.uint32)
    shift = (arange(0, 2 * x.shape[1]) & 1) * 4
    return _e2m1_codes((both >> shift[None, :]) & 0xF)


@jit
def _decode(x, fmt: tl.constexpr, is_rhs: tl.constexpr):
    """The operand's values in fp32, K unpacked (lhs [M, K], rhs [K, N])."""
    if fmt == "e2m1":                   # rhs: see _operand
        v = _e2m1_along_last(x.to(tl.uint8, bitcast=True))
    elif fmt == "e4m3":
        v = x.to(tl.float8e4nv, bitcast=True).to(tl.float32)
    elif fmt == "e5m2":
        v = x.to(tl.float8e5, bitcast=True).to(tl.float32)
    else:
        v = x.to(tl.float32)
    return v


@jit
def _scaled(v, scale, is_rhs: tl.constexpr):
    """v times 2^(scale - 127), one scale per 32 elements along K. The scale is an e8m0 byte, unsigned
    whatever the integer type holding it (an int8 0x80 means 2.0)."""
    if scale.dtype.primitive_bitwidth == 8:
        scale = scale.to(tl.uint8, bitcast=True)
    s = (scale.to(tl.uint32) << 23).to(tl.float32, bitcast=True)
    groups: tl.constexpr = scale.shape[1]
    k: tl.constexpr = v.shape[0] if is_rhs else v.shape[1]
    static_assert(k == groups * 32, "tl.dot_scaled takes one e8m0 scale per 32 elements along K (the mx "
                                    "formats); scales of other group sizes (nvfp4's 16) are not supported")
    if is_rhs:
        n: tl.constexpr = v.shape[1]
        out = reshape(reshape(v, (groups, 32, n)) * reshape(trans(s), (groups, 1, n)), (groups * 32, n))
    else:
        m: tl.constexpr = v.shape[0]
        out = reshape(reshape(v, (m, groups, 32)) * reshape(s, (m, groups, 1)), (m, groups * 32))
    return out


@jit
def _operand(x, scale, fmt: tl.constexpr, is_rhs: tl.constexpr):
    if fmt == "e2m1" and is_rhs:        # packed along K = axis 0: decoded and scaled as [N, K], then
        v = _decode(trans(x), fmt, False)      # seen transposed by the dot (no second transpose)
        if scale is not None:
            v = _scaled(v, scale, False)
        v = trans(v)
    else:
        v = _decode(x, fmt, is_rhs)
        if scale is not None:
            v = _scaled(v, scale, is_rhs)
    return v


@jit
def dot_scaled(lhs, lhs_scale, lhs_format: tl.constexpr, rhs, rhs_scale, rhs_format: tl.constexpr, acc=None,
               fast_math: tl.constexpr = False, lhs_k_pack: tl.constexpr = True, rhs_k_pack: tl.constexpr = True,
               out_dtype: tl.constexpr = tl.float32):
    """lhs @ rhs for blocks in microscaling formats (`e2m1`, `e4m3`, `e5m2`, `bf16`, `fp16`), each
    with an optional e8m0 scale per 32 elements along K (None: unscaled), plus `acc`; fp32 result."""
    static_assert(_known_format(lhs_format), "dot_scaled: lhs_format must be one of e2m1, e4m3, e5m2, bf16, fp16")
    static_assert(_known_format(rhs_format), "dot_scaled: rhs_format must be one of e2m1, e4m3, e5m2, bf16, fp16")
    static_assert(len(lhs.shape) == 2 and len(rhs.shape) == 2, "dot_scaled: only 2-D operands are supported here")
    static_assert(lhs_k_pack and rhs_k_pack, "dot_scaled: fp4 packed along M or N is not supported here")
    static_assert(out_dtype == tl.float32, "dot_scaled: only out_dtype=tl.float32 is supported")
    static_assert(lhs.shape[1] * _packed(lhs_format) == rhs.shape[0] * _packed(rhs_format),
                  "dot_scaled: lhs and rhs must pack the same number of elements along K")
    a = _operand(lhs, lhs_scale, lhs_format, False)
    b = _operand(rhs, rhs_scale, rhs_format, True)
    if acc is None:
        out = dot(a, b, out_dtype=tl.float32)
    else:
        out = dot(a, b, acc, out_dtype=tl.float32)
    return out
