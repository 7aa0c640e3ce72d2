"""The walrus operator in kernels, as Triton 3.9 compiles it (upstream test_frontend.py's test_named_expr
cases were refused: "unsupported AST node type: NamedExpr"): `(x := v)` assigns as `x = v` does (a number
becomes a runtime i32 unless x was declared `tl.constexpr`) and is x's new value."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def walrus(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = (b := tl.load(x_ptr + offs) * 2)
    total = 0
    for k in range(3):
        if (t := total + 1) > k:
            total = t
    c = (d := 5)
    tl.static_assert(c.dtype == tl.int32 and d.dtype == tl.int32)
    e: tl.constexpr
    if (e := 7) != 7:
        tl.static_assert(False)
    tl.static_assert(isinstance(e.type, tl.constexpr_type))
    tl.store(out_ptr + offs, a + b + total + d + e)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_named_expressions(executor):
    x = np.random.default_rng(0).integers(-100, 100, 16).astype(np.int32)
    out = np.full(16, -1, np.int32)
    launch(walrus, (1,), x, out, executor=executor, N=16)
    np.testing.assert_array_equal(out, 4 * x + 3 + 5 + 7)


@triton.jit
def walrus_in_while(x_ptr, out_ptr, n):
    i = 0
    acc = 0.0
    while (j := i * 2) < n:
        acc += tl.load(x_ptr + j)
        i += 1
    tl.store(out_ptr, acc)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_name_bound_in_a_while_condition_is_not_the_bodys(executor):
    """Compiled Triton evaluates a while loop's condition in a region of its own: a name the condition
    binds is not defined in the body (Triton 3.6 on a GPU: "NameError('j is not defined')" at the body's
    use; only TRITON_INTERPRET=1, which runs the kernel as Python, accepts it). Ours says the same there."""
    from compiler.errors import CompilationError
    x = np.arange(16, dtype=np.float32)
    with pytest.raises(CompilationError, match="'j' is not defined") as e:
        launch(walrus_in_while, (1,), x, np.zeros(1, np.float32), 9, executor=executor)
    assert "acc += tl.load(x_ptr + j)" in str(e.value)
