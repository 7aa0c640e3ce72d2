"""Scalar (0-d) f16, bf16 and fp8 values on MTIA, whose control core holds such floats in f32 registers:
bitcasts to and from integers, fp8 loads and stores, and conversions, against the interpreter and
ml_dtypes. Found running upstream test_frontend.py's kernels with stores:
- a scalar f16 or bf16 bitcast to an integer gave 0 on MTIA, the bits of the f32 register's value
  moved as if they were the narrow type's (a silent wrong answer); an fp8 e4b15 -> f32 conversion,
  which Triton writes as integer bit operations, gave 0 the same way;
- a scalar fp8 store was refused on MTIA ("not supported by the control core"); the interpreter ran it.
An f64 scalar bitcast moved only 32 bits on MTIA (found with tl.atomic_store of f64). Outputs are poisoned
before every run."""
import ml_dtypes
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch

FP8 = ["float8e4nv", "float8e5", "float8e4b15", "float8e4b8", "float8e5b16"]


@triton.jit
def bitcast_scalars(src, bits_out, back_out, BITS: tl.constexpr, FLOAT: tl.constexpr):
    x = tl.load(src + 1)                          # a scalar load into a register
    b = x.to(BITS, bitcast=True)
    tl.store(bits_out, b)
    tl.store(bits_out + 1, (x * 2.0).to(BITS, bitcast=True))        # a computed value
    tl.store(back_out, (b + 1).to(FLOAT, bitcast=True))              # integer -> float


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("float_t, np_t", [("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16)])
def test_scalar_bitcasts_move_the_narrow_bits(executor, float_t, np_t):
    src = np.array([0.5, -2.25], np_t)
    bits = np.full(2, -1, np.int16)
    back = np.full(1, np.nan, np_t)
    launch(bitcast_scalars, (1,), src, bits, back, executor=executor, BITS=tl.int16, FLOAT=getattr(tl, float_t))
    want = np.array([-2.25, -4.5], np_t).view(np.int16)
    np.testing.assert_array_equal(bits, want)
    np.testing.assert_array_equal(back.view(np.int16), want[:1] + 1)


@triton.jit
def fp8_scalars(raw, out, FP8: tl.constexpr):
    tl.store(raw + 2, tl.full((), 1.5, FP8))                        # a constant stored as a scalar
    x = tl.load(raw + 1)
    tl.store(raw + 3, x)                                            # a loaded value stored back
    tl.store(out, x.to(tl.float32) * 2.0)                           # widened
    tl.store(raw + 4, (tl.load(out + 1) * 0.5).to(FP8))             # an f32 scalar narrowed


@pytest.mark.parametrize("fp8", FP8)
def test_fp8_scalars_agree_with_the_interpreter(fp8):
    runs = {}
    for executor in EXECUTORS:
        raw = np.array([0, 0x44, 0xAA, 0xAA, 0xAA], np.uint8)
        out = np.array([np.nan, 0.8125], np.float32)
        dt = getattr(tl, fp8)
        launch(fp8_scalars, (1,), triton.reinterpret(raw, dt), out, executor=executor, FP8=dt)
        runs[executor] = raw.copy(), out.copy()
    (raw_i, out_i), (raw_m, out_m) = runs["interpreter"], runs["mtia"]
    np.testing.assert_array_equal(raw_m, raw_i)
    np.testing.assert_array_equal(out_m[:1], out_i[:1])
    assert raw_i[3] == 0x44 and not np.isnan(out_i[0])


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("fp8, np_t", [("float8e4nv", ml_dtypes.float8_e4m3fn), ("float8e5", ml_dtypes.float8_e5m2)])
def test_fp8_scalars_against_ml_dtypes(executor, fp8, np_t):
    raw = np.array([0, 0x44, 0xAA, 0xAA, 0xAA], np.uint8)
    out = np.array([np.nan, 0.8125], np.float32)
    launch(fp8_scalars, (1,), triton.reinterpret(raw, getattr(tl, fp8)), out, executor=executor, FP8=getattr(tl, fp8))
    x = raw[1:2].view(np_t).astype(np.float32)[0]
    assert raw[2] == np.array([1.5], np_t).view(np.uint8)[0]
    assert raw[3] == 0x44 and out[0] == x * 2
    assert raw[4] == np.array([0.8125 * 0.5], np.float32).astype(np_t).view(np.uint8)[0]


@triton.jit
def bitcast_f64(src, bits_out, back_out):
    b = tl.load(src + 1).to(tl.int64, bitcast=True)
    tl.store(bits_out, b)
    tl.store(back_out, (b + 1).to(tl.float64, bitcast=True))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_scalar_f64_bitcasts_move_all_64_bits(executor):
    """An f64 scalar bitcast moved 32 bits on MTIA (fmv.x.w); it takes fmv.x.d / fmv.d.x."""
    src = np.array([1.5, -2.25e100])
    bits, back = np.full(1, -1, np.int64), np.full(1, np.nan)
    launch(bitcast_f64, (1,), src, bits, back, executor=executor)
    assert bits[0] == src[1:].view(np.int64)[0] and back.view(np.int64)[0] == bits[0] + 1
