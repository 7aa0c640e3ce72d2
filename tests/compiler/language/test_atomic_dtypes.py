"""Which element types `tl.atomic_*` takes, as Triton 3.9's front end decides: 16-bit floats (f16 and bf16) only
add, 16-bit and narrower integers nothing. bf16 adds land on both executors in program order, each rounded to
bf16 as it lands."""
import ml_dtypes
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch

bf16 = ml_dtypes.bfloat16


@triton.jit
def add_into_four(out_ptr, x_ptr, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    tl.atomic_add(out_ptr + offs % 4, tl.load(x_ptr + offs))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_bf16_atomic_add_rounds_each_add_in_program_order(executor):
    x = np.random.default_rng(3).standard_normal(32).astype(bf16)
    out = np.random.default_rng(4).standard_normal(4).astype(bf16)
    want = out.copy()
    for i in range(32):                     # programs in order, a block's elements in index order
        want[i % 4] = bf16(np.float32(want[i % 4]) + np.float32(x[i]))
    launch(add_into_four, (2,), out, x, N=16, executor=executor)
    np.testing.assert_array_equal(out.astype(np.float32), want.astype(np.float32))


@triton.jit
def max_into(out_ptr, x_ptr, N: tl.constexpr):
    tl.atomic_max(out_ptr + tl.arange(0, N), tl.load(x_ptr + tl.arange(0, N)))


@pytest.mark.parametrize("dtype,words", [(np.float16, "atomic_max does not support fp16"),
                                         (bf16, "atomic_max does not support bf16"),
                                         (np.int16, "atomic_max does not support int16")])
def test_16_bit_atomics_other_than_float_add_are_refused_at_the_kernel_line(dtype, words):
    x = np.ones(8, dtype)
    with pytest.raises(triton.CompilationError, match=words) as e:
        launch(max_into, (1,), x.copy(), x, N=8, executor="interpreter")
    assert "tl.atomic_max(" in str(e.value)
