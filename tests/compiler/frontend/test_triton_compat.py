"""Triton-compatibility details that running Triton's own language tests through an alias harness
turned up (issue 8): kernels defined by exec() of a string, `tl.dtype(name)`, `triton.TritonError`,
`x.item()` / `tl.squeeze` / `tl.unsqueeze`, dots smaller than 16, Python ints as weak scalars
against unsigned tensors, tl.dot_scaled. Kernels run on both executors against numpy on random inputs."""
import textwrap

import ml_dtypes
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch

# launched on the reference interpreter unless MTIASIM_EXECUTOR names another (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("interpreter_by_default")

RNG = np.random.default_rng(8)

TEMPLATE = textwrap.dedent('''
    @triton.jit
    def generated(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        tl.store(Z + offs, EXPR)
''')


def make_kernel(expr: str):
    """A kernel from a template string, the way test generators patch one (the source exists only
    in this function's `src` while exec() runs)."""
    src = TEMPLATE.replace("EXPR", expr)
    namespace = {}
    exec(src, {"triton": triton, "tl": tl}, namespace)
    return namespace["generated"]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("expr,ref", [("x * 2.0 + 1.0", lambda x: x * 2 + 1), ("tl.exp(x) - x", lambda x: np.exp(x) - x)])
def test_a_kernel_made_by_exec_of_a_string_compiles(executor, expr, ref):
    kernel = make_kernel(expr)
    x = RNG.standard_normal(64).astype(np.float32)
    z = np.full_like(x, np.nan)
    launch(kernel, (1,), x, z, N=64, executor=executor)
    np.testing.assert_allclose(z, ref(x), rtol=1e-5, atol=1e-6)


def test_two_exec_copies_of_one_template_keep_their_own_source():
    """Code objects compare by value: the source must be kept per function, not per code object."""
    first, second = make_kernel("x + 1.0"), make_kernel("x + 1.0")
    del first
    import gc
    gc.collect()
    x = RNG.standard_normal(16).astype(np.float32)
    z = np.full_like(x, np.nan)
    second[(1,)](x, z, N=16, executor="interpreter")
    np.testing.assert_allclose(z, x + 1)


def test_an_exec_kernel_error_points_at_its_line():
    kernel = make_kernel("x + undefined_name")
    x = np.ones(16, np.float32)
    with pytest.raises(triton.CompilationError, match="undefined_name") as e:
        kernel[(1,)](x, x.copy(), N=16, executor="interpreter")
    assert "<string>:6" in str(e.value) and "^" in str(e.value)


def test_dtype_by_name_and_name_lists():
    assert tl.dtype("int8") is tl.int8 and tl.dtype("fp16") is tl.float16 and tl.dtype("uint64") is tl.uint64
    assert [tl.dtype(n) for n in tl.dtype.STANDARD_FP_TYPES] == [tl.float16, tl.bfloat16, tl.float32, tl.float64]
    assert all(tl.dtype(n).is_int_signed() for n in tl.dtype.SINT_TYPES)
    assert isinstance(tl.float32, tl.dtype)
    with pytest.raises(ValueError, match="unknown type name"):
        tl.dtype("fp7")


@triton.jit
def bad_index_kernel(X):
    x = tl.load(X + tl.arange(0, 16))
    tl.store(X + tl.arange(0, 16), x[3:])


def test_triton_error_is_the_base_of_compile_and_run_errors():
    assert issubclass(triton.CompilationError, triton.TritonError)
    assert issubclass(triton.OutOfResources, triton.TritonError)
    assert issubclass(triton.KernelRuntimeError, triton.TritonError)
    with pytest.raises(triton.TritonError):
        bad_index_kernel[(1,)](np.zeros(16, np.float32))


@triton.jit
def item_squeeze_kernel(X, Y, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    total = tl.sum(x[:, None], 0).item()          # a [1] block to a scalar
    row = tl.squeeze(tl.reshape(x, (1, N)), 0)
    col = tl.unsqueeze(x, 1)                       # [N, 1]
    tl.static_assert(len(col.shape) == 2 and col.shape[1] == 1)
    tl.store(Y + tl.arange(0, N), row * total + tl.reshape(col, (N,)))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_item_squeeze_unsqueeze(executor):
    x = RNG.standard_normal(32).astype(np.float32)
    y = np.full_like(x, np.nan)
    launch(item_squeeze_kernel, (1,), x, y, N=32, executor=executor)
    np.testing.assert_allclose(y, x * x.sum() + x, rtol=1e-5, atol=1e-5)


@triton.jit
def item_of_many_kernel(X):
    tl.load(X + tl.arange(0, 4)).item()


def test_item_of_more_than_one_element_is_refused():
    with pytest.raises(triton.CompilationError, match="one-element tensor"):
        item_of_many_kernel[(1,)](np.zeros(4, np.float32))


@triton.jit
def small_dot_kernel(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = tl.load(A + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(B + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(C + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], tl.dot(a, b))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("m,n,k", [(1, 2, 32), (4, 4, 8), (16, 1, 16), (8, 8, 1)])
def test_dots_smaller_than_16(executor, m, n, k):
    """Triton's interpreter (and so its language tests) accepts any dot size; the DPE pads."""
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float32)
    launch(small_dot_kernel, (1,), a, b, c, M=m, N=n, K=k, executor=executor)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-2, atol=1e-2)


@triton.jit
def weak_unsigned_kernel(X, Z, S: tl.constexpr, OP: tl.constexpr, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    if OP == "floordiv":
        z = x // S
    else:
        z = x % S
    tl.static_assert(z.dtype == x.dtype)
    tl.store(Z + tl.arange(0, N), z)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("op", ["floordiv", "mod"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
def test_python_ints_are_weak_against_unsigned_tensors_in_div_and_mod(executor, op, dtype):
    x = RNG.integers(0, np.iinfo(dtype).max, 64, endpoint=True, dtype=np.uint64).astype(dtype)
    z = np.full_like(x, 1)
    launch(weak_unsigned_kernel, (1,), x, z, S=7, OP=op, N=64, executor=executor)
    np.testing.assert_array_equal(z, x // dtype(7) if op == "floordiv" else x % dtype(7))


# --- tl.dot_scaled (microscaling formats, decoded to fp32 before one tl.dot) ----------------------

@triton.jit
def dot_scaled_kernel(A, AS, B, BS, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, FA: tl.constexpr,
                      FB: tl.constexpr):
    KA: tl.constexpr = K // 2 if FA == "e2m1" else K
    KB: tl.constexpr = K // 2 if FB == "e2m1" else K
    a = tl.load(A + tl.arange(0, M)[:, None] * KA + tl.arange(0, KA)[None, :])
    b = tl.load(B + tl.arange(0, KB)[:, None] * N + tl.arange(0, N)[None, :])
    G: tl.constexpr = K // 32
    a_scale = None
    b_scale = None
    if AS is not None:
        a_scale = tl.load(AS + tl.arange(0, M)[:, None] * G + tl.arange(0, G)[None, :])
    if BS is not None:
        b_scale = tl.load(BS + tl.arange(0, N)[:, None] * G + tl.arange(0, G)[None, :])
    tl.store(C + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], tl.dot_scaled(a, a_scale, FA, b, b_scale, FB))


E2M1_VALUES = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float64)


def mx_decode(x, fmt, k_axis):
    """numpy: the values of an MX operand, fp4 unpacked along `k_axis` (low nibble first)."""
    if fmt == "e2m1":
        codes = np.stack([x & 0xF, x >> 4], axis=k_axis + 1)
        shape = list(x.shape)
        shape[k_axis] *= 2
        codes = codes.reshape(shape)
        return np.where(codes & 8, -E2M1_VALUES[codes & 7], E2M1_VALUES[codes & 7])
    if fmt == "e4m3":
        return x.view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    if fmt == "e5m2":
        return x.view(ml_dtypes.float8_e5m2).astype(np.float64)
    return x.astype(np.float64)


def mx_operand(shape, fmt):
    if fmt == "fp16":
        return RNG.standard_normal(shape).astype(np.float16)
    x = RNG.integers(0, 256, shape).astype(np.uint8)
    if fmt == "e4m3":                              # no NaN codes (s1111111)
        x = np.where((x & 0x7F) == 0x7F, x & 0xF0, x).astype(np.uint8)
    if fmt == "e5m2":                              # no inf/NaN codes (exponent 11111)
        x = np.where((x & 0x7C) == 0x7C, x & 0x83, x).astype(np.uint8)
    return x


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("scaled_side", ["lhs", "rhs", "both"])
@pytest.mark.parametrize("mx", ["e2m1", "e4m3", "e5m2"])
def test_dot_scaled(executor, mx, scaled_side):
    check_dot_scaled(executor, mx, scaled_side, 16, 32, 64)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("scaled_side", ["lhs", "rhs"])
def test_dot_scaled_of_fp4_at_128_cubed_fits_a_pe(executor, scaled_side):
    """Triton's test_scaled_dot size: the fp4 decode overwrites one uint32 tile in place (it needed
    586 KB of local store in temporaries; a PE has 383 KB)."""
    check_dot_scaled(executor, "e2m1", scaled_side, 128, 128, 128)


def check_dot_scaled(executor, mx, scaled_side, M, N, K):
    fa = mx if scaled_side in ("lhs", "both") else "fp16"
    fb = mx if scaled_side in ("rhs", "both") else "fp16"
    a = mx_operand((M, K // 2 if fa == "e2m1" else K), fa)
    b = mx_operand((K // 2 if fb == "e2m1" else K, N), fb)
    sa = RNG.integers(120, 135, (M, K // 32)).astype(np.uint8) if fa != "fp16" else None
    sb = RNG.integers(120, 135, (N, K // 32)).astype(np.uint8) if fb != "fp16" else None
    c = np.full((M, N), np.nan, np.float32)
    launch(dot_scaled_kernel, (1,), a, sa, b, sb, c, M=M, N=N, K=K, FA=fa, FB=fb, executor=executor)
    lhs, rhs = mx_decode(a, fa, 1), mx_decode(b, fb, 0)
    if sa is not None:
        lhs = lhs * np.repeat(2.0 ** (sa.astype(np.float64) - 127), 32, axis=1)
    if sb is not None:
        rhs = rhs * np.repeat(2.0 ** (sb.astype(np.float64) - 127), 32, axis=1).T
    ref = lhs @ rhs
    np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())


@triton.jit
def dot_scaled_bad_format_kernel(A, C):
    a = tl.load(A + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    tl.store(C + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :],
             tl.dot_scaled(a, None, "e3m3", tl.trans(a), None, "fp16"))


def test_dot_scaled_unknown_format_is_refused():
    with pytest.raises(triton.CompilationError, match="lhs_format must be one of"):
        dot_scaled_bad_format_kernel[(1,)](np.zeros((16, 32), np.float16), np.zeros((16, 16), np.float32))


# --- half precision on the MTIA chip ------------------------------------------------------------

@triton.jit
def half_scalar_kernel(Z, S, X, Y, W, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X)                       # a scalar f16/bf16 load (widened to f32 by the SE), broadcast
    y = tl.load(Y + offs)
    tl.store(Z + offs, x + y)
    total = tl.sum(y, 0)                 # reductions to a scalar that scalar code then reads
    biggest = tl.max(y, 0)               # (max reduces in f32, then rounds to the half type: a scalar truncf)
    tl.store(S, total)
    tl.store(S + 1, biggest * 2.0)
    tl.store(S + 2, (tl.load(W) * 3.0).to(S.dtype.element_ty))   # an f32 scalar rounded to half


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_half_scalars_load_broadcast_reduce_and_round(executor, dtype):
    n = 64
    x = RNG.standard_normal(1).astype(dtype)
    y = RNG.standard_normal(n).astype(dtype)
    w = RNG.standard_normal(1).astype(np.float32)
    z = np.full(n, np.nan, dtype)
    out = np.full(3, np.nan, dtype)
    launch(half_scalar_kernel, (1,), z, out, x, y, w, N=n, executor=executor)
    yf = y.astype(np.float32)
    np.testing.assert_array_equal(z, (x.astype(np.float32) + yf).astype(dtype))
    np.testing.assert_allclose(out[0].astype(np.float32), yf.sum(), rtol=1e-2, atol=1e-2)
    np.testing.assert_array_equal(out[1], (yf.max() * 2).astype(dtype))
    np.testing.assert_array_equal(out[2], (w * np.float32(3)).astype(dtype))


@triton.jit
def bf16_rows_kernel(X, S, C, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + offs)
    tl.store(S + tl.arange(0, M), tl.sum(x, 1))
    tl.store(C + offs, tl.cumsum(x, 1))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_bf16_sums_and_scans_keep_their_fractions(executor):
    """The RE accumulates bf16 in f32 (ml_dtypes' bf16 is numpy kind 'V': it was summed as an integer)."""
    x = RNG.standard_normal((4, 32)).astype(ml_dtypes.bfloat16)
    s = np.full(4, np.nan, ml_dtypes.bfloat16)
    c = np.full((4, 32), np.nan, ml_dtypes.bfloat16)
    launch(bf16_rows_kernel, (1,), x, s, c, M=4, N=32, executor=executor)
    xf = x.astype(np.float32)
    np.testing.assert_allclose(s.astype(np.float32), xf.sum(1), rtol=2e-2, atol=5e-2)
    np.testing.assert_allclose(c.astype(np.float32), np.cumsum(xf, 1), rtol=2e-2, atol=5e-2)


def test_the_block_ir_is_also_the_ttir_stage():
    c = small_dot_kernel.compile(np.zeros((16, 16), np.float16), np.zeros((16, 16), np.float16),
                                 np.zeros((16, 16), np.float32), M=16, N=16, K=16)
    assert c.asm["ttir"] == c.asm["ir"] and "tt.dot" in c.asm["ttir"]
    assert "ttir" not in list(c.asm)             # an alias, not a stage listed twice


@triton.jit
def bad_axis_kernel(X):
    tl.store(X, tl.program_id(20).to(tl.float32))


def test_a_compile_errors_cause_is_the_plain_message():
    """As in Triton, `exc.__cause__` is the semantic layer's error (without the compiler's frames)."""
    with pytest.raises(triton.TritonError) as e:
        bad_axis_kernel[(1,)](np.zeros(1, np.float32), executor="interpreter")
    assert "program_id axis must be 0, 1, or 2 but got 20" in str(e.value.__cause__)
    assert e.value.__cause__.__traceback__ is None


@triton.jit
def split_to_scalars_kernel(X, Z):
    a, b = tl.split(tl.load(X + tl.arange(0, 2)))
    tl.static_assert(len(a.shape) == 0)
    tl.store(Z, a * 3 - b)
    tl.store(Z + 1, b)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32])
def test_split_of_a_pair_gives_two_scalars(executor, dtype):
    x = (RNG.standard_normal(2) * 100).astype(dtype)
    z = np.full(2, -7777, dtype)                 # poison: no result is this
    launch(split_to_scalars_kernel, (1,), x, z, executor=executor)
    np.testing.assert_allclose(z, [x[0] * 3 - x[1], x[1]], rtol=1e-6)


@triton.jit
def narrow_descriptor_kernel(X, ROW: tl.constexpr):
    desc = tl.make_tensor_descriptor(X, [16, 16], [16, 1], [4, ROW])
    desc.store([0, 0], desc.load([0, 0]) + 1)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_descriptor_block_row_under_16_bytes_is_refused(executor):
    """Triton's tensor descriptors move block rows of at least 16 bytes; a narrower block is refused
    at its line, as Triton refuses it; an 8 x int16 row (16 bytes) runs."""
    x = RNG.integers(-100, 100, (16, 16)).astype(np.int16)
    before = x.copy()
    with pytest.raises(triton.CompilationError, match="at least 16 bytes in the last dimension, got 4 x 2 = 8 bytes") as e:
        launch(narrow_descriptor_kernel, (1,), x, ROW=4, executor=executor)
    assert "tl.make_tensor_descriptor(X" in str(e.value)
    np.testing.assert_array_equal(x, before)
    launch(narrow_descriptor_kernel, (1,), x, ROW=8, executor=executor)
    before[:4, :8] += 1
    np.testing.assert_array_equal(x, before)
