"""What a @jit helper gets for its arguments, and where its errors are reported, as in Triton: a dtype
argument is a constexpr there (`DT.value` is the dtype; it was the bare dtype, and `.value` failed),
and an error inside the helper is reported at the caller's line, with the helper's line below it (it
named the helper's line only, though the cause is often what the call passed)."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def _cast_by_value(x, DT):
    return x.to(DT.value)


@triton.jit
def _cast_annotated(x, DT: tl.constexpr):
    return x.to(DT.value)


@triton.jit
def cast_twice(x_ptr, a_ptr, b_ptr, N: tl.constexpr, OUT: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(a_ptr + offs, _cast_by_value(x, OUT))           # a constexpr parameter's dtype
    tl.store(b_ptr + offs, _cast_annotated(x, tl.int16))     # a dtype written in the kernel


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_dtype_passed_to_a_helper_is_a_constexpr_there(executor):
    x = (np.random.default_rng(5).standard_normal(16) * 50).astype(np.float32)
    a = np.full(16, np.nan, np.float16)
    b = np.full(16, -1, np.int16)
    launch(cast_twice, (1,), x, a, b, 16, OUT=tl.float16, executor=executor)
    np.testing.assert_array_equal(a, x.astype(np.float16))
    np.testing.assert_array_equal(b, x.astype(np.int16))          # truncation toward zero, as Triton casts


@triton.jit
def _inner(x):
    return x + tl.arange(0, 8)          # a block of 4 and one of 8: the error is here


@triton.jit
def _outer(x):
    return _inner(x) * 2


@triton.jit
def add_mismatched(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    tl.store(out_ptr + tl.arange(0, 4), _outer(x))


def test_an_error_in_a_helper_is_reported_at_the_call_with_each_helpers_line():
    with pytest.raises(triton.CompilationError, match="incompatible dimensions") as e:
        add_mismatched[(1,)](np.zeros(4, np.float32), np.zeros(4, np.float32), executor="interpreter")
    lines = str(e.value).splitlines()
    assert "error:" in lines[0] and lines[1].strip() == "tl.store(out_ptr + tl.arange(0, 4), _outer(x))"
    assert lines[2].strip() == "^" and lines[2].index("^") == lines[1].index("_outer(x)")
    assert lines[3].endswith("in _outer()") and lines[4].strip() == "return _inner(x) * 2"
    assert lines[6].endswith("in _inner()") and lines[7].strip().startswith("return x + tl.arange(0, 8)")
    assert e.value.line == add_mismatched.fn.__code__.co_firstlineno + 3       # the kernel's own line
