"""A bare `d0: tl.constexpr` declares that the next assignment to d0 keeps a compile-time value, as
Triton's code generator does (its pending annotations): `d0, d1 = shape` of a constexpr tuple then
gives shape constants (Triton's test_tuple.py::test_constexpr_tuple_arg_unpack failed with
"int() argument must be ... not 'tensor'" on both executors). Without the declaration an assigned
number is a runtime scalar, as in Triton."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def tile_from_shape(x_ptr, out_ptr, SHAPE: tl.constexpr):
    rows: tl.constexpr
    cols: tl.constexpr
    rows, cols = SHAPE
    total: tl.constexpr
    total = rows * cols
    offs = tl.arange(0, rows)[:, None] * cols + tl.arange(0, cols)[None, :]
    x = tl.load(x_ptr + offs) + tl.full((rows, cols), 1.0, tl.float32)
    tl.store(out_ptr + tl.arange(0, total), tl.reshape(x, (total,)))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape", [(4, 8), (16, 2)])
def test_declared_constexprs_take_a_constexpr_tuples_elements(executor, shape):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    out = np.full(x.size, np.nan, np.float32)
    launch(tile_from_shape, (1,), x, out, SHAPE=shape, executor=executor)
    np.testing.assert_array_equal(out, (x + 1.0).ravel())
