"""The result types of tl.minimum / tl.maximum / tl.clamp and tl.cumsum / tl.cumprod, as Triton has them.

- bf16 operands are widened to f32 (Triton's targets have no bf16 min, max or compare): the result
  is f32, and a cumsum of bf16 accumulates in f32.
- tl.minimum / tl.maximum / tl.clamp make tensors of their operands before promoting them, so a
  Python number there is not weakly typed as it is in `x + 1` or `tl.where(c, x, 0.5)`: it is an
  int32 or a float32 operand (`tl.maximum(int16 block, -1)` is int32, `tl.maximum(f16 block, 0.5)` is
  f32). Checked against Triton 3.6 on a GPU and Triton 3.8's source.

Found by running our difftest kernels on a GPU with real Triton: we kept bf16 and typed the numbers
weakly, so a loop that carried `tl.maximum(acc, x)` of bf16 compiled here and was refused there, and
a cumsum of bf16 rounded every partial sum to bf16 (a different answer). Both executors, against
numpy; outputs poisoned.
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


@triton.jit
def literal_operands(XI, XH, OI, OH, OC, OW, N: tl.constexpr):
    offs = tl.arange(0, N)
    xi = tl.load(XI + offs)
    xh = tl.load(XH + offs)
    a = tl.maximum(xi, -1)
    b = tl.minimum(xh, 0.5)
    c = tl.clamp(xh, -0.25, 0.25)
    w = tl.where(xh > 0, xh, 0.5)
    tl.static_assert(a.dtype == tl.int32)
    tl.static_assert(b.dtype == tl.float32)
    tl.static_assert(c.dtype == tl.float32)
    tl.static_assert(w.dtype == tl.float16)         # where keeps a number weakly typed
    tl.store(OI + offs, a)
    tl.store(OH + offs, b)
    tl.store(OC + offs, c)
    tl.store(OW + offs, w)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_numbers_given_to_min_max_clamp_are_int32_or_f32_operands(executor):
    rng = np.random.default_rng(6)
    xi = rng.integers(-300, 300, 64).astype(np.int16)
    xh = rng.standard_normal(64).astype(np.float16)
    oi = np.full(64, 0x5A5A5A5A, np.int32)
    oh, oc, ow = _poisoned(64), _poisoned(64), _poisoned(64, np.float16)
    launch(literal_operands, (1,), xi, xh, oi, oh, oc, ow, 64, executor=executor)
    np.testing.assert_array_equal(oi, np.maximum(xi.astype(np.int32), -1))
    np.testing.assert_array_equal(oh, np.minimum(xh.astype(np.float32), np.float32(0.5)))
    np.testing.assert_array_equal(oc, np.clip(xh.astype(np.float32), -0.25, 0.25))
    np.testing.assert_array_equal(ow, np.where(xh > 0, xh, np.float16(0.5)))
