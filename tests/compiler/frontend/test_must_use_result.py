"""`triton.must_use_result` marks a @jit function whose result a kernel must use, optionally with a
reason (Triton's test_compile_errors.py could not even be imported: `@triton.must_use_result("...")`
raised TypeError, since ours took only a function, and a dropped result was never refused)."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.must_use_result("It is a pure function.")
@triton.jit
def squared_plus_one(x):
    return x * x + 1.0


@triton.must_use_result
@triton.jit
def halved(x):
    return x * 0.5


@triton.jit
def uses_the_results(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, halved(squared_plus_one(x)))


@triton.jit
def drops_a_result(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    squared_plus_one(x)
    tl.store(y_ptr + offs, x)


@triton.jit
def drops_an_unexplained_result(x_ptr, N: tl.constexpr):
    halved(tl.load(x_ptr + tl.arange(0, N)))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_used_result_compiles_and_runs(executor):
    x = np.random.default_rng(8).standard_normal(16).astype(np.float32)
    y = np.full(16, np.nan, np.float32)
    launch(uses_the_results, (1,), x, y, N=16, executor=executor)
    np.testing.assert_allclose(y, (x * x + 1.0) * 0.5, rtol=1e-6)


def test_a_dropped_result_is_refused_at_its_line_with_the_reason():
    x = np.zeros(16, np.float32)
    with pytest.raises(triton.CompilationError) as e:
        drops_a_result[(1,)](x, x.copy(), N=16, executor="interpreter")
    assert str(e.value).endswith("The result of squared_plus_one is not being used. It is a pure function.\n"
                                 "    squared_plus_one(x)\n    ^")
    with pytest.raises(triton.CompilationError, match=r"The result of halved is not being used\.\n"):
        drops_an_unexplained_result[(1,)](x, N=16, executor="interpreter")
