"""`kernel.base_fn` of an autotuned or heuristics-wrapped kernel is the Python function under every
decorator, as in Triton (Triton's test_decorator.py::test_triton_heuristic failed with
"'Autotuner' object has no attribute 'base_fn'")."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % 2 == 0})
@triton.jit
def scaled_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * 2.0 if EVEN else x * 3.0, mask=offs < n)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_base_fn_is_the_function_under_the_decorators(executor):
    n = 101
    x = np.random.default_rng(4).standard_normal(n).astype(np.float32)
    y = np.full(n, np.nan, np.float32)
    launch(scaled_copy, lambda meta: (triton.cdiv(n, meta["BLOCK"]),), x, y, n, executor=executor)
    np.testing.assert_array_equal(y, x * 3.0)
    assert scaled_copy.base_fn.__name__ == "scaled_copy" and callable(scaled_copy.base_fn)
    assert scaled_copy.fn.base_fn is scaled_copy.base_fn      # the heuristics wrapper under the autotuner
