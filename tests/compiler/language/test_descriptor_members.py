"""A tensor descriptor's members inside a kernel: `desc.shape[i]` / `desc.strides[i]` (its runtime extents and
strides, i32 and i64 scalars, as in Triton), for descriptors made by `tl.make_tensor_descriptor` and for host-built
`TensorDescriptor` arguments; both executors against numpy, outputs poisoned first.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.tools.tensor_descriptor import TensorDescriptor

from executors import EXECUTORS, launch


@triton.jit
def members_of_made_descriptor(out_ptr, a_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tl.store(out_ptr + 0, desc.shape[0])
    tl.store(out_ptr + 1, desc.shape[1])
    tl.store(out_ptr + 2, desc.strides[0])
    tl.store(out_ptr + 3, desc.strides[1])


@triton.jit
def members_of_host_descriptor(out_ptr, desc):
    tl.store(out_ptr + 0, desc.shape[0])
    tl.store(out_ptr + 1, desc.shape[1])
    tl.store(out_ptr + 2, desc.strides[0])
    tl.store(out_ptr + 3, desc.strides[1])


@pytest.mark.parametrize("executor", EXECUTORS)
def test_shape_and_strides_of_a_made_descriptor(executor):
    a = np.zeros((24, 48), np.float32)
    out = np.full(4, -1, np.int64)
    launch(members_of_made_descriptor, (1,), out, a, 24, 48, BM=8, BN=16, executor=executor)
    assert out.tolist() == [24, 48, 48, 1]


@pytest.mark.parametrize("executor", EXECUTORS)
def test_shape_and_strides_of_a_host_descriptor_of_a_view(executor):
    wide = np.zeros((20, 64), np.float16)
    desc = TensorDescriptor(wide[:, 8:], (20, 40), (64, 1), [4, 16])
    out = np.full(4, -1, np.int64)
    launch(members_of_host_descriptor, (1,), out, desc, executor=executor)
    assert out.tolist() == [20, 40, 64, 1]


@triton.jit
def member_types(out_ptr, a_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tl.static_assert(len(desc.shape) == 2 and len(desc.strides) == 2)
    tl.static_assert(desc.shape[0].dtype == tl.int32 and desc.strides[0].dtype == tl.int64)
    tl.static_assert(desc.block_shape[0] == BM and desc.block_shape[1] == BN and desc.dtype == tl.float32)
    tl.store(out_ptr, 1)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_member_types_are_triton_s(executor):
    out = np.zeros(1, np.int32)
    launch(member_types, (1,), out, np.zeros((8, 16), np.float32), 8, 16, BM=8, BN=16, executor=executor)
    assert out[0] == 1


@triton.jit
def copy_by_own_extents(in_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """Tiles walked up to the descriptor's own extents: the last ones ragged, read padded and written clipped."""
    src = tl.make_tensor_descriptor(in_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    m = tl.program_id(0) * BM
    for n in range(0, src.shape[1], BN):
        dst.store([m, n], src.load([m, n]) + (src.strides[0] - src.shape[1]).to(tl.float32))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("M,N", [(16, 64), (13, 40)])
def test_a_loop_bounded_by_the_descriptor_s_extent(executor, M, N):
    a = np.random.default_rng(M).standard_normal((M, N)).astype(np.float32)
    out = np.full((M, N), np.nan, np.float32)
    launch(copy_by_own_extents, (triton.cdiv(M, 8),), a, out, M, N, BM=8, BN=16, executor=executor)
    np.testing.assert_array_equal(out, a)


def test_block_shape_of_an_ordinary_tensor_is_unchanged():
    """`.shape` of an ordinary tensor is still its block shape (constexprs), next to descriptors'."""
    @triton.jit
    def shapes(out_ptr, a_ptr, BM: tl.constexpr, BN: tl.constexpr):
        desc = tl.make_tensor_descriptor(a_ptr, shape=[BM, BN], strides=[BN, 1], block_shape=[BM, BN])
        x = desc.load([0, 0])
        tl.static_assert(x.shape[0] == BM and x.shape[1] == BN)
        tl.store(out_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], x)
    a = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    out = np.full_like(a, np.nan)
    launch(shapes, (1,), out, a, BM=8, BN=16, executor="interpreter")
    np.testing.assert_array_equal(out, a)


# --- padding_option="nan": reads outside the extents give NaN ------------------------------------------

@triton.jit
def load_tile_nan(a_ptr, out_ptr, M, N, m, n, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN], padding_option="nan")
    tl.store(out_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], desc.load([m, n]))


@triton.jit
def load_tile_through(desc, out_ptr, m, n, BM: tl.constexpr, BN: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], desc.load([m, n]))


def _tile_with(a, m, n, BM, BN, fill):
    """numpy: the [BM, BN] tile of `a` at (m, n), `fill` where it leaves `a`."""
    out = np.full((BM, BN), fill, a.dtype)
    for i in range(BM):
        for j in range(BN):
            if 0 <= m + i < a.shape[0] and 0 <= n + j < a.shape[1]:
                out[i, j] = a[m + i, n + j]
    return out


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("m,n", [(8, 16), (5, 20), (0, 0)])
def test_nan_padding_of_a_made_descriptor(executor, dtype, m, n):
    a = np.random.default_rng(5).standard_normal((13, 27)).astype(dtype)
    out = np.zeros((8, 16), dtype)
    launch(load_tile_nan, (1,), a, out, 13, 27, m, n, BM=8, BN=16, executor=executor)
    np.testing.assert_array_equal(out, _tile_with(a, m, n, 8, 16, np.nan))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("padding,fill", [("nan", np.nan), ("zero", 0)])
def test_padding_of_a_host_descriptor(executor, padding, fill):
    a = np.random.default_rng(6).standard_normal((10, 20)).astype(np.float32)
    out = np.full((8, 16), -7, np.float32)
    desc = TensorDescriptor.from_tensor(a, [8, 16], padding=padding)
    launch(load_tile_through, (1,), desc, out, 4, 8, BM=8, BN=16, executor=executor)
    np.testing.assert_array_equal(out, _tile_with(a, 4, 8, 8, 16, fill))


@triton.jit
def int_nan_descriptor(a_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[BM, BN], strides=[BN, 1], block_shape=[BM, BN], padding_option="nan")
    tl.store(out_ptr + tl.arange(0, BN), tl.sum(desc.load([0, 0]), axis=0))


@triton.jit
def unknown_padding_descriptor(a_ptr, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[BM, BN], strides=[BN, 1], block_shape=[BM, BN], padding_option="inf")
    desc.store([0, 0], desc.load([0, 0]))


def _compile_error(kernel, *args, **kwargs):
    with pytest.raises(triton.CompilationError) as e:
        kernel[(1,)](*args, executor="interpreter", **kwargs)
    head, src, caret = str(e.value).splitlines()[:3]
    assert caret.strip() == "^"
    return head, src.strip()


def test_nan_padding_of_integers_is_refused_at_the_kernel_line():
    head, src = _compile_error(int_nan_descriptor, np.zeros((8, 16), np.int32), np.zeros(16, np.int32), BM=8, BN=16)
    assert "nan" in head and "integer" in head and src.startswith("desc = tl.make_tensor_descriptor(")


def test_an_unknown_padding_is_refused_at_the_kernel_line():
    head, src = _compile_error(unknown_padding_descriptor, np.zeros((8, 16), np.float32), BM=8, BN=16)
    assert "'inf'" in head and src.startswith("desc = tl.make_tensor_descriptor(")


# --- gather / scatter of rows through a 2-D descriptor whose block is one row --------------------------

@triton.jit
def gather_rows(a_ptr, idx_ptr, out_ptr, M, N, col, R: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    rows = tl.load(idx_ptr + tl.arange(0, R))
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[1, BN], padding_option=PAD)
    picked = desc.gather(rows, col)
    tl.store(out_ptr + tl.arange(0, R)[:, None] * BN + tl.arange(0, BN)[None, :], picked)


@triton.jit
def scatter_rows(src_ptr, idx_ptr, out_desc, col, R: tl.constexpr, BN: tl.constexpr):
    rows = tl.load(idx_ptr + tl.arange(0, R))
    block = tl.load(src_ptr + tl.arange(0, R)[:, None] * BN + tl.arange(0, BN)[None, :])
    out_desc.scatter(block * 2, rows, col)


def _gathered(a, rows, col, BN, fill):
    out = np.full((len(rows), BN), fill, a.dtype)
    for i, r in enumerate(rows):
        for j in range(BN):
            if 0 <= r < a.shape[0] and 0 <= col + j < a.shape[1]:
                out[i, j] = a[r, col + j]
    return out


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8])
@pytest.mark.parametrize("col", [0, 24])
def test_gather_picks_rows_in_index_order(executor, dtype, col):
    rng = np.random.default_rng(col)
    a = (rng.standard_normal((40, 64)) * 50).astype(dtype)
    rows = rng.integers(0, 40, 16).astype(np.int32)                 # repeats and any order
    out = np.zeros((16, 32), dtype)
    launch(gather_rows, (1,), a, rows, out, 40, 64, col, R=16, BN=32, PAD="zero", executor=executor)
    np.testing.assert_array_equal(out, _gathered(a, rows, col, 32, 0))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("padding,fill", [("zero", 0), ("nan", np.nan)])
def test_gather_outside_the_extents_reads_the_padding(executor, padding, fill):
    """Rows past the extent (or negative) and columns past it read the padding."""
    a = np.random.default_rng(3).standard_normal((12, 40)).astype(np.float32)
    rows = np.array([0, 11, 12, 30, -1, 5, 5, 2], np.int32)
    out = np.zeros((8, 32), np.float32)
    launch(gather_rows, (1,), a, rows, out, 12, 40, 20, R=8, BN=32, PAD=padding, executor=executor)
    np.testing.assert_array_equal(out, _gathered(a, rows, 20, 32, fill))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("col", [0, 16, 40])
def test_scatter_writes_rows_where_the_index_says(executor, col):
    rng = np.random.default_rng(10 + col)
    src = rng.standard_normal((16, 32)).astype(np.float32)
    rows = rng.permutation(48)[:16].astype(np.int32)
    out = np.full((48, 64), np.nan, np.float32)
    expect = out.copy()
    for i, r in enumerate(rows):                          # columns past the extent are dropped
        w = min(32, 64 - col)
        expect[r, col:col + w] = src[i, :w] * 2
    launch(scatter_rows, (1,), src, rows, TensorDescriptor.from_tensor(out, [1, 32]), col, R=16, BN=32,
           executor=executor)
    np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_scatter_drops_rows_outside_the_extent(executor):
    src = np.random.default_rng(4).standard_normal((8, 16)).astype(np.float32)
    rows = np.array([1, 9, 3, -2, 100, 0, 7, 8], np.int32)
    out = np.full((9, 16), np.nan, np.float32)
    expect = out.copy()
    for i, r in enumerate(rows):
        if 0 <= r < 9:
            expect[r] = src[i] * 2
    launch(scatter_rows, (1,), src, rows, TensorDescriptor.from_tensor(out, [1, 16]), 0, R=8, BN=16,
           executor=executor)
    np.testing.assert_array_equal(out, expect)


@triton.jit
def gather_from_a_tall_block(a_ptr, out_ptr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[64, BN], strides=[BN, 1], block_shape=[2, BN])
    x = desc.gather(tl.arange(0, 8), 0)
    tl.store(out_ptr + tl.arange(0, 8)[:, None] * BN + tl.arange(0, BN)[None, :], x)


@triton.jit
def gather_by_int64_rows(a_ptr, out_ptr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[64, BN], strides=[BN, 1], block_shape=[1, BN])
    x = desc.gather(tl.arange(0, 8).to(tl.int64), 0)
    tl.store(out_ptr + tl.arange(0, 8)[:, None] * BN + tl.arange(0, BN)[None, :], x)


@pytest.mark.parametrize("kernel,words", [(gather_from_a_tall_block, ["1 row", "[2, 32]"]),
                                          (gather_by_int64_rows, ["int16 or int32"])])
def test_gather_misuse_is_refused_at_the_kernel_line(kernel, words):
    head, src = _compile_error(kernel, np.zeros((64, 32), np.float32), np.zeros((8, 32), np.float32), BN=32)
    assert all(w in head for w in words) and src.startswith("x = desc.gather(")


@triton.jit
def gather_at_a_fixed_column(a_ptr, idx_ptr, out_ptr, M, N, COL: tl.constexpr, R: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[1, BN])
    picked = desc.gather(tl.load(idx_ptr + tl.arange(0, R)), COL)
    tl.store(out_ptr + tl.arange(0, R)[:, None] * BN + tl.arange(0, BN)[None, :], picked)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("col", [0, 48])
def test_gather_at_a_compile_time_column(executor, col):
    """(A constant start: the MTIA backend reads whole rows; columns past the extent still read 0.)"""
    a = np.random.default_rng(col).standard_normal((20, 64)).astype(np.float16)
    rows = np.array([3, 19, 0, 20, 7, 7, 1, 12], np.int32)
    out = np.full((8, 32), np.nan, np.float16)
    launch(gather_at_a_fixed_column, (1,), a, rows, out, 20, 64, COL=col, R=8, BN=32, executor=executor)
    np.testing.assert_array_equal(out, _gathered(a, rows, col, 32, 0))


# --- descriptors re-made in loops and ifs (carried as their base, extents and strides) -----------------

@triton.jit
def sum_of_batches(a_ptr, out_ptr, B, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """Each batch through its own descriptor, re-made in the loop over a moving base and a shrinking extent."""
    m = tl.program_id(0) * BM
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), tl.float32)
    rows = M
    for b in range(B):
        acc += desc.load([m, 0])
        rows -= 1
        desc = tl.make_tensor_descriptor(a_ptr + (b + 1) * M * N, shape=[rows, N], strides=[N, 1],
                                         block_shape=[BM, BN])
    out = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    out.store([m, 0], acc)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_descriptor_re_made_in_a_loop(executor):
    B, M, N = 3, 16, 32
    a = np.random.default_rng(8).standard_normal((B, M, N)).astype(np.float32)
    out = np.full((M, N), np.nan, np.float32)
    launch(sum_of_batches, (2,), a, out, B, M, N, BM=8, BN=32, executor=executor)
    expect = sum(np.where(np.arange(M)[:, None] < M - b, a[b], 0) for b in range(B))
    np.testing.assert_allclose(out, expect, rtol=1e-6)


@triton.jit
def copy_from_either(a_ptr, b_ptr, out_ptr, which, M, N, BM: tl.constexpr, BN: tl.constexpr):
    if which > 0:
        src = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    else:
        src = tl.make_tensor_descriptor(b_ptr, shape=[M // 2, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    m = tl.program_id(0) * BM
    dst.store([m, 0], src.load([m, 0]) + src.shape[0])


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("which", [1, 0])
def test_a_descriptor_chosen_by_a_runtime_if(executor, which):
    M, N = 16, 16
    a, b = (np.random.default_rng(9 + i).standard_normal((M, N)).astype(np.float32) for i in range(2))
    out = np.full((M, N), np.nan, np.float32)
    launch(copy_from_either, (2,), a, b, out, which, M, N, BM=8, BN=16, executor=executor)
    expect = a + M if which else np.where(np.arange(M)[:, None] < M // 2, b, 0) + M // 2
    np.testing.assert_array_equal(out, expect)


@triton.jit
def walk_host_descriptors(first, second, out_ptr, n_tiles, switch_at, BM: tl.constexpr, BN: tl.constexpr):
    """Host-built descriptors through a while loop: the tiles of `first`, then (from switch_at) `second`'s."""
    i = 0
    desc = first
    acc = tl.zeros((BM, BN), tl.float32)
    while i < n_tiles:
        if i == switch_at:
            desc = second
        acc += desc.load([i * BM, 0]) * (desc.strides[0] // BN).to(tl.float32)
        i += 1
    tl.store(out_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], acc)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_host_descriptors_through_a_while_loop(executor):
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal((32, 16)).astype(np.float32), rng.standard_normal((32, 32)).astype(np.float32)
    out = np.full((8, 16), np.nan, np.float32)
    launch(walk_host_descriptors, (1,), TensorDescriptor.from_tensor(a, [8, 16]),
           TensorDescriptor(b, (32, 16), (32, 1), [8, 16]), out, 4, 2, BM=8, BN=16, executor=executor)
    expect = a[:16].reshape(2, 8, 16).sum(0) + 2 * b[16:, :16].reshape(2, 8, 16).sum(0)
    np.testing.assert_allclose(out, expect, rtol=1e-5)


@triton.jit
def blocks_differ_by_branch(a_ptr, out_ptr, which, BN: tl.constexpr):
    if which > 0:
        desc = tl.make_tensor_descriptor(a_ptr, shape=[16, BN], strides=[BN, 1], block_shape=[8, BN])
    else:
        desc = tl.make_tensor_descriptor(a_ptr, shape=[16, BN], strides=[BN, 1], block_shape=[16, BN])
    desc.store([0, 0], desc.load([0, 0]))


def test_descriptors_of_different_blocks_do_not_merge():
    with pytest.raises(triton.CompilationError, match="Mismatched type for desc"):
        blocks_differ_by_branch[(1,)](np.zeros((16, 16), np.float32), None, 3, BN=16, executor="interpreter")


# --- atomics over a block (Triton's descriptor reduce) -------------------------------------------------

@triton.jit
def combine_tiles(out_desc, src_ptr, M, N, KIND: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    rows, cols = m + tl.arange(0, BM)[:, None], n + tl.arange(0, BN)[None, :]
    val = tl.load(src_ptr + rows * N + cols, mask=(rows < M) & (cols < N), other=0)
    if KIND == "add":
        out_desc.atomic_add([m, n], val)
    elif KIND == "min":
        out_desc.atomic_min([m, n], val)
    elif KIND == "max":
        out_desc.atomic_max([m, n], val)
    elif KIND == "and":
        out_desc.atomic_and([m, n], val)
    elif KIND == "or":
        out_desc.atomic_or([m, n], val)
    else:
        out_desc.atomic_xor([m, n], val)


_NUMPY_OF = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or,
             "xor": np.bitwise_xor}


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("kind", list(_NUMPY_OF))
def test_atomics_combine_a_ragged_grid_of_tiles(executor, kind):
    rng = np.random.default_rng(len(kind))
    M, N = 12, 40
    src = rng.integers(-1000, 1000, (M, N)).astype(np.int32)
    out = rng.integers(-1000, 1000, (M, N)).astype(np.int32)
    expect = _NUMPY_OF[kind](out, src)
    launch(combine_tiles, (2, 3), TensorDescriptor.from_tensor(out, [8, 16]), src, M, N, KIND=kind, BM=8, BN=16,
           executor=executor)
    np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_atomic_add_of_floats(executor):
    src = np.random.default_rng(2).standard_normal((8, 16)).astype(np.float32)
    out = np.ones((8, 16), np.float32)
    launch(combine_tiles, (1, 1), TensorDescriptor.from_tensor(out, [8, 16]), src, 8, 16, KIND="add", BM=8, BN=16,
           executor=executor)
    np.testing.assert_allclose(out, src + 1, rtol=1e-6)


def test_a_float_atomic_min_is_refused_at_the_kernel_line():
    f = np.zeros((8, 16), np.float32)
    with pytest.raises(triton.CompilationError) as e:
        combine_tiles[(1, 1)](TensorDescriptor.from_tensor(f, [8, 16]), f, 8, 16, KIND="min", BM=8, BN=16,
                              executor="interpreter")
    head, src, caret = str(e.value).splitlines()[:3]
    assert "atomic_min does not support fp32" in head and "out_desc.atomic_min(" in src and caret.strip() == "^"
