"""tl.cat(a, b, dim=d) concatenates along any dimension (negative ones counted from the end), as
Triton's current tl.cat does (Triton's test_core.py::test_cat_nd and test_cat_shape_mismatch call it
with dim=; ours took no dim: "cat() got an unexpected keyword argument 'dim'"). The shapes must be
equal, and a mismatch is refused at the kernel line with Triton's message."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def cat_3d(a_ptr, b_ptr, out_ptr, P: tl.constexpr, Q: tl.constexpr, R: tl.constexpr, DIM: tl.constexpr):
    i = tl.arange(0, P)[:, None, None]
    j = tl.arange(0, Q)[None, :, None]
    k = tl.arange(0, R)[None, None, :]
    a = tl.load(a_ptr + i * Q * R + j * R + k)
    b = tl.load(b_ptr + i * Q * R + j * R + k)
    c = tl.cat(a, b, dim=DIM)
    # c's shape is (P, Q, R) with the DIM-th size doubled: store it row-major
    p2: tl.constexpr = P * 2 if DIM == 0 else P
    q2: tl.constexpr = Q * 2 if DIM == 1 or DIM == -2 else Q
    r2: tl.constexpr = R * 2 if DIM == 2 or DIM == -1 else R
    ii = tl.arange(0, p2)[:, None, None]
    jj = tl.arange(0, q2)[None, :, None]
    kk = tl.arange(0, r2)[None, None, :]
    tl.store(out_ptr + ii * q2 * r2 + jj * r2 + kk, c)


@triton.jit
def cat_mismatched(a_ptr, out_ptr, DIM: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    b = tl.load(a_ptr + tl.arange(0, 2)[:, None] * 8 + tl.arange(0, 8)[None, :])
    c = tl.cat(a, b, dim=DIM)
    tl.store(out_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :], c)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2])
def test_cat_along_each_dimension(executor, dim):
    rng = np.random.default_rng(dim + 3)
    shape = (2, 4, 8)
    a = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape).astype(np.float32)
    ref = np.concatenate([a, b], axis=dim)
    out = np.full(ref.size, np.nan, np.float32)
    launch(cat_3d, (1,), a, b, out, P=2, Q=4, R=8, DIM=dim, executor=executor)
    np.testing.assert_array_equal(out.reshape(ref.shape), ref)


@pytest.mark.parametrize("dim", [0, 1])
def test_cat_needs_equal_shapes(dim):
    with pytest.raises(triton.CompilationError, match=r"tl.cat requires tensors of the same shape, got \[4, 8\] "
                                                      r"and \[2, 8\]") as e:
        cat_mismatched[(1,)](np.zeros(32, np.float32), np.zeros(48, np.float32), DIM=dim, executor="interpreter")
    assert "c = tl.cat(a, b, dim=DIM)" in str(e.value)
