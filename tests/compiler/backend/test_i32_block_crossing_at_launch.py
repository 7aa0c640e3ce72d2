"""An i32 offset block whose base is known only at run time and whose elements cross 2**31 (or -2**31)
between them cannot be one DMA box: the MTIA launch bounds such blocks over its programs (arguments,
program ids, loop variables between their bounds) and refuses one that may cross, at the kernel line;
the interpreter runs it as Triton does. Blocks that stay in range, up to the last representable element,
run exactly on both executors (compiler/backend/launch/i32_crossings.py)."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from tests.executors import EXECUTORS, launch

I32_MAX = 2**31 - 1


def _x(n, seed):
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


@triton.jit
def _per_program(X, Out, start, B: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * B + tl.arange(0, B) + start          # program p reads start + p * B + i where it wrapped
    tl.store(Out + pid * B + tl.arange(0, B), tl.load(X + (offs.to(tl.int64) + 2**31), mask=offs < 0, other=-1.0))


def _wrapped_reads(x, start):
    offs = (start + np.arange(64) + 2**31) % 2**32 - 2**31
    return np.where(offs < 0, x[np.clip(offs + 2**31, 0, 63)], -1.0).astype(np.float32)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("start", [I32_MAX - 63, -2**31])     # the last element 2**31 - 1; all negative
def test_programs_whose_blocks_stay_in_range_run_exactly(executor, start):
    x = _x(64, 1)
    out = np.full(64, np.nan, np.float32)
    launch(_per_program, (4,), x, out, start, B=16, executor=executor)
    np.testing.assert_array_equal(out, _wrapped_reads(x, start))


def test_a_program_whose_block_crosses_is_refused_on_mtia():
    x = _x(64, 2)
    start = I32_MAX - 39                # program 2's block crosses 2**31 after its 8th element
    out = np.full(64, np.nan, np.float32)
    launch(_per_program, (4,), x, out, start, B=16, executor="interpreter")
    np.testing.assert_array_equal(out, _wrapped_reads(x, start))
    out = np.full(64, np.nan, np.float32)
    with pytest.raises(triton.TritonError, match=r"i32 offsets of this block cross 2\*\*31 between its elements "
                       r"\(program \(2, 0, 0\): start 2147483640, elements 2147483640..2147483655\): "
                       r"MTIA moves it as one box; use int64 offsets") as e:
        launch(_per_program, (4,), x, out, start, B=16, executor="mtia")
    assert "offs = pid * B + tl.arange(0, B) + start" in str(e.value) and "^" in str(e.value)
    assert np.isnan(out).all()


@triton.jit
def _descending(X, Out, start, n, N: tl.constexpr):
    offs = start - tl.arange(0, N)                   # start = -2**31 + 7: elements 8.. wrap to 2**31 - 1, ...
    tl.store(Out + tl.arange(0, N), tl.load(X + (start - offs.to(tl.int64)), mask=offs < 0, other=-1.0))


def test_a_block_crossing_minus_2_31_is_refused_on_mtia():
    x = _x(16, 3)
    out = np.full(16, np.nan, np.float32)
    start = -2**31 + 7
    launch(_descending, (1,), x, out, start, 16, N=16, executor="interpreter")
    np.testing.assert_array_equal(out, np.where(np.arange(16) < 8, x, -1.0).astype(np.float32))
    out = np.full(16, np.nan, np.float32)
    with pytest.raises(triton.TritonError, match=r"cross -2\*\*31 between its elements \(start -2147483641, "
                       r"elements -2147483656..-2147483641\)"):
        launch(_descending, (1,), x, out, start, 16, N=16, executor="mtia")
    assert np.isnan(out).all()


@triton.jit
def _looped(X, Out, start, n, B: tl.constexpr):
    for k in range(0, n, B):                            # k + start + i, read through a widening cast
        offs = k + tl.arange(0, B) + start
        idx = offs.to(tl.int64) - start
        tl.store(Out + k + tl.arange(0, B), tl.load(X + idx, mask=offs >= 0, other=-1.0))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_loop_whose_blocks_stay_in_range_runs_exactly(executor):
    x = _x(64, 4)
    out = np.full(64, np.nan, np.float32)
    launch(_looped, (1,), x, out, I32_MAX - 63, 64, B=16, executor=executor)
    np.testing.assert_array_equal(out, x)


def test_a_loop_whose_last_block_crosses_is_refused_on_mtia():
    x = _x(64, 5)
    start = I32_MAX - 55                # the last iteration (k = 48) crosses after its 8th element
    out = np.full(64, np.nan, np.float32)
    launch(_looped, (1,), x, out, start, 64, B=16, executor="interpreter")
    np.testing.assert_array_equal(out, np.where(np.arange(64) < 56, x, -1.0).astype(np.float32))
    out = np.full(64, np.nan, np.float32)
    with pytest.raises(triton.TritonError, match=r"cross 2\*\*31 between its elements"):
        launch(_looped, (1,), x, out, start, 64, B=16, executor="mtia")
    assert np.isnan(out).all()


def test_a_large_launch_is_bounded_over_its_whole_grid(monkeypatch):
    from compiler.backend.launch import i32_crossings
    monkeypatch.setattr(i32_crossings, "EACH_PROGRAM_MAX", 2)     # as a grid of more programs would be
    x = _x(64, 6)
    out = np.full(64, np.nan, np.float32)
    with pytest.raises(triton.TritonError, match=r"may cross 2\*\*31 between its elements \(start "
                       r"-2147483648..2147483647, elements -2147483648..2147483662\)"):
        launch(_per_program, (4,), x, out, I32_MAX - 39, B=16, executor="mtia")
    assert np.isnan(out).all()
    launch(_per_program, (4,), x, out, I32_MAX - 63, B=16, executor="mtia")        # no program crosses
    np.testing.assert_array_equal(out, _wrapped_reads(x, I32_MAX - 63))
