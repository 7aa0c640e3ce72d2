"""NaN through max/min, clamp and the max/min/argmax/argmin reductions and scans, on both executors
against numpy, as Triton defines them:

- tl.maximum / tl.minimum ignore a NaN operand by default (IEEE maxNum: np.fmax) and propagate it
  with propagate_nan=ALL (np.maximum); tl.clamp(x, lo, hi) is fmin(fmax(x, lo), hi) by default and
  np.clip (NaN from x kept) with ALL; on blocks and on scalars (the control core's fmax ignores NaNs,
  so the MTIA backend computes the ALL forms on the SE);
- tl.max / tl.min and max-combine scans ignore NaNs (NaN only where every element is NaN);
  tl.argmax / tl.argmin give the first index of that extreme (0 where every element is NaN).
The MTIA executor propagated NaNs through tl.max, argmax and scans and ignored them in scalar
maximum(ALL): silent wrong answers. Outputs are poisoned with a finite value no input can give, since
NaN is a legitimate result here.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch

POISON = 7777.0
ALL = tl.PropagateNan.ALL


def with_nans(rng, shape, dtype=np.float32, frac=0.25):
    x = rng.standard_normal(shape).astype(dtype)
    x[rng.random(shape) < frac] = np.nan
    return x


@triton.jit
def elementwise(x_ptr, y_ptr, o_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    y = tl.load(y_ptr + tl.arange(0, N))
    bound = tl.abs(y)
    o = o_ptr + tl.arange(0, N)
    tl.store(o + 0 * N, tl.maximum(x, y))
    tl.store(o + 1 * N, tl.maximum(x, y, propagate_nan=ALL))
    tl.store(o + 2 * N, tl.minimum(x, y))
    tl.store(o + 3 * N, tl.minimum(x, y, propagate_nan=ALL))
    tl.store(o + 4 * N, tl.clamp(x, -bound, bound))
    tl.store(o + 5 * N, tl.clamp(x, -bound, bound, propagate_nan=ALL))


@triton.jit
def scalars(x_ptr, y_ptr, o_ptr):
    x = tl.load(x_ptr)
    y = tl.load(y_ptr)
    tl.store(o_ptr + 0, tl.maximum(x, y))
    tl.store(o_ptr + 1, tl.maximum(x, y, propagate_nan=ALL))
    tl.store(o_ptr + 2, tl.minimum(x, y))
    tl.store(o_ptr + 3, tl.minimum(x, y, propagate_nan=ALL))
    tl.store(o_ptr + 4, tl.clamp(x, -tl.abs(y), tl.abs(y)))
    tl.store(o_ptr + 5, tl.clamp(x, -tl.abs(y), tl.abs(y), propagate_nan=ALL))


def expected_pairwise(x, y):
    b = np.abs(y)
    return np.stack([np.fmax(x, y), np.maximum(x, y), np.fmin(x, y), np.minimum(x, y),
                     np.fmin(np.fmax(x, -b), b), np.clip(x, -b, b)])


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_maximum_minimum_and_clamp_on_blocks(executor, dtype):
    rng = np.random.default_rng(11)
    x, y = with_nans(rng, 64, dtype), with_nans(rng, 64, dtype)
    o = np.full(6 * 64, POISON, dtype)
    launch(elementwise, (1,), x, y, o, 64, executor=executor)
    np.testing.assert_array_equal(o.reshape(6, 64), expected_pairwise(x, y))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_maximum_minimum_and_clamp_on_scalars(executor):
    rng = np.random.default_rng(12)
    pairs = [(np.nan, 1.5), (-0.75, np.nan), (np.nan, np.nan)] + [tuple(rng.standard_normal(2)) for _ in range(2)]
    for a, b in pairs:
        x, y = np.float32([a]), np.float32([b])
        o = np.full(6, POISON, np.float32)
        launch(scalars, (1,), x, y, o, executor=executor)
        np.testing.assert_array_equal(o, expected_pairwise(x, y)[:, 0], err_msg=f"x={a}, y={b}")


@triton.jit
def _maximum_all(a, b):
    return tl.maximum(a, b, propagate_nan=ALL)


@triton.jit
def _maximum_none(a, b):
    return tl.maximum(a, b)


@triton.jit
def reductions(x_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    x = tl.load(x_ptr + rows[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(o_ptr + 0 * M + rows, tl.max(x, 1))
    tl.store(o_ptr + 1 * M + rows, tl.min(x, 1))
    tl.store(o_ptr + 2 * M + rows, tl.argmax(x, 1).to(tl.float32))
    tl.store(o_ptr + 3 * M + rows, tl.argmin(x, 1).to(tl.float32))
    v, i = tl.max(x, 1, return_indices=True)
    tl.store(o_ptr + 4 * M + rows, v)
    tl.store(o_ptr + 5 * M + rows, i.to(tl.float32))
    tl.store(o_ptr + 6 * M + rows, tl.reduce(x, 1, _maximum_all))


def first_index(x, pick):
    best = pick.reduce(x, axis=1, keepdims=True)
    return np.argmax(x == best, axis=1)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_max_min_argmax_argmin_ignore_nans(executor):
    rng = np.random.default_rng(13)
    x = with_nans(rng, (8, 32), frac=0.3)
    x[2] = np.nan                                   # every element NaN: NaN and index 0
    x[5, :4] = np.nan                               # the first elements NaN
    x[6, 7] = x[6, 19] = 9.0                        # a tie: the first index
    o = np.full(7 * 8, POISON, np.float32)
    launch(reductions, (1,), x, o, 8, 32, executor=executor)
    with np.errstate(invalid="ignore"):
        expect = np.stack([np.fmax.reduce(x, 1), np.fmin.reduce(x, 1), first_index(x, np.fmax),
                           first_index(x, np.fmin), np.fmax.reduce(x, 1), first_index(x, np.fmax),
                           np.maximum.reduce(x, 1)])
    np.testing.assert_array_equal(o.reshape(7, 8), expect)


@triton.jit
def scans(x_ptr, o_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(o_ptr + offs, tl.associative_scan(x, 0, _maximum_none))
    tl.store(o_ptr + N + offs, tl.associative_scan(x, 0, _maximum_all))
    tl.store(o_ptr + 2 * N + offs, tl.associative_scan(x, 0, _maximum_none, reverse=True))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_max_scans_ignore_or_propagate_nans_as_their_combine_says(executor):
    rng = np.random.default_rng(14)
    x = with_nans(rng, 32, frac=0.2)
    x[0] = np.nan                                    # a leading NaN: ignored until a number comes
    o = np.full(3 * 32, POISON, np.float32)
    launch(scans, (1,), x, o, 32, executor=executor)
    expect = np.stack([np.fmax.accumulate(x), np.maximum.accumulate(x), np.fmax.accumulate(x[::-1])[::-1]])
    np.testing.assert_array_equal(o.reshape(3, 32), expect)


@triton.jit
def int_argmax_fast_ties(x_ptr, o_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(o_ptr, tl.argmax(x, 0, tie_break_left=False))
    tl.store(o_ptr + 1, tl.argmin(x, 0, tie_break_left=False))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_argmax_without_tie_break_gives_the_first_index_on_both_executors(executor):
    """Triton leaves the tie unspecified for tie_break_left=False; both executors give the first index
    (the interpreter's pairwise tree gave a later one)."""
    rng = np.random.default_rng(15)
    x = rng.integers(-3, 4, 64).astype(np.int32)
    o = np.full(2, -1, np.int32)
    launch(int_argmax_fast_ties, (1,), x, o, 64, executor=executor)
    assert list(o) == [int(np.argmax(x)), int(np.argmin(x))]
