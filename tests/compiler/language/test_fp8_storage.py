"""The storage-only fp8 formats (tl.float8e4b15, tl.float8e4b8, tl.float8e5b16) and round-toward-zero
narrowing, on both executors, against references written here: ml_dtypes' float8_e4m3fnuz /
float8_e5m2fnuz, and for Triton's e4b15 its value formula and its rounding (nearest, ties away from
zero, after an f32 -> f16 rounding toward zero, magnitudes capped at 1.75). Outputs are poisoned."""
import ml_dtypes
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch

FNUZ = [(tl.float8e4b8, ml_dtypes.float8_e4m3fnuz), (tl.float8e5b16, ml_dtypes.float8_e5m2fnuz)]
CODES = np.arange(256, dtype=np.uint8)
BLOCK = 1024


def e4b15_values(codes) -> np.ndarray:
    """What each e4b15 code means: e4m3 with bias 15, every code finite (0x7f is 1.875)."""
    c = codes.astype(np.int64)
    sign, exp, man = np.where(c & 0x80, -1.0, 1.0), (c >> 3) & 15, c & 7
    return sign * np.where(exp == 0, 2.0 ** -14 * man / 8, 2.0 ** (exp - 15) * (1 + man / 8))


def f16_toward_zero(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        r = x.astype(np.float16)
        away = np.abs(r.astype(np.float64)) > np.abs(x.astype(np.float64))
    return np.where(away, np.nextafter(r, np.float16(0)), r)


def e4b15_codes(x: np.ndarray) -> np.ndarray:
    """Triton's narrowing to e4b15: f16 toward zero, then the nearest of codes 0..0x7e by magnitude
    (ties away from zero; 1.75 and beyond, inf and NaN, give 0x7e), the sign kept."""
    h = f16_toward_zero(x)
    mags = e4b15_values(np.arange(0x7F))
    a = np.abs(h.astype(np.float64))
    a = np.where(np.isnan(a) | (a > 1.75), 1.75, a)
    below = np.searchsorted(mags, a, side="right") - 1          # the largest magnitude <= a
    above = np.minimum(below + 1, 0x7E)
    up = (a - mags[below]) >= (mags[above] - a)
    code = np.where(up & (above != below), above, below)
    return (code | np.where(np.signbit(h), 0x80, 0)).astype(np.uint8)


def f32_inputs() -> np.ndarray:
    rng = np.random.default_rng(5)
    every_f16 = np.arange(0, 65536, 13, dtype=np.uint16).view(np.float16).astype(np.float32)
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e30, -1e30, 1e-30, 232, 248, 240, 61440, 57344,
                         30720, 1.75, 1.8125, 1.875, -1.79], np.float32)
    x = np.concatenate([specials, every_f16, rng.standard_normal(1500).astype(np.float32) * 40,
                        rng.standard_normal(500).astype(np.float32) * 1e-3])
    return np.concatenate([x, np.zeros(-len(x) % BLOCK, np.float32)])


@triton.jit
def narrow(x_ptr, bits_ptr, DT: tl.constexpr, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(bits_ptr + offs, tl.load(x_ptr + offs).to(DT).to(tl.uint8, bitcast=True))


@triton.jit
def widen(bits_ptr, y_ptr, DT: tl.constexpr):
    offs = tl.arange(0, 256)
    tl.store(y_ptr + offs, tl.load(bits_ptr + offs).to(DT, bitcast=True).to(tl.float32))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dt, ref", FNUZ)
def test_fnuz_conversions_match_ml_dtypes_bit_for_bit(executor, dt, ref):
    y = np.full(256, -7.0, np.float32)
    launch(widen, (1,), CODES, y, dt, executor=executor)
    want = CODES.view(ref).astype(np.float32)
    np.testing.assert_array_equal(y, want)          # NaN (code 0x80 only) where ml_dtypes has NaN
    x = f32_inputs()
    bits = np.full(len(x), 7, np.uint8)
    launch(narrow, (len(x) // BLOCK,), x, bits, dt, BLOCK, executor=executor)
    np.testing.assert_array_equal(bits, x.astype(ref).view(np.uint8))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_e4b15_conversions_are_tritons(executor):
    y = np.full(256, -7.0, np.float32)
    launch(widen, (1,), CODES, y, tl.float8e4b15, executor=executor)
    np.testing.assert_array_equal(y, e4b15_values(CODES).astype(np.float32))
    x = f32_inputs()
    bits = np.full(len(x), 7, np.uint8)
    launch(narrow, (len(x) // BLOCK,), x, bits, tl.float8e4b15, BLOCK, executor=executor)
    np.testing.assert_array_equal(bits, e4b15_codes(x))
    assert (bits & 0x7F).max() == 0x7E          # 0x7f is a value (1.875) Triton's narrowing never makes


@triton.jit
def narrow_toward_zero(x_ptr, y_ptr, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs).to(tl.float16, fp_downcast_rounding="rtz"))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_f32_to_f16_rounds_toward_zero_when_asked(executor):
    # MTIA ignored the rounding mode (rounded to nearest): a silent wrong answer
    x = f32_inputs()
    y = np.full(len(x), np.nan, np.float16)
    launch(narrow_toward_zero, (len(x) // BLOCK,), x, y, BLOCK, executor=executor)
    want = f16_toward_zero(x)
    np.testing.assert_array_equal(y.view(np.uint16)[~np.isnan(x)], want.view(np.uint16)[~np.isnan(x)])
    assert np.isnan(y[np.isnan(x)]).all()
    with np.errstate(over="ignore"):
        assert (y != x.astype(np.float16)).sum() > 100      # the two roundings differ here


@triton.jit
def storage_ops(a_ptr, b_ptr, mask_ptr, abs_ptr, sel_ptr, full_ptr, back_ptr, dot_ptr, DT: tl.constexpr):
    r = tl.arange(0, 16)
    offs = r[:, None] * 16 + r[None, :]
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    keep = tl.load(mask_ptr + offs) != 0
    tl.store(abs_ptr + offs, tl.abs(a))
    tl.store(sel_ptr + offs, tl.where(keep, a, 0.375))                  # a number converted to DT
    tl.store(full_ptr + offs, tl.full((16, 16), -1.5, DT))
    tl.store(back_ptr + offs, tl.load(a_ptr + offs, mask=keep, other=1.25).to(tl.float32) * 2.0)
    tl.store(dot_ptr + offs, tl.dot(a, b))                              # widened to f16, exactly


def code_values(dt, codes):
    return e4b15_values(codes) if dt == tl.float8e4b15 else codes.view(dict(FNUZ)[dt]).astype(np.float64)


def storage_array(dt, codes):
    return triton.reinterpret(codes, dt) if dt == tl.float8e4b15 else codes.view(dict(FNUZ)[dt])


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dt", [tl.float8e4b15, tl.float8e4b8, tl.float8e5b16])
def test_storage_fp8_values_move_and_widen(executor, dt):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 256, (16, 16)).astype(np.uint8)
    a[a == 0x80] = 0x81                    # (the fnuz NaN: kept out of the dot)
    b = rng.integers(0x18, 0x30, (16, 16)).astype(np.uint8) | (rng.integers(0, 2, (16, 16)) << 7).astype(np.uint8)
    keep = rng.integers(0, 2, (16, 16)).astype(np.int8)
    outs = [np.full((16, 16), 0x55, np.uint8) for _ in range(3)]
    back = np.full((16, 16), np.nan, np.float32)
    dot = np.full((16, 16), np.nan, np.float32)
    launch(storage_ops, (1,), storage_array(dt, a), storage_array(dt, b), keep,
           *[storage_array(dt, o) for o in outs], back, dot, dt, executor=executor)
    av, bv = code_values(dt, a), code_values(dt, b)
    abs_bits, sel_bits, full_bits = outs
    np.testing.assert_array_equal(code_values(dt, abs_bits), np.abs(av))
    code_of = {v: c for c, v in zip(CODES, code_values(dt, CODES))}     # (both numbers are exact in each)
    np.testing.assert_array_equal(sel_bits, np.where(keep != 0, a, code_of[0.375]))
    assert (full_bits == code_of[-1.5]).all()
    np.testing.assert_array_equal(back, np.where(keep != 0, av, 1.25).astype(np.float32) * 2)
    want = av.astype(np.float16).astype(np.float64) @ bv.astype(np.float16).astype(np.float64)
    # products of f16 values are exact in f32; 16 of them summed in f32 round by at most 16 ulps of the sum
    assert (np.abs(dot - want) <= 16 * 2.0 ** -24 * (np.abs(av) @ np.abs(bv))).all()


@triton.jit
def add_in_place(x_ptr, DT: tl.constexpr):
    x = tl.load(x_ptr.to(tl.pointer_type(DT)))
    tl.store(x_ptr.to(tl.pointer_type(DT)), x + x)


@pytest.mark.parametrize("dt", [tl.float8e4b15, tl.float8e4b8, tl.float8e5b16])
def test_arithmetic_on_a_storage_format_is_refused_at_its_line(dt):
    with pytest.raises(triton.CompilationError, match=f"on {dt}: {dt} values are only loaded, stored, moved and "
                                                      r"converted here .* convert with \.to\(tl\.float16\)") as e:
        add_in_place[(1,)](np.zeros(1, np.uint8), dt, executor="interpreter")
    assert "x + x" in str(e.value)


def test_the_formats_describe_themselves_as_tritons_do():
    assert [(t.fp_mantissa_width, t.exponent_bias, t.primitive_bitwidth, t.is_fp8(), str(t))
            for t in (tl.float8e4b15, tl.float8e4b8, tl.float8e5b16)] == \
        [(3, 15, 8, True, "fp8e4b15"), (3, 8, 8, True, "fp8e4b8"), (2, 16, 8, True, "fp8e5b16")]
    assert tl.dtype("fp8e4b15") is tl.float8e4b15 and tl.dtype("fp8e5b16") is tl.float8e5b16
