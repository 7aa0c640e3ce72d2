"""Offsets are i32 blocks: each element wraps to 32 bits as it is computed, before it is scaled by the
element size, and the MTIA executor reads and writes what the interpreter (and Triton) does. The
backend's index analysis (compiler/backend/analysis/affine.py) works in exact integers and wraps a block's base
and strides where the block is read (a pointer offset, a widening cast, a compare), so a box DMA's base
address and its mask bounds use the wrapped values. A block that crosses the range between its elements
is no box where that is known when compiling (a gather, exact); where its base is known only at run time
the MTIA launch refuses it (compiler/backend/launch/i32_crossings.py)."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from tests.executors import EXECUTORS, launch

BIG = 2**31 - 1                    # a + b + 4 = 2**32 + 2: wraps to 2


@triton.jit
def _load(X, Out, a, b, N: tl.constexpr):
    offs = tl.arange(0, N) + a + b + 4
    tl.store(Out + tl.arange(0, N), tl.load(X + offs))


@triton.jit
def _store(X, Out, a, b, N: tl.constexpr):
    offs = tl.arange(0, N) + a + b + 4
    tl.store(Out + offs, tl.load(X + tl.arange(0, N)))


@triton.jit
def _masked(X, Out, a, b, n, N: tl.constexpr):
    offs = tl.arange(0, N) + a + b + 4       # 2 + arange: the mask reads the wrapped values
    tl.store(Out + tl.arange(0, N), tl.load(X + offs, mask=offs < n, other=-1.0))


@triton.jit
def _tile(X, Out, a, b, R: tl.constexpr, C: tl.constexpr):
    r, c = tl.arange(0, R), tl.arange(0, C)
    offs = (r[:, None] * C + a) + (c[None, :] + b) + 2      # a + b + 2 = 2**32: wraps to 0
    tl.store(Out + r[:, None] * C + c[None, :], tl.load(X + offs))


@triton.jit
def _widened(X, Out, a, b, N: tl.constexpr):
    offs = (tl.arange(0, N) + a + b + 4).to(tl.int64) * 2      # widened after the wrap: 2 * (arange + 2)
    tl.store(Out + tl.arange(0, N), tl.load(X + offs))


@triton.jit
def _across_the_wrap(X, Out, N: tl.constexpr, START: tl.constexpr):
    # START = 2**31 - 8: elements 0..7 stay near 2**31, 8..15 wrap to -2**31 + 0..7 (between elements
    # of one block: not one box); only those are read, at -2**31 + 2**31 = 0..7
    offs = tl.arange(0, N) + START
    tl.store(Out + tl.arange(0, N), tl.load(X + (offs.to(tl.int64) + 2**31), mask=offs < 0, other=-1.0))


def _x(n, seed):
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_wrapped_block_base_loads_where_the_interpreter_does(executor):
    x = _x(64, 1)
    out = np.full(16, np.nan, np.float32)
    launch(_load, (1,), x, out, BIG, BIG, N=16, executor=executor)
    np.testing.assert_array_equal(out, x[2:18])


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_wrapped_block_base_stores_where_the_interpreter_does(executor):
    x = _x(16, 2)
    out = np.full(64, np.nan, np.float32)
    launch(_store, (1,), x, out, BIG, BIG, N=16, executor=executor)
    want = np.full(64, np.nan, np.float32)
    want[2:18] = x
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_mask_compares_the_wrapped_offsets(executor):
    x = _x(64, 3)
    out = np.full(16, np.nan, np.float32)
    launch(_masked, (1,), x, out, BIG, BIG, 10, N=16, executor=executor)
    offs = np.arange(16) + 2
    np.testing.assert_array_equal(out, np.where(offs < 10, x[offs], -1.0).astype(np.float32))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_tile_whose_base_wraps(executor):
    x = _x(8 * 16, 4)
    out = np.full(8 * 16, np.nan, np.float32)
    launch(_tile, (1,), x, out, BIG, BIG, R=8, C=16, executor=executor)
    np.testing.assert_array_equal(out, x)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_offsets_widened_after_they_wrapped(executor):
    x = _x(64, 5)
    out = np.full(16, np.nan, np.float32)
    launch(_widened, (1,), x, out, BIG, BIG, N=16, executor=executor)
    np.testing.assert_array_equal(out, x[2 * (np.arange(16) + 2)])


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_block_that_wraps_between_its_elements(executor):
    x = _x(16, 6)
    out = np.full(16, np.nan, np.float32)
    launch(_across_the_wrap, (1,), x, out, N=16, START=2**31 - 8, executor=executor)
    np.testing.assert_array_equal(out, np.concatenate([np.full(8, -1.0, np.float32), x[:8]]))


# ---- a base known only at run time ------------------------------------------------------------------
# The ring operations commute with the wrap, so (a + arange) + b is one box at wrap(a + b) even where
# a + arange crosses 2**31 between its elements: exact on both executors.


@triton.jit
def _runtime_load(X, Out, a, b, n, N: tl.constexpr):
    offs = (a + tl.arange(0, N)) + b         # a + arange crosses the wrap; b brings it back into bounds
    tl.store(Out + tl.arange(0, N), tl.load(X + offs, mask=(offs >= 0) & (offs < n), other=-1.0))


@triton.jit
def _runtime_store(X, Out, a, b, n, N: tl.constexpr):
    offs = (a + tl.arange(0, N)) + b
    tl.store(Out + offs, tl.load(X + tl.arange(0, N)), mask=(offs >= 0) & (offs < n))


def _wrap32(v):
    return (np.asarray(v, np.int64) + 2**31) % 2**32 - 2**31


# a = 2**31 - 8: elements 8.. of a + arange cross +2**31 (b = -2**31 + 8 + k makes offsets k..k + 15)
CROSSINGS = [(2**31 - 8, -2**31 + 8), (2**31 - 8, 8 - 2**31 + 3)]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("a,b", CROSSINGS)
def test_a_runtime_base_crossing_the_wrap_loads_exactly(executor, a, b):
    x = _x(32, 7)
    out = np.full(16, np.nan, np.float32)
    launch(_runtime_load, (1,), x, out, a, b, 32, N=16, executor=executor)
    offs = _wrap32(_wrap32(a + np.arange(16)) + b)
    ok = (offs >= 0) & (offs < 32)
    np.testing.assert_array_equal(out, np.where(ok, x[np.where(ok, offs, 0)], -1.0).astype(np.float32))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("a,b", CROSSINGS)
def test_a_runtime_base_crossing_the_wrap_stores_exactly(executor, a, b):
    x = _x(16, 8)
    out = np.full(32, np.nan, np.float32)
    launch(_runtime_store, (1,), x, out, a, b, 32, N=16, executor=executor)
    offs = _wrap32(_wrap32(a + np.arange(16)) + b)
    want = np.full(32, np.nan, np.float32)
    ok = (offs >= 0) & (offs < 32)
    want[offs[ok]] = x[ok]
    np.testing.assert_array_equal(out, want)


@triton.jit
def _runtime_descending(X, Out, a, b, n, N: tl.constexpr):
    offs = (a - tl.arange(0, N)) + b         # a = -2**31 + 7: a - arange crosses -2**31 at element 8
    tl.store(Out + tl.arange(0, N), tl.load(X + offs, mask=(offs >= 0) & (offs < n), other=-1.0))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_runtime_base_crossing_the_negative_wrap_loads_exactly(executor):
    a, b = -2**31 + 7, -2**31 + 15          # each sum wraps once: offsets 22, 21, ..., 7
    x = _x(32, 9)
    out = np.full(16, np.nan, np.float32)
    launch(_runtime_descending, (1,), x, out, a, b, 32, N=16, executor=executor)
    offs = _wrap32(_wrap32(a - np.arange(16)) + b)
    ok = (offs >= 0) & (offs < 32)
    np.testing.assert_array_equal(out, np.where(ok, x[np.where(ok, offs, 0)], -1.0).astype(np.float32))


# Where the block that is read itself crosses (a widening cast or a mask reads `arange + start` with
# start = 2**31 - 8), one DMA box at start cannot move it: its elements past the wrap lie -2**32 away.
# The analysis proves "no crossing" only for constant bases (affine._observed); for a run-time base the
# MTIA launch bounds the block over its programs and refuses it at the kernel line
# (compiler/backend/launch/i32_crossings.py, README's known gaps); the interpreter runs it as Triton does.
CROSSES = "i32 offsets of this block cross 2\\*\\*31 between its elements \\(start 2147483640, " \
          "elements 2147483640..2147483655\\): MTIA moves it as one box; use int64 offsets"


@triton.jit
def _runtime_across_load(X, Out, start, N: tl.constexpr):
    offs = tl.arange(0, N) + start            # crosses 2**31 inside the block; only the wrapped part is read
    tl.store(Out + tl.arange(0, N), tl.load(X + (offs.to(tl.int64) + 2**31), mask=offs < 0, other=-1.0))


@triton.jit
def _runtime_across_store(X, Out, start, N: tl.constexpr):
    offs = tl.arange(0, N) + start
    tl.store(Out + (offs.to(tl.int64) + 2**31), tl.load(X + tl.arange(0, N)), mask=offs < 0)


def _refused(kernel, *args):
    with pytest.raises(triton.TritonError, match=CROSSES) as e:
        launch(kernel, (1,), *args, 2**31 - 8, N=16, executor="mtia")
    assert "offs = tl.arange(0, N) + start" in str(e.value)         # the kernel line, with a caret under it
    assert np.isnan(args[1]).all()                                   # and nothing written


def test_a_runtime_block_across_the_wrap_loads_exactly_or_is_refused():
    x = _x(16, 10)
    out = np.full(16, np.nan, np.float32)
    launch(_runtime_across_load, (1,), x, out, 2**31 - 8, N=16, executor="interpreter")
    np.testing.assert_array_equal(out, np.concatenate([np.full(8, -1.0, np.float32), x[:8]]))
    _refused(_runtime_across_load, x, np.full(16, np.nan, np.float32))


def test_a_runtime_block_across_the_wrap_stores_exactly_or_is_refused():
    x = _x(16, 11)
    out = np.full(16, np.nan, np.float32)
    launch(_runtime_across_store, (1,), x, out, 2**31 - 8, N=16, executor="interpreter")
    np.testing.assert_array_equal(out, np.concatenate([x[8:], np.full(8, np.nan, np.float32)]))
    _refused(_runtime_across_store, x, np.full(16, np.nan, np.float32))
