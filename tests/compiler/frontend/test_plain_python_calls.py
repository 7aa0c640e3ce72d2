"""Plain Python functions called in a kernel run at compile time on compile-time values, as Triton's code
generator calls them: `range(math.ceil(BLOCK / STEP))` (upstream's test_vecadd.py loops that way) and a
user's own helper on constexprs. Called with a tensor, such a function is refused at the kernel line
with what to do. Found running upstream test_vecadd.py, where every case was refused on both executors."""
import math

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.errors import CompilationError

from executors import EXECUTORS, launch


def steps_of(block, step):            # a host helper: no @jit
    return -(-block // step)


@triton.jit
def add_one_in_steps(x_ptr, y_ptr, n, BLOCK: tl.constexpr, STEP: tl.constexpr, HELPER: tl.constexpr):
    count = steps_of(BLOCK, STEP) if HELPER else math.ceil(BLOCK / STEP)
    for i in range(count):
        offs = i * STEP + tl.arange(0, STEP)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("helper", [False, True])
def test_a_plain_function_on_constexprs_runs_at_compile_time(executor, helper):
    n = 127
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    launch(add_one_in_steps, (1,), x, y, n, executor=executor, BLOCK=n, STEP=32, HELPER=helper)
    np.testing.assert_array_equal(y, x + 1)


def double(v):
    return v * 2


@triton.jit
def double_a_tensor(x_ptr):
    tl.store(x_ptr, double(tl.load(x_ptr)))


def test_a_plain_function_on_a_tensor_is_refused_at_its_line():
    with pytest.raises(CompilationError, match=r"test_plain_python_calls.py:\d+:\d+: error: 'double' is a plain "
                                               r"Python function called with a tensor(.|\n)*@triton.jit"):
        double_a_tensor[(1,)](np.ones(1, np.float32), executor="interpreter")
