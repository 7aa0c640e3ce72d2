"""An early `return` in a runtime if nested in a compile-time if, on both executors.

The code after the compile-time if must still run when the runtime condition is false (Triton's
test_if_return[dynamic]); the frontend dropped it, a silent wrong answer on both executors. The
output is poisoned with 7, which neither path writes.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def exit_early(flag_ptr, out_ptr, mode: tl.constexpr):
    if mode == "dynamic":
        if tl.load(flag_ptr):
            tl.store(out_ptr, 10)
            return
    else:
        tl.store(out_ptr, 20)
        return
    tl.store(out_ptr, 30)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("mode, flag, expected", [("dynamic", 1, 10), ("dynamic", 0, 30), ("static", 0, 20)])
def test_the_rest_of_the_kernel_runs_when_a_nested_early_return_is_not_taken(executor, mode, flag, expected):
    out = np.full(1, 7, np.int32)
    launch(exit_early, (1,), np.array([flag], np.int32), out, mode, executor=executor)
    assert out[0] == expected


@triton.jit
def _sign_and_value(x):
    if x < 0:
        return 1, x
    else:
        return 0, x


@triton.jit
def tuple_of_numbers_returned_under_a_runtime_if(src, out):
    c = _sign_and_value(tl.load(src))             # runtime if: the numbers become i32 scalars
    tl.static_assert(c[0].dtype == tl.int32)
    tl.store(out, c[0] * 100 + c[1])
    b: tl.constexpr = _sign_and_value(-1)        # compile-time if: a constexpr tuple
    tl.static_assert(b[0] == 1 and b[1] == -1)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("x", [-5, 7])
def test_a_tuple_of_different_numbers_returned_under_a_runtime_if(executor, x):
    """`return 1, x` / `return 0, x` in the branches of a runtime if was refused ("Mismatched type");
    Triton promotes the numbers to i32, as it does a lone number (upstream test_return_promotion)."""
    out = np.full(1, -1, np.int32)
    launch(tuple_of_numbers_returned_under_a_runtime_if, (1,), np.array([x], np.int32), out, executor=executor)
    assert out[0] == (100 if x < 0 else 0) + x
