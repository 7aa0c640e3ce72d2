"""Counter-based random numbers (Philox 4x32-10), written as @jit functions like Triton's random.py.

Same streams as Triton: `randint(seed, offset)` is the first 32-bit word of Philox4x32 with
counter (offset low 32 bits, offset high 32 bits, 0, 0) and key (seed low 32 bits, seed high 32 bits), 10 rounds.
"""
from __future__ import annotations

from ..runtime.jit import jit
from . import core as tl
from .builtins import maximum, static_assert, static_range, where
from .math import cos, log, sin, sqrt, umulhi

N_ROUNDS_DEFAULT = 10

# Philox constants (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11).
PHILOX_KEY_A_32 = 0x9E3779B9        # golden ratio: added to key word 0 each round
PHILOX_KEY_B_32 = 0xBB67AE85        # sqrt(3) - 1: added to key word 1 each round
PHILOX_ROUND_A_32 = 0xD2511F53      # multiplier of counter word 0
PHILOX_ROUND_B_32 = 0xCD9E8D57      # multiplier of counter word 2
PHILOX_KEY_A_64 = 0x9E3779B97F4A7C15
PHILOX_KEY_B_64 = 0xBB67AE8584CAA73B
PHILOX_ROUND_A_64 = 0xD2E7470EE14C6C93
PHILOX_ROUND_B_64 = 0xCA5A826395121157


@jit
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """`n_rounds` Philox rounds on counter (c0..c3) with key (k0, k1); all uint32 (or all uint64)."""
    if c0.dtype == tl.uint32:
        KEY_A: tl.constexpr = PHILOX_KEY_A_32
        KEY_B: tl.constexpr = PHILOX_KEY_B_32
        MUL_A: tl.constexpr = PHILOX_ROUND_A_32
        MUL_B: tl.constexpr = PHILOX_ROUND_B_32
    else:
        static_assert(c0.dtype == tl.uint64, "philox_impl needs uint32 or uint64 counters")
        KEY_A: tl.constexpr = PHILOX_KEY_A_64
        KEY_B: tl.constexpr = PHILOX_KEY_B_64
        MUL_A: tl.constexpr = PHILOX_ROUND_A_64
        MUL_B: tl.constexpr = PHILOX_ROUND_B_64
    for _ in static_range(n_rounds):
        prev_c0 = c0
        prev_c2 = c2
        # high halves of the products mix into the other words, low halves become the new odd words
        c0 = umulhi(MUL_B, prev_c2) ^ c1 ^ k0
        c2 = umulhi(MUL_A, prev_c0) ^ c3 ^ k1
        c1 = MUL_B * prev_c2
        c3 = MUL_A * prev_c0
        k0 = k0 + KEY_A
        k1 = k1 + KEY_B
    return c0, c1, c2, c3


@jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    static_assert(_is_integer(seed), "the seed of a random function must be an integer")
    seed = _to_u64(seed)
    if tl.constexpr(_bits(c0) == 32):
        word: tl.constexpr = tl.uint32
        key_hi = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
        key_lo = (seed & 0xFFFFFFFF).to(tl.uint32)
    else:
        static_assert(_bits(c0) == 64, "philox counters must be 32 or 64 bits wide")
        word: tl.constexpr = tl.uint64
        key_hi = _to_u64(0)
        key_lo = seed
    c0 = c0.to(word, bitcast=True)
    c1 = c1.to(word, bitcast=True)
    c2 = c2.to(word, bitcast=True)
    c3 = c3.to(word, bitcast=True)
    return philox_impl(c0, c1, c2, c3, key_lo, key_hi, n_rounds)


@jit
def randint4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four blocks of random uint32 for the counters `offset` (a block of ints). Always Philox4x32, as
    Triton (since 3.4): a 64-bit offset is the counter's first two words, low then high."""
    offset_lo = offset.to(tl.uint32)
    zero = offset_lo * 0
    if tl.constexpr(_bits(offset) > 32):
        offset_hi = (offset >> 32).to(tl.uint32)
    else:
        offset_hi = zero
    return philox(seed, offset_lo, offset_hi, zero, zero, n_rounds)


@jit
def randint(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """One block of random uint32 (the first word of randint4x)."""
    r0, r1, r2, r3 = randint4x(seed, offset, n_rounds)
    return r0


@jit
def uint_to_uniform_float(x):
    """Map random 32/64-bit integers to floats uniform in [0, 1)."""
    if tl.constexpr(_bits(x) == 32):
        x = x.to(tl.int32, bitcast=True)
        scale = 4.6566127342e-10        # largest float with (2**31 - 1) * scale < 1
    else:
        x = x.to(tl.int64, bitcast=True)
        scale = 1.0842020432385337e-19
    x = where(x < 0, -x - 1, x)
    return x * scale


@jit
def rand(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """A block of float32 uniform in [0, 1)."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@jit
def rand4x(seed, offsets, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    i1, i2, i3, i4 = randint4x(seed, offsets, n_rounds)
    return uint_to_uniform_float(i1), uint_to_uniform_float(i2), uint_to_uniform_float(i3), \
        uint_to_uniform_float(i4)


@jit
def pair_uniform_to_normal(u1, u2):
    """Box-Muller: two uniform blocks to two standard normal blocks."""
    u1 = maximum(1.0e-7, u1)
    theta = 6.283185307179586 * u2
    radius = sqrt(-2.0 * log(u1))
    return radius * cos(theta), radius * sin(theta)


@jit
def randn(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """A block of float32 from N(0, 1)."""
    i1, i2, i3, i4 = randint4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))
    return n1


@jit
def randn4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4


@tl.builtin
def _to_u64(x):
    from .semantic import current
    s = current()
    return s.cast(s.to_tensor(x), tl.uint64)


@tl.constexpr_function
def _is_integer(x):
    """An int seed (Python int, or an integer scalar/tensor): Triton refuses pointers and floats."""
    if isinstance(x, bool) or isinstance(x, float):
        return False
    return isinstance(x, int) or x.dtype.is_int()


@tl.constexpr_function
def _bits(x):
    return x.dtype.primitive_bitwidth
