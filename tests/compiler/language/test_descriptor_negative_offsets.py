"""A descriptor block at a negative corner: Triton pads the part before the tensor's start (stores drop it),
and both executors must. MTIA's box DMA clips a box's start with its `skip` counts, which the compiler
computes as max(0, -offset) for each offset it cannot show to be >= 0. The MTIA executor used to read or
write the elements before the corner whenever the address stayed inside the array (a silent wrong
answer), then stopped at the kernel line; now it pads and drops as the interpreter does."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def load_tile(a_ptr, out_ptr, M, N, m, n, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tl.store(out_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], desc.load([m, n]))


@triton.jit
def store_tile(a_ptr, x_ptr, M, N, m, n, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    desc.store([m, n], tl.load(x_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]))


def _tile(a, m, n, BM, BN):
    out = np.zeros((BM, BN), a.dtype)
    for i in range(BM):
        for j in range(BN):
            if 0 <= m + i < a.shape[0] and 0 <= n + j < a.shape[1]:
                out[i, j] = a[m + i, n + j]
    return out


A = np.random.default_rng(0).standard_normal((13, 27)).astype(np.float32)
CORNERS = [(-3, 4), (2, -5), (-8, -16), (-20, 3), (0, -40), (9, 20), (13, 0)]   # (the last two: not negative)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("m,n", CORNERS)
def test_loads_pad_before_the_start(m, n, executor):
    out = np.full((8, 16), np.nan, np.float32)
    launch(load_tile, (1,), A, out, 13, 27, m, n, BM=8, BN=16, executor=executor)
    np.testing.assert_array_equal(out, _tile(A, m, n, 8, 16))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("m,n", CORNERS)
def test_stores_drop_before_the_start(m, n, executor):
    a, x = A.copy(), np.random.default_rng(1).standard_normal((8, 16)).astype(np.float32)
    launch(store_tile, (1,), a, x, 13, 27, m, n, BM=8, BN=16, executor=executor)
    want = A.copy()
    for i in range(8):
        for j in range(16):
            if 0 <= m + i < 13 and 0 <= n + j < 27:
                want[m + i, n + j] = x[i, j]
    np.testing.assert_array_equal(a, want)


def test_a_corner_that_may_be_negative_skips_at_run_time():
    asm = load_tile.compile(A, np.empty((8, 16), np.float32), 13, 27, 2, -5, BM=8, BN=16).asm["mtia-asm"]
    assert "skip=" in asm and "dbg.assert" not in asm


@triton.jit
def row_sums(a_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    m = tl.program_id(0) * BM
    acc = tl.zeros([BM], tl.float32)
    for n in range(0, N, BN):
        acc += tl.sum(desc.load([m, n]), axis=1)
    tl.store(out_ptr + m + tl.arange(0, BM), acc)


def test_tile_corners_from_program_ids_and_loop_counters_skip_nothing():
    a = np.random.default_rng(2).standard_normal((16, 64)).astype(np.float32)
    out = np.full(16, np.nan, np.float32)
    assert "skip=" not in row_sums.compile(a, out, 16, 64, BM=8, BN=16).asm["mtia-asm"]
    launch(row_sums, (2,), a, out, 16, 64, BM=8, BN=16, executor="mtia")
    np.testing.assert_allclose(out, a.sum(axis=1), rtol=1e-5)
