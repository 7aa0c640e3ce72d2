"""tl.rand / randn / randint / randint4x against a pure-numpy Philox 4x32-10 written here."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

# launched on the reference interpreter unless MTIASIM_EXECUTOR names another (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("interpreter_by_default")

ROUND_A, ROUND_B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
KEY_A, KEY_B = np.uint32(0x9E3779B9), np.uint32(0xBB67AE85)


def philox4x32(seed: int, counters: np.ndarray, rounds: int = 10):
    """Reference Philox4x32: counter (c, 0, 0, 0), key (seed low, seed high)."""
    c0 = counters.astype(np.int64).astype(np.uint32)
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    seed64 = np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
    k0 = np.full_like(c0, np.uint32(int(seed64) & 0xFFFFFFFF))
    k1 = np.full_like(c0, np.uint32(int(seed64) >> 32))
    with np.errstate(over="ignore"):
        for _ in range(rounds):
            pa = ROUND_A * c0.astype(np.uint64)
            pb = ROUND_B * c2.astype(np.uint64)
            hi_a, lo_a = (pa >> np.uint64(32)).astype(np.uint32), pa.astype(np.uint32)
            hi_b, lo_b = (pb >> np.uint64(32)).astype(np.uint32), pb.astype(np.uint32)
            c0, c1, c2, c3 = hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a
            k0 = k0 + KEY_A
            k1 = k1 + KEY_B
    return c0, c1, c2, c3


def to_uniform(u: np.ndarray) -> np.ndarray:
    x = u.view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    return (x.astype(np.float32) * np.float32(4.6566127342e-10)).astype(np.float32)


@triton.jit
def random_kernel(Out, Out4, seed, n, KIND: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if KIND == "randint":
        tl.store(Out + offs, tl.randint(seed, offs), mask=mask)
    elif KIND == "rand":
        tl.store(Out + offs, tl.rand(seed, offs), mask=mask)
    elif KIND == "randn":
        tl.store(Out + offs, tl.randn(seed, offs), mask=mask)
    elif KIND == "randint4x":
        a, b, c, d = tl.randint4x(seed, offs)
        tl.store(Out4 + offs, a, mask=mask)
        tl.store(Out4 + n + offs, b, mask=mask)
        tl.store(Out4 + 2 * n + offs, c, mask=mask)
        tl.store(Out4 + 3 * n + offs, d, mask=mask)


N = 300
SEEDS = [12345, 0x7FFFFFFF, -5]


@pytest.mark.parametrize("seed", SEEDS)
def test_randint_matches_reference_philox(seed):
    out = np.zeros(N, np.uint32)
    random_kernel[(3,)](out, out, seed, N, KIND="randint", BLOCK=128)
    np.testing.assert_array_equal(out, philox4x32(seed, np.arange(N))[0])


def test_randint4x_gives_all_four_words():
    out4 = np.zeros(4 * N, np.uint32)
    random_kernel[(3,)](out4, out4, 42, N, KIND="randint4x", BLOCK=128)
    ref = np.concatenate(philox4x32(42, np.arange(N)))
    np.testing.assert_array_equal(out4, ref)


@pytest.mark.parametrize("seed", SEEDS)
def test_rand_uniform(seed):
    out = np.full(N, np.nan, np.float32)
    random_kernel[(3,)](out, out, seed, N, KIND="rand", BLOCK=128)
    np.testing.assert_array_equal(out, to_uniform(philox4x32(seed, np.arange(N))[0]))
    assert 0.0 <= out.min() and out.max() < 1.0


def test_randn_box_muller():
    out = np.full(N, np.nan, np.float32)
    random_kernel[(3,)](out, out, 7, N, KIND="randn", BLOCK=128)
    w0, w1, _, _ = philox4x32(7, np.arange(N))
    u1 = np.maximum(np.float32(1e-7), to_uniform(w0))
    u2 = to_uniform(w1)
    ref = np.sqrt(np.float32(-2.0) * np.log(u1)) * np.cos(np.float32(6.283185307179586) * u2)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_random_streams_are_reproducible_and_depend_on_the_seed():
    a, b, c = (np.zeros(N, np.float32) for _ in range(3))
    random_kernel[(3,)](a, a, 1, N, KIND="rand", BLOCK=128)
    random_kernel[(3,)](b, b, 1, N, KIND="rand", BLOCK=128)
    random_kernel[(3,)](c, c, 2, N, KIND="rand", BLOCK=128)
    np.testing.assert_array_equal(a, b)
    assert (a != c).mean() > 0.99
