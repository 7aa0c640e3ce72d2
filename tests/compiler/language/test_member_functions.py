"""Triton's tensor member functions that we lacked: x.sqrt_rn(), x.cdiv(d), x.reduce_or(axis), and a
pointer tensor's ptrs.store(v) / ptrs.atomic_add(v) / ... (Triton's test_core.py::test_math_member_fn
[sqrt_rn] failed with "'tensor' object has no attribute 'sqrt_rn'"). Each on both executors, outputs
poisoned with NaN or a value no path stores."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def members(x_ptr, i_ptr, root_ptr, q_ptr, any_ptr, out_ptr, acc_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    i = tl.load(i_ptr + offs)
    (root_ptr + offs).store(x.sqrt_rn())
    (q_ptr + offs).store(i.cdiv(3))
    tl.store(any_ptr, (i & 1).reduce_or(0))
    (out_ptr + offs).store(x, mask=offs < N // 2)
    old = (acc_ptr + offs % 4).atomic_add(i)
    (acc_ptr + 4).atomic_max(tl.max(old, 0))
    (acc_ptr + 5).atomic_xchg(7)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_member_functions_of_value_and_pointer_tensors(executor):
    rng = np.random.default_rng(5)
    n = 16
    x = rng.uniform(0.1, 9.0, n).astype(np.float32)
    i = rng.integers(1, 100, n).astype(np.int32)
    root = np.full(n, np.nan, np.float32)
    q = np.full(n, -1, np.int32)
    anyodd = np.full(1, -1, np.int32)
    out = np.full(n, np.nan, np.float32)
    acc = np.zeros(6, np.int32)
    launch(members, (1,), x, i, root, q, anyodd, out, acc, N=n, executor=executor)
    np.testing.assert_array_equal(root, np.sqrt(x))
    np.testing.assert_array_equal(q, (i + 2) // 3)
    assert anyodd[0] == np.bitwise_or.reduce(i & 1)
    np.testing.assert_array_equal(out[:n // 2], x[:n // 2])
    assert np.isnan(out[n // 2:]).all()
    np.testing.assert_array_equal(acc[:4], i.reshape(-1, 4).sum(0))
    assert 0 <= acc[4] <= acc[:4].max() and acc[5] == 7
