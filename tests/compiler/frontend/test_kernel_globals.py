"""A module global read by a kernel is compiled in (a number becomes a constexpr), so it is part of the
kernel's cache key, as in Triton: changing it after a launch makes the next launch use the new value,
on both executors, through a @jit helper too; an unchanged global does not recompile."""
from __future__ import annotations

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch

SCALE = 2.0
OFFSET = 1


@triton.jit
def add_offset(x):
    return x + OFFSET


@triton.jit
def scaled(x_ptr, o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, add_offset(tl.load(x_ptr + offs) * SCALE))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_changing_a_global_after_a_launch_is_seen_by_the_next(executor, monkeypatch):
    x = np.arange(16, dtype=np.float32)
    o = np.full_like(x, np.nan)
    scaled.cache.clear()
    scaled.compile_count = 0
    launch(scaled, (1,), x, o, BLOCK=16, executor=executor)
    np.testing.assert_array_equal(o, x * 2 + 1)
    launch(scaled, (1,), x, o, BLOCK=16, executor=executor)
    assert scaled.compile_count == 1                       # unchanged globals: the cached kernel
    monkeypatch.setitem(globals(), "SCALE", 3.0)
    launch(scaled, (1,), x, o, BLOCK=16, executor=executor)
    np.testing.assert_array_equal(o, x * 3 + 1)
    monkeypatch.setitem(globals(), "OFFSET", 5)             # read by the @jit helper
    launch(scaled, (1,), x, o, BLOCK=16, executor=executor)
    np.testing.assert_array_equal(o, x * 3 + 5)
    assert scaled.compile_count == 3
    monkeypatch.setitem(globals(), "OFFSET", 5)             # rebound to an equal value: no change
    launch(scaled, (1,), x, o, BLOCK=16, executor=executor)
    assert scaled.compile_count == 3
