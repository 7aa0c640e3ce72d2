"""A compare of a scalar broadcast to a tile with a constant (Inductor's `0 <= tmp1 < 512` index check on
an embedding's token id) computes in the operands' type on both executors, not in the i1 of its result
(`7 < 512` as `True < True` was false on the MTIA backend, and every embedding lookup asserted)."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def scalar_compares(x_ptr, out_ptr, LIMIT: tl.constexpr):
    v = tl.broadcast_to(tl.load(x_ptr), [1, 1])
    z = tl.zeros([1, 1], tl.int32)
    tl.store(out_ptr + z, (v < LIMIT).to(tl.int32))
    tl.store(out_ptr + 1 + z, (v <= LIMIT).to(tl.int32))
    tl.store(out_ptr + 2 + z, (v > LIMIT).to(tl.int32))
    tl.store(out_ptr + 3 + z, (v >= LIMIT).to(tl.int32))
    tl.store(out_ptr + 4 + z, (v == LIMIT).to(tl.int32))
    tl.store(out_ptr + 5 + z, (v != LIMIT).to(tl.int32))


@triton.jit
def checked_index(x_ptr, out_ptr):
    tmp1 = tl.broadcast_to(tl.load(x_ptr), [1, 1])
    tl.device_assert((0 <= tmp1) & (tmp1 < 512), "index out of bounds: 0 <= tmp1 < 512")
    tl.store(out_ptr + tl.zeros([1, 1], tl.int32), tmp1)


def _expected(v, limit):
    return np.array([v < limit, v <= limit, v > limit, v >= limit, v == limit, v != limit], np.int32)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype,value,limit", [(np.int64, 7, 512), (np.int32, 600, 512), (np.int32, 512, 512),
                                               (np.int32, -3, 0), (np.float32, 2.0, 2.5), (np.float32, 3.0, 2.5)])
def test_scalar_tile_compared_with_a_constant(executor, dtype, value, limit):
    out = np.full(6, -1, np.int32)
    launch(scalar_compares, (1,), np.array([value], dtype), out, LIMIT=limit, executor=executor)
    np.testing.assert_array_equal(out, _expected(value, limit))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_an_in_range_index_passes_inductors_check(executor):
    out = np.zeros(1, np.int64)
    launch(checked_index, (1,), np.array([7], np.int64), out, executor=executor)
    assert out[0] == 7
