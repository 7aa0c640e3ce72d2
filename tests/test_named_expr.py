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
