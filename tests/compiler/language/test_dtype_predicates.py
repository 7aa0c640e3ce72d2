"""Triton's dtype has a predicate per scalar type (`is_int64()`, `is_uint32()`, `is_fp8e4nv()`, ...),
which kernels use to pick a code path; ours lacked the integer widths and the fp8 formats. Each is true
for its type only; a pointer or a block type answers False, as Triton's pointer_type and block_type do."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch

NAMES = ["int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32", "fp64"]


@pytest.mark.parametrize("name", NAMES)
def test_each_scalar_type_answers_its_own_predicate_only(name):
    t = tl.dtype(name)
    assert [n for n in NAMES if getattr(t, f"is_{n}")()] == [name]
    for other in (tl.pointer_type(t), tl.block_type(t, [4])):
        assert not any(getattr(other, f"is_{n}")() for n in NAMES), other
        assert not (other.is_bool() or other.is_int_signed() or other.is_int_unsigned() or other.is_fp8()
                    or other.is_standard_floating())
    assert t.is_dtype(name) and not t.is_dtype("pointer<fp32>") and not t.is_const()


@triton.jit
def by_width(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    if x.dtype.is_int64():
        y = x * 3
    elif x.dtype.is_uint64():
        y = x + 5
    elif x.dtype.is_int16() or x.dtype.is_uint8():
        y = x - 1
    else:
        y = x
    tl.store(out_ptr + offs, y)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("np_dtype, change", [(np.int64, lambda x: x * 3), (np.uint64, lambda x: x + 5),
                                              (np.int16, lambda x: x - 1), (np.uint8, lambda x: x - 1),
                                              (np.int32, lambda x: x)])
def test_a_kernel_picks_its_code_by_the_width_predicates(executor, np_dtype, change):
    x = np.random.default_rng(4).integers(1, 100, 16).astype(np_dtype)
    out = np.zeros_like(x)
    out[:] = np.iinfo(np_dtype).max                       # poison: no path writes it
    launch(by_width, (1,), x, out, 16, executor=executor)
    np.testing.assert_array_equal(out, change(x))
