"""Views with negative or zero strides as kernel arguments: the pointer a kernel gets is the address of the
view's element [0, 0, ...], as torch's data_ptr() and Triton give it, and the kernel indexes from there
with the view's own strides. Both executors used to get the view's lowest byte instead, so a kernel
reading `base[:, ::-1]` read a row's first elements where its last ones belong (or faulted before the
array's start); zero strides (np.broadcast_to, torch's expand()) read one row for every row."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch

RNG = np.random.default_rng(32)


@triton.jit
def copy_strided(x_ptr, out_ptr, sx0, sx1, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    mask = (rows < M) & (cols < N)
    v = tl.load(x_ptr + rows * sx0 + cols * sx1, mask=mask)
    tl.store(out_ptr + rows * N + cols, v * 2.0 + 1.0, mask=mask)


@triton.jit
def scale_into_strided(x_ptr, out_ptr, so0, so1, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    mask = (rows < M) & (cols < N)
    v = tl.load(x_ptr + rows * N + cols, mask=mask)
    tl.store(out_ptr + rows * so0 + cols * so1, v * 3.0, mask=mask)


def _elements(a) -> tuple:
    return tuple(s // a.itemsize for s in a.strides)


def _copy(view, executor):
    m, n = view.shape
    out = np.full((m, n), np.nan, np.float32)
    launch(copy_strided, (1,), view, out, *_elements(view), m, n, BM=triton.next_power_of_2(m),
           BN=triton.next_power_of_2(n), executor=executor)
    return out


VIEWS = {
    "columns reversed": lambda b: b[:, ::-1],
    "rows reversed": lambda b: b[::-1, :],
    "both reversed, every other column": lambda b: b[::-1, ::-2],
    "transposed and reversed": lambda b: b.T[::-1, 1:],
}


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("view", VIEWS)
def test_a_kernel_reads_a_negative_stride_view_from_its_first_element(executor, view):
    base = RNG.standard_normal((6, 16)).astype(np.float32)
    v = VIEWS[view](base)
    np.testing.assert_array_equal(_copy(v, executor), v * np.float32(2) + np.float32(1))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_kernel_writes_a_negative_stride_view_in_place(executor):
    x = RNG.standard_normal((4, 8)).astype(np.float32)
    base = np.full((4, 16), np.nan, np.float32)
    base[:, 0::2] = RNG.standard_normal((4, 8)).astype(np.float32)   # the bytes the view skips keep their values
    want = base.copy()
    want[::-1, ::-2] = x * np.float32(3)
    out = base[::-1, ::-2]
    launch(scale_into_strided, (1,), x, out, *_elements(out), 4, 8, BM=4, BN=8, executor=executor)
    np.testing.assert_array_equal(base, want)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_negative_stride_view_beside_its_base(executor):
    """The base and its reversed view share one device buffer: each pointer is its own first element."""
    base = RNG.standard_normal((3, 16)).astype(np.float32)
    rev = base[:, ::-1]
    out = np.full((3, 16), np.nan, np.float32)
    launch(copy_strided, (1,), rev, out, *_elements(rev), 3, 16, BM=4, BN=16, executor=executor)
    out2 = np.full((3, 16), np.nan, np.float32)
    launch(copy_strided, (1,), base, out2, *_elements(base), 3, 16, BM=4, BN=16, executor=executor)
    np.testing.assert_array_equal(out, rev * np.float32(2) + np.float32(1))
    np.testing.assert_array_equal(out2, base * np.float32(2) + np.float32(1))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_zero_stride_view_reads_one_row_for_every_row(executor):
    row = RNG.standard_normal(16).astype(np.float32)
    v = np.broadcast_to(row, (5, 16))
    assert _elements(v) == (0, 1)
    np.testing.assert_array_equal(_copy(v, executor), np.broadcast_to(row * np.float32(2) + np.float32(1), (5, 16)))
    col = RNG.standard_normal((5, 1)).astype(np.float32)
    v = np.broadcast_to(col, (5, 16))
    np.testing.assert_array_equal(_copy(v, executor), np.broadcast_to(col * np.float32(2) + np.float32(1), (5, 16)))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_an_expanded_torch_tensor_has_zero_strides(executor):
    """torch forbids negative strides (from_numpy refuses them, flip() copies); expand() gives zero ones."""
    torch = pytest.importorskip("torch")
    row = torch.from_numpy(RNG.standard_normal(16).astype(np.float32))
    t = row.expand(5, 16)
    assert t.stride() == (0, 1)
    out = np.full((5, 16), np.nan, np.float32)
    launch(copy_strided, (1,), t, out, *t.stride(), 5, 16, BM=8, BN=16, executor=executor)
    np.testing.assert_array_equal(out, np.broadcast_to(row.numpy() * np.float32(2) + np.float32(1), (5, 16)))
