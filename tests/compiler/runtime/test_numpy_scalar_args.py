"""numpy scalars as kernel arguments (np.int64(10), np.int32, np.float32, np.bool_, ...): each is a runtime
scalar of its own dtype (compiler/runtime/specialize.py), on both executors. The MTIA executor used to
take any argument with a `.base` attribute for an allocation and crashed on numpy scalars, whose `.base`
is None (TypeError: int() argument must be ... not 'NoneType'); the interpreter ran them. A u64 past
2**63 (np.uint64, or a Python int) in a tile operation overflowed the simulator's int64 conversion."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch

RNG = np.random.default_rng(9)
N = 64


@triton.jit
def add_scalar(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + n)


@triton.jit
def negate_unless(x_ptr, out_ptr, keep, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.where(keep, x, -x))


SCALARS = [np.int64(10), np.int64(2**40 + 3), np.int64(-7), np.int32(-123456), np.int16(300), np.int8(-5),
           np.uint8(200), np.uint32(3_000_000_000), np.uint64(2**63 + 5), np.float32(1.5), np.float16(0.25)]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("scalar", SCALARS, ids=lambda s: f"{type(s).__name__}({s})")
def test_a_numpy_scalar_is_a_runtime_scalar_of_its_dtype(executor, scalar):
    dtype = scalar.dtype
    if dtype.kind == "f":
        x = RNG.standard_normal(N).astype(dtype)
    else:
        info, s = np.iinfo(dtype), int(scalar)        # x + scalar stays inside the dtype
        x = RNG.integers(max(info.min - min(s, 0), -100), min(info.max - max(s, 0), 100), N, dtype=dtype)
    out = np.zeros(N, dtype)
    if dtype.kind == "f":
        out[:] = np.nan
    else:
        out[:] = RNG.integers(0, 100, N)
    launch(add_scalar, (1,), x, out, scalar, BLOCK=N, executor=executor)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out, x + scalar)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("keep", [np.bool_(True), np.bool_(False)])
def test_a_numpy_bool_is_a_runtime_flag(executor, keep):
    x = RNG.standard_normal(N).astype(np.float32)
    out = np.full(N, np.nan, np.float32)
    launch(negate_unless, (1,), x, out, keep, BLOCK=N, executor=executor)
    np.testing.assert_array_equal(out, x if keep else -x)


def test_numpy_scalars_of_one_dtype_share_a_compiled_kernel():
    """A numpy scalar is specialised by its dtype (and divisibility by 16), not by its value."""
    x = RNG.standard_normal(N).astype(np.float32)
    out = np.full(N, np.nan, np.float32)
    before = add_scalar.compile_count
    for v in (3, 5, 7):
        add_scalar[(1,)](x, out, np.float32(v), BLOCK=N)
        np.testing.assert_array_equal(out, x + np.float32(v))
    assert add_scalar.compile_count - before <= 1
