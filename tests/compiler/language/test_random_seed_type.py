"""A random function's seed must be an integer, as Triton asserts (Triton's test_random.py::
test_seed_is_int): a float seed or an array (a pointer) compiled before, the pointer's address or the
float's conversion silently used as the seed."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def uniform(x_ptr, seed, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(x_ptr + offs, tl.rand(seed, offs))


@pytest.mark.parametrize("seed", [2.5, np.zeros(1, np.int32)], ids=["float", "pointer"])
def test_a_seed_that_is_not_an_integer_is_refused(seed):
    with pytest.raises(triton.CompilationError, match="the seed of a random function must be an integer"):
        uniform[(1,)](np.zeros(8, np.float32), seed, N=8, executor="interpreter")


@pytest.mark.parametrize("executor", EXECUTORS)
def test_integer_seeds_still_run(executor):
    x = np.full(8, np.nan, np.float32)
    launch(uniform, (1,), x, 123456789, N=8, executor=executor)
    assert ((0 <= x) & (x < 1)).all() and len(set(x.tolist())) == 8
