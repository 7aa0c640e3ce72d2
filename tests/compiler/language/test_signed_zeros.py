"""Float max and min order the zeros, -0.0 < +0.0, on both executors, as Triton does on a GPU
(checked on an H200 with triton 3.6: tl.maximum / tl.minimum with either propagate_nan, scalar math and
tl.max / tl.min alike; isa/float_minmax.py). numpy's fmax / maximum return either zero depending on
argument order and SIMD, so the interpreter once gave -0.0 for tl.maximum(0, -0.0) where MTIA's
fmax.s gave +0.0 (the differential tester's long run, batch seed 750006)."""
from __future__ import annotations

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl


@triton.jit
def _max_min_of_zeros(a_ptr, b_ptr, out_ptr, sa, sb, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + r)
    b = tl.load(b_ptr + r)
    tl.store(out_ptr + r, tl.maximum(a, b))
    tl.store(out_ptr + BLOCK + r, tl.minimum(a, b))
    tl.store(out_ptr + 2 * BLOCK + r, tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + 3 * BLOCK + r, tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + 4 * BLOCK, tl.maximum(sa, sb))
    tl.store(out_ptr + 4 * BLOCK + 1, tl.minimum(sa, sb))
    tl.store(out_ptr + 4 * BLOCK + 2, tl.max(a, 0))
    tl.store(out_ptr + 4 * BLOCK + 3, tl.min(a, 0))
    tl.store(out_ptr + 4 * BLOCK + 4, tl.max(-(b * 0.0 + 0.0), 0))     # every element -0.0
    tl.store(out_ptr + 4 * BLOCK + 5, tl.min(a * 0.0 + 0.0, 0))        # every element +0.0


def _signs(x: np.ndarray) -> list:
    return ["-0" if np.signbit(v) else "+0" for v in x]


@pytest.mark.parametrize("executor", ["interpreter", "mtia"])
@pytest.mark.parametrize("sa, sb", [(0.0, -0.0), (-0.0, 0.0)])
def test_max_takes_plus_zero_and_min_minus_zero(executor, sa, sb):
    a = np.array([0.0, -0.0, 0.0, -0.0] * 4, np.float32)
    b = np.array([-0.0, 0.0, 0.0, -0.0] * 4, np.float32)
    out = np.full(4 * 16 + 6, np.nan, np.float32)
    _max_min_of_zeros[(1,)](a, b, out, sa, sb, BLOCK=16, executor=executor)
    assert (out == 0).all()
    elementwise_max = ["+0", "+0", "+0", "-0"] * 4
    elementwise_min = ["-0", "-0", "+0", "-0"] * 4
    assert _signs(out[:16]) == elementwise_max and _signs(out[32:48]) == elementwise_max
    assert _signs(out[16:32]) == elementwise_min and _signs(out[48:64]) == elementwise_min
    assert _signs(out[64:70]) == ["+0", "-0", "+0", "-0", "-0", "+0"]


@triton.jit
def _both_zero_constants(out_ptr, x, DTYPE: tl.constexpr, NEG_FIRST: tl.constexpr):
    r = tl.arange(0, 4)
    first, second = (-0.0, 0.0) if NEG_FIRST else (0.0, -0.0)
    tl.store(out_ptr + 0, tl.full((), first, DTYPE))
    tl.store(out_ptr + 1, tl.full((), second, DTYPE))
    tl.store(out_ptr + 2 + r, tl.full((4,), first, DTYPE))
    tl.store(out_ptr + 6 + r, tl.full((4,), second, DTYPE))
    tl.store(out_ptr + 10, (x * 0.0).to(DTYPE))
    tl.store(out_ptr + 11, (x * -0.0).to(DTYPE))


@pytest.mark.parametrize("executor", ["interpreter", "mtia"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("neg_first", [True, False])
def test_minus_zero_and_zero_stay_two_constants(executor, dtype, neg_first):
    """Common subexpression elimination merged `-0.0` with `0.0` (equal as Python floats), so both stores
    wrote whichever came first (upstream test_frontend.py's test_scalar_constant_preserves_signed_zero)."""
    out = np.full(12, np.nan, dtype)
    _both_zero_constants[(1,)](out, 1.0, DTYPE=getattr(tl, dtype), NEG_FIRST=neg_first, executor=executor)
    assert (out == 0).all()
    first, second = ("-0", "+0") if neg_first else ("+0", "-0")
    assert _signs(out) == [first, second] + [first] * 4 + [second] * 4 + ["+0", "-0"]
