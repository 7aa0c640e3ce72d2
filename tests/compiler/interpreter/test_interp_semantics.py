"""Op semantics through the interpreter, against numpy: arithmetic and Triton's promotion rules,
C-style integer division vs Python-style constexpr folding, casts, math, comparisons and bitwise ops.

Inputs are random (never all zeros), outputs are poisoned before each run and sizes are not
multiples of the block. Result dtypes are pinned with tl.static_assert inside the kernels."""
import ml_dtypes
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.errors import CompilationError

# launched on the reference interpreter unless MTIASIM_EXECUTOR names another (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("interpreter_by_default")

RNG = np.random.default_rng(7)
N = 100          # elements per test (BLOCK 128: the tail is masked)

NP = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
      "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "float16": np.float16,
      "float32": np.float32, "float64": np.float64, "bfloat16": ml_dtypes.bfloat16}
TL = {"int8": tl.int8, "int16": tl.int16, "int32": tl.int32, "int64": tl.int64, "uint8": tl.uint8,
      "uint16": tl.uint16, "uint32": tl.uint32, "uint64": tl.uint64, "float16": tl.float16,
      "float32": tl.float32, "float64": tl.float64, "bfloat16": tl.bfloat16}


def rand(dtype, n=N, low=None, high=None, nonzero=False):
    dt = np.dtype(NP[dtype])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo = max(info.min, -100 if low is None else low)
        hi = min(info.max, 100 if high is None else high)
        x = RNG.integers(lo, hi, n, endpoint=True).astype(dt)
        if nonzero:
            x[x == 0] = 1
        return x
    x = (RNG.standard_normal(n) * 4).astype(np.float32)
    if nonzero:
        x[np.abs(x) < 0.1] = 0.5
    return x.astype(dt)


def poison(dtype, n=N):
    dt = np.dtype(NP[dtype])
    return np.full(n, np.nan if dt.kind in "fV" else 77, dt)


@triton.jit
def binary_kernel(X, Y, Z, n, OP: tl.constexpr, OUT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    y = tl.load(Y + offs, mask=mask, other=1)
    if OP == "+":
        z = x + y
    elif OP == "-":
        z = x - y
    elif OP == "*":
        z = x * y
    elif OP == "/":
        z = x / y
    elif OP == "//":
        z = x // y
    elif OP == "%":
        z = x % y
    elif OP == "&":
        z = x & y
    elif OP == "|":
        z = x | y
    elif OP == "^":
        z = x ^ y
    elif OP == "<<":
        z = x << y
    elif OP == ">>":
        z = x >> y
    elif OP == "max":
        z = tl.maximum(x, y)
    elif OP == "min":
        z = tl.minimum(x, y)
    tl.static_assert(z.dtype == OUT, "unexpected result dtype")
    tl.store(Z + offs, z, mask=mask)


def run_binary(op, x, y, out_dtype):
    z = poison(out_dtype, x.size)
    binary_kernel[(triton.cdiv(x.size, 128),)](x, y, z, x.size, OP=op, OUT=TL[out_dtype], BLOCK=128)
    return z


def c_div(x, y):
    return (x - np.fmod(x, y)) // y


REF = {"+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and, "|": np.bitwise_or,
       "^": np.bitwise_xor, "max": np.maximum, "min": np.minimum, "%": np.fmod, "//": c_div}

# (lhs, rhs, result) for tensor-tensor promotion, from the semantics notes
PROMOTION = [
    ("int8", "int8", "int8"), ("int8", "int32", "int32"), ("int32", "uint32", "uint32"),
    ("int64", "uint32", "int64"), ("uint8", "int16", "int16"), ("uint16", "int16", "uint16"),
    ("int32", "float16", "float16"), ("float16", "float32", "float32"), ("float16", "bfloat16", "float16"),
    ("bfloat16", "bfloat16", "bfloat16"), ("bfloat16", "int32", "float32"), ("float64", "float16", "float64"),
    ("int64", "float32", "float32"),
]


@pytest.mark.parametrize("lhs,rhs,out", PROMOTION)
@pytest.mark.parametrize("op", ["+", "-", "*"])
def test_arithmetic_promotion(op, lhs, rhs, out):
    x, y = rand(lhs), rand(rhs)
    z = run_binary(op, x, y, out)
    ref = REF[op](x.astype(NP[out]), y.astype(NP[out]))
    if np.dtype(NP[out]).kind in "fV":
        np.testing.assert_allclose(z.astype(np.float64), ref.astype(np.float64), rtol=1e-2, atol=1e-2)
    else:
        np.testing.assert_array_equal(z, ref)


@pytest.mark.parametrize("lhs,rhs,out", [("int32", "int32", "float32"), ("int64", "int64", "float32"),
                                         ("float16", "float16", "float32"), ("bfloat16", "bfloat16", "float32"),
                                         ("float16", "float64", "float64"), ("int8", "float16", "float32")])
def test_true_division_types(lhs, rhs, out):
    x, y = rand(lhs), rand(rhs, nonzero=True)
    z = run_binary("/", x, y, out)
    np.testing.assert_allclose(z, x.astype(np.float64) / y.astype(np.float64), rtol=2e-3)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint32"])
def test_integer_division_and_modulo_are_c_like(dtype):
    x, y = rand(dtype), rand(dtype, nonzero=True)
    np.testing.assert_array_equal(run_binary("//", x, y, dtype), c_div(x, y))
    np.testing.assert_array_equal(run_binary("%", x, y, dtype), np.fmod(x, y))
    if np.dtype(NP[dtype]).kind == "i":
        assert (x < 0).any() and (y < 0).any()   # the interesting signs are exercised


def test_float_modulo_is_fmod():
    x, y = rand("float32"), rand("float32", nonzero=True)
    np.testing.assert_allclose(run_binary("%", x, y, "float32"), np.fmod(x, y), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "int64"])
@pytest.mark.parametrize("op", ["&", "|", "^", "max", "min"])
def test_bitwise_and_minmax(op, dtype):
    x, y = rand(dtype), rand(dtype)
    np.testing.assert_array_equal(run_binary(op, x, y, dtype), REF[op](x, y))


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int8"])
def test_shifts_arithmetic_vs_logical(dtype):
    x = rand(dtype, low=-100 if dtype != "uint32" else 0, high=100)
    x[::3] = np.iinfo(NP[dtype]).max if dtype == "uint32" else -np.abs(x[::3]) - 1
    y = rand(dtype, low=0, high=6)
    np.testing.assert_array_equal(run_binary(">>", x, y, dtype), x >> y)   # numpy: >> arithmetic for signed
    np.testing.assert_array_equal(run_binary("<<", x, y, dtype), (x << y).astype(NP[dtype]))


def test_division_between_signed_and_unsigned_is_an_error():
    with pytest.raises(CompilationError, match="different signedness"):
        run_binary("//", rand("int32"), rand("uint32", nonzero=True), "int32")


# --- weak Python scalars -----------------------------------------------------------------------------

@triton.jit
def scalar_kernel(X, Z, n, CASE: tl.constexpr, OUT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    if CASE == "add5":
        z = x + 5
    elif CASE == "mul_half":
        z = x * 0.5
    elif CASE == "div3":
        z = x / 3
    elif CASE == "rsub":
        z = 100 - x
    elif CASE == "floordiv7":
        z = x // 7
    elif CASE == "mod7":
        z = x % 7
    elif CASE == "neg_scalar":
        z = x + (-1)
    elif CASE == "big":
        z = x + 300
    elif CASE == "pow2_31":
        z = x + 2147483648
    tl.static_assert(z.dtype == OUT)
    tl.store(Z + offs, z, mask=mask)


@pytest.mark.parametrize("dtype,case,out,ref", [
    ("int8", "add5", "int8", lambda x: x + np.int8(5)),
    ("float16", "mul_half", "float16", lambda x: x * np.float16(0.5)),
    ("int32", "mul_half", "float32", lambda x: x * np.float32(0.5)),
    ("float16", "div3", "float32", lambda x: x.astype(np.float32) / 3),
    ("int16", "div3", "float32", lambda x: x.astype(np.float32) / 3),
    # Triton's kinds are bool < integral < float: a Python int does not take part with unsigned tensors
    # either (checked against Triton 3.8's interpreter: `100 - uint8 tensor` is uint8)
    ("uint8", "rsub", "uint8", lambda x: (100 - x.astype(np.int32)).astype(np.uint8)),
    ("uint16", "add5", "uint16", lambda x: x + np.uint16(5)),
    ("uint8", "floordiv7", "uint8", lambda x: x // np.uint8(7)),
    ("uint32", "mod7", "uint32", lambda x: x % np.uint32(7)),
    ("int16", "floordiv7", "int16", lambda x: (np.sign(x) * (np.abs(x) // 7)).astype(np.int16)),  # C: toward 0
    ("int64", "add5", "int64", lambda x: x + 5),
])
def test_weak_scalar_promotion(dtype, case, out, ref):
    x = rand(dtype, low=0) if dtype.startswith("uint") else rand(dtype)
    z = poison(out)
    scalar_kernel[(1,)](x, z, N, CASE=case, OUT=TL[out], BLOCK=128)
    np.testing.assert_allclose(z.astype(np.float64), ref(x).astype(np.float64), rtol=1e-3)


@pytest.mark.parametrize("dtype,case,match", [("uint32", "neg_scalar", "unsigned tensor and a negative scalar"),
                                              ("uint8", "neg_scalar", "unsigned tensor and a negative scalar"),
                                              ("int8", "big", "out of range"),
                                              ("int32", "pow2_31", "out of range")])
def test_weak_scalar_range_errors(dtype, case, match):
    with pytest.raises(CompilationError, match=match):
        scalar_kernel[(1,)](rand(dtype, low=0), poison(dtype), N, CASE=case, OUT=TL[dtype], BLOCK=128)


@triton.jit
def runtime_scalar_kernel(X, Z, s, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    z = tl.load(X + offs, mask=offs < n) + s        # s is an i32 argument: a 0-d tensor, not weak
    tl.static_assert(z.dtype == tl.int32)
    tl.store(Z + offs, z, mask=offs < n)


def test_runtime_scalar_argument_promotes_normally():
    x = rand("int8")
    z = poison("int32")
    runtime_scalar_kernel[(1,)](x, z, 1000, N, BLOCK=128)
    np.testing.assert_array_equal(z, x.astype(np.int32) + 1000)


# --- constexpr folding keeps Python semantics; runtime values use C semantics -------------------------

@triton.jit
def div_semantics_kernel(Out, a, b, A: tl.constexpr, B: tl.constexpr):
    tl.store(Out + 0, A // B)       # constexpr // constexpr: Python floor division
    tl.store(Out + 1, A % B)        # Python modulo
    tl.store(Out + 2, a // b)       # runtime: truncation toward zero
    tl.store(Out + 3, a % b)        # C remainder (sign of the dividend)
    c = A                           # assigning a constexpr number to a name makes it a runtime value
    tl.store(Out + 4, c // B)


def test_floordiv_constexpr_vs_runtime():
    out = np.full(5, 99, np.int32)
    div_semantics_kernel[(1,)](out, -7, 2, A=-7, B=2)
    np.testing.assert_array_equal(out, [-4, 1, -3, -1, -3])


# --- unary ops, math, casts ----------------------------------------------------------------------------

@triton.jit
def unary_kernel(X, Z, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=1)
    if OP == "neg":
        z = -x
    elif OP == "invert":
        z = ~x
    elif OP == "not":
        z = (not x).to(x.dtype)
    elif OP == "exp":
        z = tl.exp(x)
    elif OP == "exp2":
        z = tl.exp2(x)
    elif OP == "log":
        z = tl.log(tl.abs(x))
    elif OP == "log2":
        z = tl.log2(tl.abs(x))
    elif OP == "sqrt":
        z = tl.sqrt(tl.abs(x))
    elif OP == "sqrt_rn":
        z = tl.sqrt_rn(tl.abs(x))
    elif OP == "rsqrt":
        z = tl.rsqrt(tl.abs(x))
    elif OP == "sin":
        z = tl.sin(x)
    elif OP == "cos":
        z = tl.math.cos(x)
    elif OP == "erf":
        z = tl.erf(x)
    elif OP == "floor":
        z = tl.floor(x)
    elif OP == "ceil":
        z = tl.ceil(x)
    elif OP == "abs":
        z = tl.abs(x)
    elif OP == "sigmoid":
        z = tl.sigmoid(x)
    elif OP == "fma":
        z = tl.fma(x, x, x)
    elif OP == "clamp":
        z = tl.clamp(x, -1.0, 2.0)
    elif OP == "fdiv":
        z = tl.fdiv(x, 3.0)
    elif OP == "div_rn":
        z = tl.div_rn(x, 3.0)
    elif OP == "cdiv":
        z = tl.cdiv(x, 4)
    tl.store(Z + offs, z, mask=mask)


def _erf(x):
    import math
    return np.vectorize(math.erf)(x)


MATH_REF = {
    "exp": np.exp, "exp2": np.exp2, "log": lambda x: np.log(np.abs(x)), "log2": lambda x: np.log2(np.abs(x)),
    "sqrt": lambda x: np.sqrt(np.abs(x)), "sqrt_rn": lambda x: np.sqrt(np.abs(x)),
    "rsqrt": lambda x: 1 / np.sqrt(np.abs(x)), "sin": np.sin, "cos": np.cos, "erf": _erf, "floor": np.floor,
    "ceil": np.ceil, "abs": np.abs, "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "fma": lambda x: x * x + x,
    "clamp": lambda x: np.clip(x, -1, 2), "fdiv": lambda x: x / 3, "div_rn": lambda x: x / 3, "neg": np.negative,
}


@pytest.mark.parametrize("op", sorted(MATH_REF))
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_float_unary(op, dtype):
    x = rand(dtype, nonzero=True)
    z = poison("float32")
    unary_kernel[(1,)](x, z, N, OP=op, BLOCK=128)
    tol = 1e-5 if dtype == "float32" else 2e-3
    # the result has x's dtype: exp of a large f16 overflows to inf in the kernel as in the reference
    with np.errstate(over="ignore"):
        want = MATH_REF[op](x.astype(np.float64)).astype(dtype)
    np.testing.assert_allclose(z, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("op,ref", [("neg", np.negative), ("invert", np.invert), ("abs", np.abs),
                                    ("not", lambda x: (x == 0).astype(x.dtype)),
                                    ("cdiv", None)])
def test_int_unary(op, ref):
    x = rand("int32")
    z = poison("int32")
    unary_kernel[(1,)](x, z, N, OP=op, BLOCK=128)
    if op == "cdiv":    # tl.cdiv is (x + 3) // 4 with C division on runtime values
        np.testing.assert_array_equal(z, c_div(x + 3, np.int32(4)))
    else:
        np.testing.assert_array_equal(z, ref(x))


def test_math_rejects_integers():
    with pytest.raises(CompilationError, match="Expected dtype"):
        unary_kernel[(1,)](rand("int32"), poison("int32"), N, OP="exp", BLOCK=128)


@triton.jit
def cast_kernel(X, Z, n, TO: tl.constexpr, BITCAST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n)
    tl.store(Z + offs, x.to(TO, bitcast=BITCAST), mask=offs < n)


def _float_to_int(x, dtype):
    """The project's float -> int rule: truncate, saturate at the type's range, NaN -> 0."""
    info = np.iinfo(dtype)
    t = np.nan_to_num(np.trunc(x.astype(np.float64)), nan=0.0, posinf=info.max, neginf=info.min)
    return np.clip(t, info.min, info.max).astype(dtype)


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("float32", "uint8"), ("int32", "float16"),
                                     ("float32", "bfloat16"), ("bfloat16", "float32"), ("float16", "float64"),
                                     ("int32", "int8"), ("int8", "uint32"), ("uint8", "int64"),
                                     ("int64", "float32")])
def test_casts(src, dst):
    x = rand(src, low=0) if dst.startswith("uint") or src.startswith("uint") else rand(src)
    if src.startswith("float") and dst == "int32":
        x = x * 1000
    if src == "int32" and dst == "int8":
        x = (x * 1000).astype(np.int32)    # wraps
    z = poison(dst)
    cast_kernel[(1,)](x, z, N, TO=TL[dst], BITCAST=False, BLOCK=128)
    ref = _float_to_int(x, NP[dst]) if np.dtype(NP[src]).kind == "f" and np.dtype(NP[dst]).kind in "iu" \
        else x.astype(NP[dst])
    np.testing.assert_array_equal(z, ref)


def test_bitcast_and_fp8():
    x = rand("float32")
    z = poison("int32")
    cast_kernel[(1,)](x, z, N, TO=tl.int32, BITCAST=True, BLOCK=128)
    np.testing.assert_array_equal(z, x.view(np.int32))
    z8 = np.zeros(N, ml_dtypes.float8_e4m3fn)
    cast_kernel[(1,)](x / 8, z8, N, TO=tl.float8e4nv, BITCAST=False, BLOCK=128)
    np.testing.assert_array_equal(z8.astype(np.float32), (x / 8).astype(ml_dtypes.float8_e4m3fn).astype(np.float32))
    with pytest.raises(CompilationError, match="Cannot bitcast"):
        cast_kernel[(1,)](x, poison("int16"), N, TO=tl.int16, BITCAST=True, BLOCK=128)


@triton.jit
def compare_kernel(X, Y, Z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(X + offs, mask=m)
    y = tl.load(Y + offs, mask=m)
    code = (x < y).to(tl.int32) + 2 * (x <= y).to(tl.int32) + 4 * (x > y).to(tl.int32) \
        + 8 * (x >= y).to(tl.int32) + 16 * (x == y).to(tl.int32) + 32 * (x != y).to(tl.int32)
    tl.store(Z + offs, code, mask=m)


@pytest.mark.parametrize("dtype", ["float32", "int16", "uint32"])
def test_comparisons(dtype):
    x, y = rand(dtype, low=0, high=5), rand(dtype, low=0, high=5)
    if dtype == "float32":
        x, y = np.round(x), np.round(y)
        x[0], y[1] = np.nan, np.nan
    z = poison("int32")
    compare_kernel[(1,)](x, y, z, N, BLOCK=128)
    ref = (x < y) + 2 * (x <= y) + 4 * (x > y) + 8 * (x >= y) + 16 * (x == y) + 32 * (x != y)
    np.testing.assert_array_equal(z, ref)


@triton.jit
def umulhi_kernel(X, Y, Z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(Z + offs, tl.umulhi(tl.load(X + offs, mask=m), tl.load(Y + offs, mask=m)), mask=m)


@pytest.mark.parametrize("dtype", ["uint32", "int32", "uint64"])
def test_umulhi(dtype):
    info = np.iinfo(NP[dtype])
    x = RNG.integers(info.min, info.max, N, dtype=NP[dtype], endpoint=True)
    y = RNG.integers(info.min, info.max, N, dtype=NP[dtype], endpoint=True)
    z = poison(dtype)
    umulhi_kernel[(1,)](x, y, z, N, BLOCK=128)
    bits = np.dtype(NP[dtype]).itemsize * 8
    mask = (1 << bits) - 1
    ref = [((int(a) & mask) * (int(b) & mask)) >> bits for a, b in zip(x, y)]
    np.testing.assert_array_equal(z.view(f"u{bits // 8}"), np.array(ref, dtype=f"u{bits // 8}"))


# --- where, full, arange, program ids ------------------------------------------------------------------

@triton.jit
def where_kernel(X, Z, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    z = tl.where(x > 0, x, 0) + tl.where(offs % 2 == 0, 1.0, tl.zeros_like(x)) + tl.full((BLOCK,), 0.5, tl.float32)
    tl.store(Z + offs, z, mask=offs < n)


def test_where_and_full():
    x = rand("float32")
    z = poison("float32")
    where_kernel[(1,)](x, z, N, BLOCK=128)
    np.testing.assert_allclose(z, np.maximum(x, 0) + (np.arange(N) % 2 == 0) + 0.5)


@triton.jit
def ids_kernel(Out, S0, S1, OFFSET: tl.constexpr):
    x, y, z = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    lin = (z * tl.num_programs(1) + y) * tl.num_programs(0) + x
    r = tl.arange(OFFSET, OFFSET + 4)
    tl.store(Out + lin * 4 + r - OFFSET, r + x * S0 + y * S1 + z)


def test_program_ids_and_arange_offset():
    g = (3, 2, 2)
    out = np.full(12 * 4, -1, np.int32)
    ids_kernel[g](out, 1000, 100, OFFSET=16)
    ref = []
    for z in range(2):
        for y in range(2):
            for x in range(3):
                ref += [16 + i + 1000 * x + 100 * y + z for i in range(4)]
    np.testing.assert_array_equal(out, ref)


@triton.jit
def scalar_memory_kernel(X, Flags, Out):
    v = tl.load(X)                    # scalar pointer: scalar load
    f = tl.load(Flags + 1)            # *i1 is read as a byte
    tl.store(Out, tl.where(f, v * 2, v))
    tl.store(Flags, v > 0)


def test_scalar_and_bool_memory():
    x = np.array([3.5], np.float32)
    flags = np.array([False, True])
    out = np.full(1, np.nan, np.float32)
    scalar_memory_kernel[(1,)](x, flags, out)
    assert out[0] == 7.0 and flags[0]


@triton.jit
def control_flow_kernel(Out, n):
    acc = 0
    for i in range(10, 0, -3):                 # constexpr negative step: 10, 7, 4, 1
        acc = acc * 100 + i
    tl.store(Out, acc)
    tl.store(Out + 1, 5 if n > 3 else 7)       # runtime ternary
    offs = tl.arange(0, 8)
    tl.store(Out + 2 + offs, (2 <= offs < n).to(tl.int32))   # chained comparison
    j = n
    for q in range(n, 0, -1):
        j = j * 2
    tl.store(Out + 10, j)


def test_negative_steps_ternaries_and_chained_comparisons():
    out = np.zeros(11, np.int32)
    control_flow_kernel[(1,)](out, 5)
    np.testing.assert_array_equal(out, [10070401, 5, 0, 0, 1, 1, 1, 0, 0, 0, 160])
    control_flow_kernel[(1,)](out, 2)
    assert out[1] == 7 and out[10] == 8 and out[2:10].sum() == 0


@triton.jit
def methods_kernel(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = x.sum(axis=0) + x.exp().max(0) + x.reshape(2, BLOCK // 2).sum(1).sum(0) + x.to(tl.float16).to(tl.float32)
    tl.store(Y + offs, y)


def test_tensor_methods():
    x = RNG.standard_normal(8).astype(np.float32)
    y = np.full(8, np.nan, np.float32)
    methods_kernel[(1,)](x, y, BLOCK=8)
    ref = x.sum() + np.exp(x).max() + x.sum() + x.astype(np.float16).astype(np.float32)
    # the kernel sums in another order than numpy: a few float32 ulps of the terms' magnitude, which a
    # relative tolerance misses where the terms cancel to near zero
    scale = 2 * np.abs(x).sum() + np.exp(x).max() + np.abs(x)
    np.testing.assert_allclose(y, ref, rtol=0, atol=8 * np.finfo(np.float32).eps * scale.max())


@triton.jit
def tuple_loop_kernel(Out, base):
    total = base
    for k, scale in ((1, 10), (2, 100), (3, 1000)):     # a compile-time tuple: unrolled
        total += k * scale
    tl.store(Out, total)


def test_loop_over_a_constexpr_tuple_is_unrolled():
    out = np.zeros(1, np.int32)
    tuple_loop_kernel[(1,)](out, 5)
    assert out[0] == 5 + 10 + 200 + 3000
    assert "scf.for" not in list(tuple_loop_kernel.cache.values())[0].asm["ir"]
