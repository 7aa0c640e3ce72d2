"""Launch options as Triton checks them: num_warps must be a power of 2 (each Triton GPU backend asserts
"num_warps must be a power of 2" when it reads its options; None means the default), and `executor=`
must name a registered executor. num_warps=3 used to be accepted, and a misspelt executor raised a bare
KeyError after the kernel had compiled."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.runtime import registered_executors

from executors import EXECUTORS, launch

RNG = np.random.default_rng(15)


@triton.jit
def double(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2.0)


def _run(executor, **options):
    x = RNG.standard_normal(32).astype(np.float32)
    out = np.full(32, np.nan, np.float32)
    launch(double, (1,), x, out, BLOCK=32, executor=executor, **options)
    return x * np.float32(2), out


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("num_warps", [1, 2, 4, 8, 16, 32, None])
def test_num_warps_a_power_of_2_is_accepted(executor, num_warps):
    want, out = _run(executor, num_warps=num_warps)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("num_warps", [3, 6, 0, -4, 4.0, "4"])
def test_num_warps_not_a_power_of_2_is_refused(executor, num_warps):
    with pytest.raises(ValueError, match=f"num_warps must be a power of 2, got num_warps={num_warps!r}"):
        _run(executor, num_warps=num_warps)


def test_an_autotune_config_of_3_warps_is_refused():
    kernel = triton.autotune([triton.Config({}, num_warps=3)], key=[])(double)
    x = RNG.standard_normal(32).astype(np.float32)
    with pytest.raises(ValueError, match="num_warps must be a power of 2, got num_warps=3"):
        kernel[(1,)](x, np.empty_like(x), BLOCK=32, executor="interpreter")


def test_an_unknown_executor_is_named_with_the_registered_ones():
    x = RNG.standard_normal(32).astype(np.float32)
    out = np.full(32, np.nan, np.float32)
    before = double.compile_count
    with pytest.raises(ValueError) as e:
        double[(1,)](x, out, BLOCK=64, executor="gpu")
    msg = str(e.value)
    assert msg.startswith("executor='gpu' is not an executor; the registered ones are "), msg
    assert all(repr(name) in msg for name in registered_executors()) and "'mtia'" in msg, msg
    assert isinstance(e.value, KeyError)            # what it used to be, for code that caught that
    assert double.compile_count == before           # refused before compiling
    assert np.isnan(out).all()
    with pytest.raises(ValueError, match="executor='gpu' is not an executor"):
        triton.set_executor("gpu")
