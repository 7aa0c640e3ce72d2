"""Tensor descriptors built on the host (`compiler.tools.tensor_descriptor.TensorDescriptor`, as Triton's
`triton.tools.tensor_descriptor`) and passed to kernels: the kernel loads and stores tiles through them
as through one made by `tl.make_tensor_descriptor`, ragged edges padded and clipped; both executors
against numpy, outputs poisoned with NaN; bad descriptors are refused when built, in the caller's terms.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.tools.tensor_descriptor import TensorDescriptor

from executors import EXECUTORS, launch


@triton.jit
def matmul_desc(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    m, n = tl.program_id(0) * BM, tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([m, k]), b_desc.load([k, n]), acc)
    c_desc.store([m, n], acc)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("M,N,K", [(64, 64, 64), (40, 56, 48)])
def test_a_matmul_through_host_descriptors(executor, M, N, K):
    rng = np.random.default_rng(M + K)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float32)
    BM, BN, BK = 32, 32, 32
    descs = [TensorDescriptor.from_tensor(x, blk) for x, blk in ((a, [BM, BK]), (b, [BK, BN]), (c, [BM, BN]))]
    launch(matmul_desc, (triton.cdiv(M, BM), triton.cdiv(N, BN)), *descs, K, BM=BM, BN=BN, BK=BK, executor=executor)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)


@triton.jit
def scale_rows(in_desc, out_desc, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.program_id(0) * BR
    x = in_desc.load([r, 0])
    out_desc.store([r, 0], x * 3.0)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_descriptor_of_a_strided_view(executor):
    """The descriptor's strides are the view's (a column slice of a wider array), not the array's shape."""
    wide = np.random.default_rng(1).standard_normal((24, 40)).astype(np.float32)
    view = wide[:, 8:24]                                   # rows 160 bytes apart, 16 columns
    out = np.full((24, 16), np.nan, np.float32)
    src = TensorDescriptor(wide[:, 8:], view.shape, (40, 1), [8, 16])
    launch(scale_rows, (3,), src, TensorDescriptor.from_tensor(out, [8, 16]), BR=8, BC=16, executor=executor)
    np.testing.assert_array_equal(out, view * 3)


def test_descriptors_of_another_shape_reuse_the_kernel():
    """Extents and strides are runtime parameters: another size launches the same compiled kernel."""
    scale_rows.cache.clear()
    for rows in (24, 40):                  # (neither a multiple of 16: the same specialisation)
        x = np.ones((rows, 16), np.float32)
        out = np.zeros_like(x)
        scale_rows[(rows // 8,)](TensorDescriptor.from_tensor(x, [8, 16]), TensorDescriptor.from_tensor(out, [8, 16]),
                                 BR=8, BC=16)
        np.testing.assert_array_equal(out, 3 * x)
    assert len(scale_rows.cache) == 1


@pytest.mark.parametrize("make, message", [
    (lambda x: TensorDescriptor(x, x.shape, (1, 24), [8, 8]), "last dimension must be contiguous"),
    (lambda x: TensorDescriptor(x, x.shape, (3, 1), [8, 8]), "multiple of 16 bytes"),
    (lambda x: TensorDescriptor.from_tensor(x, [8, 6]), "power of 2"),
    (lambda x: TensorDescriptor.from_tensor(x, [8]), "same length"),
])
def test_bad_descriptors_are_refused_when_built(make, message):
    with pytest.raises(ValueError, match=message):
        make(np.zeros((16, 24), np.float32))
