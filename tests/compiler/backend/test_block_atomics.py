"""A block `tl.atomic_add` over an affine block of pointers costs what a `tl.store` of the block costs: its
addresses are a box (no tile of offsets, none of the mask) and, when nothing reads the old values, no tile
holds them. The read-modify-write still happens at memory, element by element, so programs adding into the
same block all land, on both executors (values are small integers, so every order of adds is exact)."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def add_rows_into(out_ptr, x_ptr, M, N: tl.constexpr, BM: tl.constexpr):
    """Every program adds its own BM x N block of x into out's first BM x N block, rows below M only."""
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + tl.program_id(0) * BM * N + rows * N + cols)
    tl.atomic_add(out_ptr + rows * N + cols, x, mask=rows < M)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_programs_adding_into_one_block_all_land(executor, dtype):
    programs, BM, N, M = 6, 16, 32, 11
    rng = np.random.default_rng(1)
    x = rng.integers(-50, 50, (programs * BM, N)).astype(dtype)
    out = rng.integers(-50, 50, (BM, N)).astype(dtype)
    want = out.copy()
    want[:M] += x.reshape(programs, BM, N)[:, :M].sum(axis=0, dtype=dtype)
    launch(add_rows_into, (programs,), out, x, M, N=N, BM=BM, executor=executor)
    np.testing.assert_array_equal(out, want)


@triton.jit
def add_and_keep_old(out_ptr, old_ptr, x_ptr, N: tl.constexpr, BOX: tl.constexpr):
    rows = tl.arange(0, N)[:, None]
    offs = rows * N + tl.arange(0, N)[None, :]
    if BOX:
        mask = rows < N - 3                 # a box: the DMA's valid extents
    else:
        mask = offs < N * N - 5             # no box: a mask tile
    old = tl.atomic_add(out_ptr + offs, tl.load(x_ptr + offs), mask=mask)
    tl.store(old_ptr + offs, old)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("box", [True, False])
def test_the_old_values_a_block_atomic_returns(executor, box):
    N = 16
    rng = np.random.default_rng(2)
    x = rng.integers(1, 9, (N, N)).astype(np.float32)
    out = rng.integers(-9, 9, (N, N)).astype(np.float32)
    old = np.full((N, N), np.nan, np.float32)
    index = np.arange(N * N).reshape(N, N)
    live = index < N * (N - 3) if box else index < N * N - 5
    want_out = out.copy()
    want_out[live] += x[live]
    want_old = out.copy()
    launch(add_and_keep_old, (1,), out, old, x, N=N, BOX=box, executor=executor)
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_array_equal(old[live], want_old[live])


@triton.jit
def count_into_row(out_ptr, x_ptr, R: tl.constexpr, N: tl.constexpr):
    """R rows of pointers that all name out's N elements: each element of the block adds once."""
    rows = tl.arange(0, R)[:, None]
    cols = tl.arange(0, N)[None, :]
    tl.atomic_add(out_ptr + rows * 0 + cols, tl.load(x_ptr + rows * N + cols))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_block_naming_one_address_several_times_adds_each_element(executor):
    R, N = 8, 16
    rng = np.random.default_rng(3)
    x = rng.integers(-20, 20, (R, N)).astype(np.int32)
    out = rng.integers(-20, 20, N).astype(np.int32)
    want = out + x.sum(axis=0, dtype=np.int32)
    launch(count_into_row, (2,), out, x, R=R, N=N, executor=executor)
    np.testing.assert_array_equal(out, want + x.sum(axis=0, dtype=np.int32))


@triton.jit
def store_block(out_ptr, x_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@triton.jit
def atomic_add_block(out_ptr, x_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :]
    tl.atomic_add(out_ptr + offs, tl.load(x_ptr + offs))


def test_a_256x256_f32_atomic_add_takes_a_stores_local_store():
    """On MTIA 2i (384 KiB of local store) it needed 768 KiB (offsets, values and old values) and was refused."""
    x = np.ones((256, 256), np.float32)
    sizes = []
    for kernel in (store_block, atomic_add_block):
        compiled = kernel.warmup(x.copy(), x, N=256, grid=(1,))
        compiled._init_handles()
        sizes.append(compiled.metadata.shared)
    assert sizes[1] == sizes[0]


def test_a_128x128_f32_atomic_add_costs_about_a_stores_cycles():
    """It took 3.1x the store's cycles (one memory transaction per element); now its bytes go in the runs a
    store's do, and the read of the old lines at memory overlaps the transfer."""
    rng = np.random.default_rng(4)
    x = rng.integers(-9, 9, (128, 128)).astype(np.float32)
    out = rng.integers(-9, 9, (128, 128)).astype(np.float32)
    want = out + x
    cycles = [store_block[(1,)](np.full_like(x, np.nan), x, N=128).cycles,
              atomic_add_block[(1,)](out, x, N=128).cycles]
    np.testing.assert_array_equal(out, want)
    assert cycles[1] <= 1.2 * cycles[0], cycles
