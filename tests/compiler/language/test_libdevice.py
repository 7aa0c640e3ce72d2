"""`tl.extra.libdevice` against numpy, on the interpreter and on MTIA (mtia-small).

Inputs are random over each function's domain (uniform, plus magnitudes spread over many decades
where small arguments are the hard case) and the special values C defines the function at (+-0,
+-inf, NaN, the smallest normal, a subnormal); outputs are poisoned with NaN first. The reference is
numpy in float64, and the tolerance is stated per function in ulps of the tested dtype (ULPS): 0 for
the exact ones, 2-4 for the native instructions and the composed formulas (measured: <= 2.5 ulp).
erfc in f64 is the exception: its Chebyshev fit holds 1.2e-7 relative above 0.5 (see composed.py).
Where the reference is a zero, its sign must match too.
"""
import math

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
import compiler.runtime.mtia_executor  # noqa: F401  (registers the "mtia" executor)
from compiler.errors import CompilationError
from compiler.language.extra import libdevice

from executors import EXECUTORS, launch

# launched on the reference interpreter unless MTIASIM_EXECUTOR names another (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("interpreter_by_default")

FLOATS = [np.float32, np.float64]
RNG = np.random.default_rng(7)
N = 256


def specials(dt):
    f = np.finfo(dt)
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, f.tiny, -f.tiny, f.tiny / 8, 1.0, -1.0, 0.5, -0.5],
                    dt)


def inputs(dt, lo, hi, spread=False):
    """N values: specials, uniform in [lo, hi], and (spread) magnitudes 10^-12..10^0 inside the domain."""
    sp = specials(dt)
    n = N - len(sp)
    x = RNG.uniform(lo, hi, n)
    if spread:
        k = n // 2
        mag = 10.0 ** RNG.uniform(-12, 0, k) * min(abs(lo), abs(hi), 1.0)
        x[:k] = np.where(RNG.integers(0, 2, k) == 1, mag, -mag) if lo < 0 else mag
    return np.concatenate([sp, x]).astype(dt)


def poisoned(n, dt):
    return np.full(n, np.nan, dt) if np.dtype(dt).kind == "f" else np.full(n, np.iinfo(dt).min, dt)


def check_close(got, want, dt, ulps):
    with np.errstate(all="ignore"):
        want = np.asarray(want, np.float64).astype(dt).astype(np.float64)    # the correctly rounded result
    eps = np.finfo(dt).eps
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=max(ulps, 0.5) * eps if ulps else 0,
                               atol=np.finfo(dt).tiny if ulps else 0, equal_nan=True)
    zero = want == 0
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]), err_msg="sign of a zero result")


def _round_half_away(x):
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)


_erfc = np.vectorize(math.erfc, otypes=[np.float64])

# name: (numpy reference, domain lo, hi, spread small magnitudes, ulps for f32, ulps for f64)
UNARY = {
    "tanh": (np.tanh, -20, 20, True, 2, 2),
    "rint": (np.rint, -1e3, 1e3, False, 0, 0),
    "nearbyint": (np.rint, -1e3, 1e3, False, 0, 0),
    "trunc": (np.trunc, -1e3, 1e3, False, 0, 0),
    "round": (_round_half_away, -1e3, 1e3, False, 0, 0),
    "floor": (np.floor, -1e3, 1e3, False, 0, 0),
    "ceil": (np.ceil, -1e3, 1e3, False, 0, 0),
    "fabs": (np.abs, -1e3, 1e3, False, 0, 0),
    "log1p": (np.log1p, -0.999, 1e4, True, 4, 4),
    "expm1": (np.expm1, -30, 80, True, 4, 4),
    "exp10": (lambda x: np.power(10.0, x), -37, 38, False, 4, 4),
    "log10": (np.log10, 1e-30, 1e30, False, 4, 4),
    "sinh": (np.sinh, -88, 88, True, 4, 4),
    "cosh": (np.cosh, -88, 88, False, 4, 4),
    "tan": (np.tan, -50, 50, True, 4, 4),
    "asin": (np.arcsin, -1, 1, True, 4, 4),
    "acos": (np.arccos, -1, 1, False, 4, 4),
    "atan": (np.arctan, -100, 100, True, 2, 2),
    "asinh": (np.arcsinh, -1e20, 1e20, True, 4, 4),
    "acosh": (np.arccosh, 1, 1e20, False, 4, 4),
    "atanh": (np.arctanh, -1, 1, True, 4, 4),
    "erfc": (_erfc, -4, 10, False, 4, 1.2e-7 / np.finfo(np.float64).eps * 2),
    "cbrt": (np.cbrt, -1e30, 1e30, True, 4, 4),
    "rcbrt": (lambda x: 1.0 / np.cbrt(x), -1e30, 1e30, True, 4, 4),
    "exp": (np.exp, -80, 80, False, 2, 2),
    "log": (np.log, 0, 1e30, False, 2, 2),
    "sqrt": (np.sqrt, 0, 1e30, False, 1, 1),
}


@triton.jit
def unary_kernel(X, Y, N: tl.constexpr, FN: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    tl.store(Y + offs, getattr(libdevice, FN)(x))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dt", FLOATS, ids=["fp32", "fp64"])
@pytest.mark.parametrize("fn", list(UNARY))
def test_unary(fn, dt, executor):
    ref, lo, hi, spread, u32, u64 = UNARY[fn]
    x = inputs(dt, lo, hi, spread)
    y = poisoned(N, dt)
    launch(unary_kernel, (1,), x, y, N=N, FN=fn, executor=executor)
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64))
    check_close(y, want, dt, u32 if dt == np.float32 else u64)


def _fdim(x, y):
    return np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x > y, x - y, 0.0))


# name: (reference, domain of x, domain of y, ulps)
BINARY = {
    "pow": (np.power, (0, 10), (-20, 20), 2),
    "atan2": (np.arctan2, (-10, 10), (-10, 10), 2),
    "hypot": (np.hypot, (-1e30, 1e30), (-1e30, 1e30), 4),
    "rhypot": (lambda x, y: 1.0 / np.hypot(x, y), (-1e15, 1e15), (-1e15, 1e15), 4),
    "copysign": (np.copysign, (-10, 10), (-10, 10), 0),
    "fmod": (np.fmod, (-100, 100), (-10, 10), 0),
    "fdim": (_fdim, (-10, 10), (-10, 10), 0),
    "add_rn": (np.add, (-10, 10), (-10, 10), 0.5),
    "sub_rn": (np.subtract, (-10, 10), (-10, 10), 0.5),
    "mul_rn": (np.multiply, (-10, 10), (-10, 10), 0.5),
    "div_rn": (np.divide, (-10, 10), (-10, 10), 0.5),
}


@triton.jit
def binary_kernel(X, Y, Z, N: tl.constexpr, FN: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Z + offs, getattr(libdevice, FN)(tl.load(X + offs), tl.load(Y + offs)))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dt", FLOATS, ids=["fp32", "fp64"])
@pytest.mark.parametrize("fn", list(BINARY))
def test_binary(fn, dt, executor):
    ref, (xl, xh), (yl, yh), ulps = BINARY[fn]
    sp = specials(dt)
    x = np.concatenate([np.repeat(sp, len(sp)), RNG.uniform(xl, xh, N - len(sp) ** 2)]).astype(dt)
    y = np.concatenate([np.tile(sp, len(sp)), RNG.uniform(yl, yh, N - len(sp) ** 2)]).astype(dt)
    z = poisoned(N, dt)
    launch(binary_kernel, (1,), x, y, z, N=N, FN=fn, executor=executor)
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64), y.astype(np.float64))
        if fn == "pow" and dt == np.float32:    # the SE computes f32 pow in f32 (numpy's powf), as the GPU does
            want = np.power(x, y).astype(np.float64)
    check_close(z, want, dt, ulps)


@triton.jit
def pow_forms_kernel(X, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    n = offs % 7 - 3
    tl.store(Z + offs, libdevice.pow(x, n))              # (fp32, int32): powi
    tl.store(Z + N + offs, libdevice.pow(x, 2))          # a Python int is int32: powi
    tl.store(Z + 2 * N + offs, libdevice.pow(x, 0.5))    # a Python float is fp32: powf


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dt", FLOATS, ids=["fp32", "fp64"])
def test_pow_int_exponent(dt, executor):
    x = inputs(dt, -4, 4)
    z = poisoned(3 * N, dt)
    launch(pow_forms_kernel, (1,), x, z, N=N, executor=executor)
    n = (np.arange(N) % 7 - 3).astype(np.float64)
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):     # exponents as arrays: numpy makes a scalar 0.5 a sqrt (not C pow)
        want = np.concatenate([np.power(x64, n), np.power(x64, np.full(N, 2.0)), np.power(x64, np.full(N, 0.5))])
    check_close(z, want, dt, 2)


# --- predicates, conversions, integers ---------------------------------------------------------------

PREDICATES = {"isnan": np.isnan, "isinf": np.isinf, "signbit": np.signbit,
              "finitef": np.isfinite, "isfinited": np.isfinite}


@triton.jit
def predicate_kernel(X, Y, N: tl.constexpr, FN: tl.constexpr):
    offs = tl.arange(0, N)
    r = getattr(libdevice, FN)(tl.load(X + offs))
    tl.static_assert(r.dtype == (tl.int1 if FN == "isnan" or FN == "isinf" else tl.int32))
    tl.store(Y + offs, r.to(tl.int32))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("fn,dt", [pytest.param(fn, dt, id=f"{fn}-{name}") for fn in PREDICATES
                                   for dt, name in zip(FLOATS, ("fp32", "fp64"))
                                   # finitef takes fp32 only and isfinited fp64 only, as in libdevice
                                   if not (fn == "finitef" and dt == np.float64)
                                   and not (fn == "isfinited" and dt == np.float32)])
def test_predicates(fn, dt, executor):
    x = inputs(dt, -1e3, 1e3)
    x[-20:] = np.array([np.nan, -np.nan, np.inf, -np.inf] * 5, dt)
    y = poisoned(N, np.int32)
    launch(predicate_kernel, (1,), x, y, N=N, FN=fn, executor=executor)
    np.testing.assert_array_equal(y, PREDICATES[fn](x).astype(np.int32))


CONVERSIONS = {
    "float2int_rn": (np.float32, np.int32, np.rint), "float2int_rz": (np.float32, np.int32, np.trunc),
    "float2int_rd": (np.float32, np.int32, np.floor), "float2int_ru": (np.float32, np.int32, np.ceil),
    "double2int_rn": (np.float64, np.int32, np.rint), "llrint": (np.float32, np.int64, np.rint),
    "llround": (np.float64, np.int64, _round_half_away),
    "float_as_int": (np.float32, np.int32, None), "int_as_float": (np.int32, np.float32, None),
    "uint_as_float": (np.uint32, np.float32, None), "double_as_longlong": (np.float64, np.int64, None),
    "longlong_as_double": (np.int64, np.float64, None),
}


@triton.jit
def convert_kernel(X, Y, N: tl.constexpr, FN: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, getattr(libdevice, FN)(tl.load(X + offs)))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("fn", list(CONVERSIONS))
def test_conversions(fn, executor):
    src, dst, rnd = CONVERSIONS[fn]
    if rnd is not None:                 # in range (out-of-range conversions are undefined here)
        x = np.concatenate([np.arange(-8, 8) + 0.5, RNG.uniform(-1e6, 1e6, N - 16)]).astype(src)
    elif np.dtype(src).kind == "f":
        x = inputs(src, -1e6, 1e6)
    else:
        x = RNG.integers(np.iinfo(src).min, np.iinfo(src).max, N, dtype=src, endpoint=True)
    y = poisoned(N, dst)
    launch(convert_kernel, (1,), x, y, N=N, FN=fn, executor=executor)
    want = rnd(x.astype(np.float64)).astype(dst) if rnd is not None else x.view(dst)
    np.testing.assert_array_equal(y.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dt", [np.int32, np.uint32, np.int64])
def test_mulhi(dt, executor):
    info = np.iinfo(dt)
    x = RNG.integers(info.min, info.max, N, dtype=dt, endpoint=True)
    y = RNG.integers(info.min, info.max, N, dtype=dt, endpoint=True)
    z = poisoned(N, dt)
    launch(binary_kernel, (1,), x, y, z, N=N, FN="mulhi", executor=executor)
    bits = info.bits
    want = [(int(a) * int(b)) >> bits for a, b in zip(x, y)]
    np.testing.assert_array_equal(z, np.array([w % (1 << bits) for w in want], np.uint64).astype(dt))


@triton.jit
def saturate_kernel(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, libdevice.saturatef(tl.load(X + offs)))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_saturatef(executor):
    x = inputs(np.float32, -3, 3)
    y = poisoned(N, np.float32)
    launch(saturate_kernel, (1,), x, y, N=N, executor=executor)
    np.testing.assert_array_equal(y, np.where(np.isnan(x), 0, np.clip(x, 0, 1)).astype(np.float32))


# --- scalars, the IR, errors ---------------------------------------------------------------------------

@triton.jit
def scalar_kernel(X, Y):
    x = tl.load(X)
    tl.store(Y + 0, libdevice.tanh(x))
    tl.store(Y + 1, libdevice.log1p(x))
    tl.store(Y + 2, libdevice.pow(x, 3))
    tl.store(Y + 3, libdevice.isnan(x).to(Y.dtype.element_ty))
    tl.store(Y + 4, libdevice.atan2(x, 2.0))
    tl.store(Y + 5, libdevice.cbrt(-x))
    tl.store(Y + 6, libdevice.expm1(libdevice.rint(x * 4.0)))
    tl.store(Y + 7, libdevice.hypot(x, 3.0))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dt", FLOATS, ids=["fp32", "fp64"])
def test_scalar_arguments(dt, executor):
    """0-d values: on MTIA the SE computes the math the control core has no instruction for."""
    x = np.array([RNG.uniform(0.2, 0.9)], dt)
    y = poisoned(8, dt)
    launch(scalar_kernel, (1,), x, y, executor=executor)
    v = np.float64(x[0])
    want = [np.tanh(v), np.log1p(v), v ** 3, 0.0, np.arctan2(v, 2.0), np.cbrt(-v), np.expm1(np.rint(v * 4)),
            np.hypot(v, 3.0)]
    check_close(y, want, dt, 4)


def test_native_ops_in_ir():
    """Functions with an SE instruction are one math op; the composed ones add no new op."""
    x = np.ones(N, np.float32)
    for fn, op in [("tanh", "math.tanh"), ("rint", "math.roundeven"), ("atan", "math.atan2"),
                   ("isnan", "math.isnan")]:
        kern = predicate_kernel if fn == "isnan" else unary_kernel
        ir = kern.compile(x, np.ones(N, np.int32 if fn == "isnan" else np.float32), N=N, FN=fn).asm["ir"]
        assert op in ir, fn
    ir = unary_kernel.compile(x, x, N=N, FN="log1p").asm["ir"]
    assert "math.log " in ir and "log1p" not in ir


def test_pow_of_ints_and_halfs_is_an_error():
    with pytest.raises(CompilationError) as e:
        unary_kernel[(1,)](np.ones(N, np.float16), np.ones(N, np.float16), N=N, FN="tanh", executor="interpreter")
    msg = str(e.value)
    assert "libdevice.tanh does not take (fp16); it takes (fp32), (fp64)" in msg
    assert "getattr(libdevice, FN)(x)" in msg and "^" in msg          # the caller's line, with a caret
    with pytest.raises(CompilationError, match=r"libdevice.log1p does not take \(int32\)"):
        unary_kernel[(1,)](np.ones(N, np.int32), np.ones(N, np.int32), N=N, FN="log1p", executor="interpreter")
    with pytest.raises(CompilationError, match=r"libdevice.fast_expf does not take \(fp64\)"):
        unary_kernel[(1,)](np.ones(N), np.ones(N), N=N, FN="fast_expf", executor="interpreter")


def test_names_follow_triton():
    """Every name is one of CUDA libdevice's in Triton (plus fabs and umulhi, kept from before)."""
    triton_names = set("""abs acos acosh add_rn asin asinh atan atan2 atanh cbrt ceil clz copysign cos cosh div_rn
        double2int_rn double_as_longlong erf erfc exp exp10 exp2 expm1 fast_cosf fast_dividef fast_exp10f fast_expf
        fast_log10f fast_log2f fast_logf fast_powf fast_sinf fast_tanf fdim finitef float2int_rd float2int_rn
        float2int_ru float2int_rz float_as_int float_as_uint floor fma fma_rn fmod hypot int_as_float isfinited isinf
        isnan llrint llround log log10 log1p log2 longlong_as_double mul_rn mulhi nearbyint popc pow rcbrt rhypot rint
        round rsqrt saturatef signbit sin sinh sqrt sqrt_rn sub_rn tan tanh trunc uint_as_float""".split())
    assert set(libdevice.__all__) - {"fabs", "umulhi"} <= triton_names
    assert len(libdevice.__all__) >= 75
