"""A runtime value assigned to a local annotated `tl.constexpr` stays a runtime value, as in Triton
(its code generator keeps a tensor as it is; the annotation only keeps a number compile-time). Both
forms: `x: tl.constexpr = value` and a bare `x: tl.constexpr` before `x = value`. We refused both
("Cannot assign a runtime value to constexpr")."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def scale_and_shift(x_ptr, params_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    scale: tl.constexpr = tl.load(params_ptr)         # runtime: stays runtime
    shift: tl.constexpr
    shift = tl.load(params_ptr + 1)                   # runtime too, through the bare declaration
    width: tl.constexpr = N // 2                      # a number: compile-time, usable as a block size
    y = tl.load(x_ptr + offs) * scale + shift
    tl.store(out_ptr + offs, y)
    tl.store(out_ptr + N + tl.arange(0, width), tl.full((width,), width, tl.float32))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_runtime_values_in_constexpr_annotated_locals_stay_runtime(executor):
    rng = np.random.default_rng(7)
    x = rng.standard_normal(32).astype(np.float32)
    params = rng.standard_normal(2).astype(np.float32)
    out = np.full(48, np.nan, np.float32)
    launch(scale_and_shift, (1,), x, params, out, 32, executor=executor)
    np.testing.assert_allclose(out[:32], x * params[0] + params[1], rtol=1e-6)
    np.testing.assert_array_equal(out[32:], 16.0)
