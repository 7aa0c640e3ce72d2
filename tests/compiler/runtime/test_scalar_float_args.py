"""A Python float kernel argument is an fp32 scalar (Triton's specialisation): both executors round it
to fp32 before any use. The MTIA executor used to put the argument's full double into the control
core's f-register, so a scalar `x * scale` (scale = 1/6) was the double product rounded once: one
value in three differed in its last bit from the interpreter's fp32 product (found in Liger-Kernel's
TVD loss, `loss_sum * scale`). So does a numpy float64, which is a Python float."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def scalar_scale(x_ptr, out_ptr, scale):
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, tl.load(x_ptr + pid) * scale)


@triton.jit
def store_scale(out_ptr, scale):
    tl.store(out_ptr + tl.program_id(0), scale)


X = np.random.default_rng(5).random(96).astype(np.float32) + np.float32(0.5)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_python_float_is_rounded_to_fp32_first(executor):
    out = np.full(96, np.nan, np.float32)
    launch(scalar_scale, (96,), X, out, 1.0 / 6, executor=executor)
    want = X * np.float32(1.0 / 6)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))
    assert not np.array_equal(want, (X.astype(np.float64) / 6).astype(np.float32))   # the test can tell


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("scale", [1.0 / 6, np.float64(0.1), 3.0e38 * 1.1])
def test_the_kernel_reads_the_fp32_value(executor, scale):
    """np.float64 is a Python float, so Triton types it fp32 too; past fp32's range it is inf."""
    out = np.full(4, np.nan, np.float32)
    launch(store_scale, (4,), out, scale, executor=executor)
    with np.errstate(over="ignore"):
        want = np.float32(scale)
    assert np.array_equal(out.view(np.uint32), np.full(4, want, np.float32).view(np.uint32))
