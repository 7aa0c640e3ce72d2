"""Narrowing floats to float8e4nv / float8e5 saturates as GPU Triton does (cvt.rn.satfinite; upstream
test_typeconvert_downcast_clamping): values past the largest finite fp8, inf included, give +-448 / +-57344
in either rounding mode, NaN stays NaN. The fp8 casts used to overflow to NaN (e4nv) or inf (e5) on both
executors. Also: `triton.reinterpret` takes a torch dtype, as upstream's tests pass one."""
import ml_dtypes
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from tests.executors import EXECUTORS, launch

FP8 = {"e4nv": (tl.float8e4nv, ml_dtypes.float8_e4m3fn, 448.0), "e5": (tl.float8e5, ml_dtypes.float8_e5m2, 57344.0)}
SOURCES = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


@triton.jit
def _narrow(X, Y, N: tl.constexpr, DT: tl.constexpr, R: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(Y + o, tl.load(X + o).to(DT, fp_downcast_rounding=R))


@triton.jit
def _narrow_scalar(X, Y, DT: tl.constexpr):
    tl.store(Y, tl.load(X).to(DT))


def _inputs(src, top):
    rng = np.random.default_rng(7)
    big = min(float(np.finfo(src).max), 4 * top)
    x = np.concatenate([[np.inf, -np.inf, np.nan, top, -top, big, -big],
                        rng.uniform(-2 * top, 2 * top, 57)]).astype(src)
    return x


def _expected(x, fp8, top, rounding):
    w = np.clip(x.astype(np.float64), -top, top)        # np.clip keeps NaN
    y = w.astype(fp8)                                    # to nearest even
    if rounding == "rtz":                                # one ulp back where that moved away from zero
        away = np.abs(y.astype(np.float64)) > np.abs(w)
        bits = y.view(np.uint8)
        y = np.where(away, bits - 1, bits).astype(np.uint8).view(fp8)
    return y


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("rounding", [None, "rtne", "rtz"])
@pytest.mark.parametrize("dst", FP8)
@pytest.mark.parametrize("src", SOURCES)
def test_out_of_range_values_saturate_to_the_largest_finite_fp8(executor, src, dst, rounding):
    tdt, fp8, top = FP8[dst]
    x = _inputs(SOURCES[src], top)
    y = np.full(x.size, 0x7F, dtype=np.uint8).view(fp8)   # NaN in both formats
    launch(_narrow, (1,), x, y, x.size, tdt, rounding, executor=executor)
    expected = _expected(x, fp8, top, rounding)
    np.testing.assert_array_equal(y.view(np.uint8)[~np.isnan(x)], expected.view(np.uint8)[~np.isnan(x)])
    assert np.isnan(y.astype(np.float32)[np.isnan(x)]).all()
    assert np.abs(y.astype(np.float32)[:2]).tolist() == [top, top]   # +-inf


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dst", FP8)
def test_a_scalar_saturates_too(executor, dst):
    tdt, fp8, top = FP8[dst]
    for v in (np.inf, -3 * top, 1.5):
        x = np.array([v], dtype=np.float32)
        y = np.full(1, 0x7F, dtype=np.uint8).view(fp8)
        launch(_narrow_scalar, (1,), x, y, tdt, executor=executor)
        assert float(y[0]) == float(np.clip(v, -top, top).astype(fp8))


def test_reinterpret_takes_a_torch_dtype():
    torch = pytest.importorskip("torch")
    x = torch.full((64,), float("inf"), dtype=torch.float16)
    y = torch.empty(64, dtype=torch.float8_e4m3fn)
    _narrow[(1,)](triton.reinterpret(x, torch.float16), triton.reinterpret(y.view(torch.int8), torch.float8_e4m3fn),
                  64, tl.float8e4nv, "rtne", executor="interpreter")
    assert (y.float() == 448.0).all()
    with pytest.raises(TypeError, match="2-byte"):
        triton.reinterpret(x, torch.float32)
