"""`*args` in a @jit helper, as Triton compiles it (upstream test_frontend.py's test_starred_varargs was
refused: "cannot take *args or **kwargs"): the positional arguments past the named ones arrive as a tuple,
from a call with a starred constexpr tuple or with values. A kernel launched from the host with *args is
refused at the launch."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def weighted_sum(weight, *vals):
    s = vals[0] * 0
    for i in tl.static_range(len(vals)):
        s += vals[i] * weight
    return s


@triton.jit
def uses_varargs(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    dims: tl.constexpr = (1, 2)
    tl.store(out_ptr + offs, weighted_sum(3, x, x * 2, x - 1) + weighted_sum(1, *dims))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_extra_positional_arguments_arrive_as_a_tuple(executor):
    x = np.random.default_rng(0).integers(-50, 50, 16).astype(np.int32)
    out = np.full(16, -1, np.int32)
    launch(uses_varargs, (1,), x, out, executor=executor, N=16)
    np.testing.assert_array_equal(out, 3 * (x + 2 * x + x - 1) + 3)


@triton.jit
def launched_with_varargs(*ptrs):
    tl.store(ptrs[0], 1)


def test_a_launched_kernel_cannot_take_varargs():
    with pytest.raises(TypeError, match=r"takes \*ptrs: a @jit function with \*args can be called from a kernel"):
        launched_with_varargs[(1,)](np.zeros(1, np.int32), executor="interpreter")
