"""bf16 operands of tl.minimum / tl.maximum / tl.clamp and of tl.cumsum / tl.cumprod are widened to
f32, as Triton does (its targets have no bf16 min, max or compare): the result is f32.

Found by running our difftest kernels on a GPU with real Triton: we kept bf16, so a loop that
carried `tl.maximum(acc, x)` compiled here and was refused there, and a cumsum of bf16 rounded every
partial sum to bf16 (a different answer). Both executors, against numpy in f32; outputs poisoned.
"""
import ml_dtypes
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from executors import EXECUTORS, launch

BF16 = ml_dtypes.bfloat16


@triton.jit
def min_max_clamp(X, Y, OMIN, OMAX, OCLAMP, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    lo = tl.minimum(x, y)
    hi = tl.maximum(x, 0.5)
    c = tl.clamp(x, -y, y)
    tl.static_assert(lo.dtype == tl.float32)
    tl.static_assert(hi.dtype == tl.float32)
    tl.static_assert(c.dtype == tl.float32)
    tl.store(OMIN + offs, lo)
    tl.store(OMAX + offs, hi)
    tl.store(OCLAMP + offs, c)


@triton.jit
def scans(X, OSUM, OPROD, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    s = tl.cumsum(x, axis=0)
    p = tl.cumprod(x, axis=0)
    tl.static_assert(s.dtype == tl.float32)
    tl.static_assert(p.dtype == tl.float32)
    tl.store(OSUM + offs, s)
    tl.store(OPROD + offs, p)


@triton.jit
def carried_max(X, O, N: tl.constexpr, TRIPS: tl.constexpr):
    offs = tl.arange(0, N)
    acc = tl.load(X + offs)
    for i in range(TRIPS):
        acc = tl.maximum(acc, tl.load(X + (offs + i + 1) % N)).to(tl.bfloat16)
    tl.store(O + offs, acc)


def _poisoned(n, dtype=np.float32):
    return np.full(n, np.nan, dtype)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_min_max_clamp_of_bf16_are_f32(executor):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(64).astype(BF16)
    y = np.abs(rng.standard_normal(64)).astype(BF16)
    omin, omax, oclamp = _poisoned(64), _poisoned(64), _poisoned(64)
    launch(min_max_clamp, (1,), x, y, omin, omax, oclamp, 64, executor=executor)
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    np.testing.assert_array_equal(omin, np.minimum(xf, yf))
    np.testing.assert_array_equal(omax, np.maximum(xf, np.float32(0.5)))
    np.testing.assert_array_equal(oclamp, np.clip(xf, -yf, yf))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_cumsum_and_cumprod_of_bf16_accumulate_in_f32(executor):
    rng = np.random.default_rng(4)
    x = rng.uniform(0.9, 1.1, 128).astype(BF16)              # partial sums reach ~128: bf16 keeps 8 bits
    osum, oprod = _poisoned(128), _poisoned(128)
    launch(scans, (1,), x, osum, oprod, 128, executor=executor)
    xf = x.astype(np.float32)
    np.testing.assert_allclose(osum, np.cumsum(xf, dtype=np.float32), rtol=1e-5)
    np.testing.assert_allclose(oprod, np.cumprod(xf, dtype=np.float32), rtol=1e-5)
    # accumulating in bf16 instead is off by far more than that
    acc, bf = np.float32(0), []
    for v in xf:
        acc = np.float32(BF16(acc + v))
        bf.append(acc)
    assert np.max(np.abs(np.array(bf) - np.cumsum(xf)) / np.cumsum(xf)) > 1e-3


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_loop_may_carry_a_bf16_maximum_cast_back(executor):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(32).astype(BF16)
    o = np.full(32, np.nan, BF16)
    launch(carried_max, (1,), x, o, 32, 3, executor=executor)
    want = np.max(np.stack([np.roll(x.astype(np.float32), -k) for k in range(4)]), axis=0)
    np.testing.assert_array_equal(o.astype(np.float32), want)
