"""A launch's grid, as Triton takes it: 1 to 3 entries (more only when the extra ones are 1, which Triton's
launcher ignores), at most 2**31 - 1 programs along x and 65535 along y and z (CUDA's limits), and at
most `max_programs` programs in all, since both executors run every program. Errors name the grid and
start at the user's launch line. A grid of 2**31 - 1 programs used to be planned for broadcast reads
with arrays of 8 bytes a program (16 GiB each: MemoryError, or the process killed) on the MTIA executor,
and run silently for days on the interpreter; a 4-entry grid was refused without a line."""
import contextlib
import os
import resource
import signal
from types import SimpleNamespace

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.backend.launch import broadcast
from simulator import get_config, use_config
from simulator.launch import DEFAULT_MAX_PROGRAMS, MAX_PROGRAMS_ENV
from simulator.machine import Machine

from executors import EXECUTORS, launch

RNG = np.random.default_rng(18)


@triton.jit
def add_row(x_ptr, w_ptr, out_ptr, N: tl.constexpr):
    """Every program reads the same row w (a broadcast read where programs run together)."""
    pid = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0) + \
        tl.program_id(2) * tl.num_programs(0) * tl.num_programs(1)
    r = tl.arange(0, N)
    tl.store(out_ptr + pid * N + r, tl.load(x_ptr + pid * N + r) + tl.load(w_ptr + r))


def _launch(grid, executor, programs=None, **kwargs):
    programs = programs or 8
    x = RNG.standard_normal((programs, 16)).astype(np.float32)
    w = RNG.standard_normal(16).astype(np.float32)
    out = np.full((programs, 16), np.nan, np.float32)
    launch(add_row, grid, x, w, out, N=16, executor=executor, **kwargs)
    return x + w, out


def _refusal(grid, executor, **kwargs) -> str:
    """The error of launching `grid` (here, so that the error starts at this file's line)."""
    x, w, out = np.zeros((8, 16), np.float32), np.zeros(16, np.float32), np.full((8, 16), np.nan, np.float32)
    with _time_bound(30), pytest.raises(ValueError) as e, use_config("mtia-small"):     # refused at once
        add_row[grid](x, w, out, N=16, executor=executor, **kwargs)
    assert np.isnan(out).all()
    return str(e.value)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_entries_past_the_third_may_only_be_one(executor):
    want, out = _launch((2, 2, 2, 1, 1), executor)
    np.testing.assert_array_equal(out, want)
    msg = _refusal((2, 2, 1, 2), executor)
    assert msg.startswith(f"{__file__}:") and "the grid (2, 2, 1, 2) has 4 dimensions" in msg, msg
    assert "ignores the rest, which would launch 4 programs, not 8" in msg, msg
    assert msg.endswith("\n    add_row[grid](x, w, out, N=16, executor=executor, **kwargs)")  # the user's line


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("grid, axis", [((2**31,), "x"), ((1, 65536), "y"), ((1, 1, 65536), "z")])
def test_a_grid_past_tritons_limits_is_refused(executor, grid, axis):
    msg = _refusal(grid, executor)
    assert f"programs along {axis}; Triton launches at most 2**31 - 1 along x and 65535 along y and z" in msg, msg
    assert msg.startswith(f"{__file__}:"), msg


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_valid_grid_of_2_31_programs_is_refused_at_once(executor):
    msg = _refusal((2**31 - 1,), executor)
    assert f"has 2,147,483,647 programs, more than the {DEFAULT_MAX_PROGRAMS:,} a launch may have" in msg, msg
    assert "max_programs=" in msg and MAX_PROGRAMS_ENV in msg and msg.startswith(f"{__file__}:"), msg


@pytest.mark.parametrize("executor", EXECUTORS)
def test_max_programs_bounds_a_launch(executor, monkeypatch):
    want, out = _launch((4, 2), executor, max_programs=8)
    np.testing.assert_array_equal(out, want)
    assert "has 8 programs, more than the 7 a launch may have" in _refusal((4, 2), executor, max_programs=7)
    monkeypatch.setenv(MAX_PROGRAMS_ENV, "7")
    assert "more than the 7 a launch may have" in _refusal((8,), executor)
    with pytest.raises(ValueError, match="max_programs must be a positive integer"):
        _launch((8,), executor, max_programs=0)


def test_the_simulator_refuses_a_grid_past_max_programs_before_placing_it():
    compiled = add_row.compile(np.zeros((4, 16), np.float32), np.zeros(16, np.float32),
                               np.zeros((4, 16), np.float32), N=16)
    from compiler.runtime.mtia_executor import mtia_program
    with use_config("mtia-small"):
        program, _ = mtia_program(compiled, get_config())
        with pytest.raises(ValueError, match="has 2,147,483,647 programs"), _time_bound(30), _memory_bound(2 << 30):
            Machine().run(program, (2**31 - 1,), {a.name: 0 for a in program.args})


@contextlib.contextmanager
def _time_bound(seconds: int):
    """Stop the block with a TimeoutError after `seconds` (a launch that runs instead of being refused)."""
    def stop(*_):
        raise TimeoutError(f"still running after {seconds} s")
    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _memory_bound(extra: int):
    """Fail an allocation of more than `extra` bytes beyond what the process maps now (a MemoryError,
    instead of a process killed or swapping), for the duration of the block."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[0])
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (pages * os.sysconf("SC_PAGE_SIZE") + extra, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def test_broadcast_planning_is_bounded_past_plan_max_programs():
    """Planning evaluates the kernel's scalars for every program at once; past PLAN_MAX_PROGRAMS it plans
    nothing (no broadcast reads: a choice of speed only) instead of allocating with the grid."""
    from compiler.backend.launch.specialize import compiled_program as _compiled
    arrays = [np.zeros((4, 16), np.float32), np.zeros(16, np.float32), np.zeros((4, 16), np.float32)]
    compiled = add_row.compile(*arrays, N=16)
    with use_config("mtia-small"):
        cfg = get_config()
        func = _compiled(compiled, cfg, 3, None)[2].functions[0]
        buffers = [SimpleNamespace(address=(i + 1) << 30, end=((i + 1) << 30) + a.nbytes) for i, a in enumerate(arrays)]
        values = [b.address for b in buffers]
        small = broadcast.plan(func, (cfg.num_pes * 4, 1, 1), values, buffers, "linear", cfg.num_pes, cfg.grid.cols)
        assert small                                    # the read of w broadcasts on a grid planned in full
        with _time_bound(30), _memory_bound(2 << 30):
            assert broadcast.plan(func, (2**31 - 1, 1, 1), values, buffers, "linear", cfg.num_pes,
                                  cfg.grid.cols) == {}


def test_window_planning_is_bounded_past_plan_max_programs():
    """Whether window boxes stay inside their arrays is worked out for every program at once; past
    PLAN_MAX_PROGRAMS it cannot be told without allocating with the grid, so the launch takes no windows."""
    from compiler.backend.launch import window_bounds
    from compiler.backend.launch.specialize import compiled_program as _compiled

    from shared_kernels import pairs_kernel
    arrays = [np.array([1, 2, 3], np.int64), np.array([0, 0, 1], np.int64), np.zeros((8, 4, 4), np.float32),
              np.zeros((8, 9), np.float32)]
    compiled = pairs_kernel.compile(*arrays, 8, 3, F=4, OUT=9, GUARDED=True, OTHER=False, WRITE=False, YB=16, XB=8)
    with use_config("mtia-small"):
        cfg = get_config()
        func = _compiled(compiled, cfg, 3, None)[2].functions[0]
        assert window_bounds.window_boxes(func)
        buffers = [SimpleNamespace(address=(i + 1) << 30, end=((i + 1) << 30) + a.nbytes) for i, a in enumerate(arrays)]
        values = [b.address for b in buffers] + [8, 3]
        buffers += [None, None]
        assert window_bounds.inside(func, (1, 1, 1), values, buffers, "linear", cfg.num_pes)
        with _time_bound(30), _memory_bound(2 << 30):
            assert not window_bounds.inside(func, (2**31 - 1, 1, 1), values, buffers, "linear", cfg.num_pes)
