"""Block-level ops through the interpreter against numpy: reductions, scans, shape ops, dot."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.errors import CompilationError

# launched on the reference interpreter unless MTIASIM_EXECUTOR names another (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("interpreter_by_default")

RNG = np.random.default_rng(11)


@triton.jit
def reduce_kernel(X, Z, M, N, OP: tl.constexpr, AXIS: tl.constexpr, KEEP: tl.constexpr,
                  BM: tl.constexpr, BN: tl.constexpr, OUT: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    fill: tl.constexpr = float("-inf") if OP == "max" or OP == "argmax" else (
        float("inf") if OP == "min" or OP == "argmin" else 0)
    x = tl.load(X + rm[:, None] * N + rn[None, :], mask=mask, other=fill)
    if OP == "sum":
        z = tl.sum(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "max":
        z = tl.max(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "min":
        z = tl.min(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "argmax":
        z = tl.argmax(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "argmin":
        z = tl.argmin(x, axis=AXIS, keep_dims=KEEP)
    elif OP == "xor_sum":
        z = tl.xor_sum(x, axis=AXIS, keep_dims=KEEP)
    tl.static_assert(z.dtype == OUT)
    if AXIS is None:
        tl.store(Z + tl.arange(0, 1), tl.reshape(z, (1,))) if KEEP else tl.store(Z, z)
    elif AXIS == 0:
        tl.store(Z + tl.reshape(rn, (1, BN)) if KEEP else Z + rn, z, mask=(rn < N) if not KEEP else rn[None, :] < N)
    else:
        tl.store(Z + rm[:, None] if KEEP else Z + rm, z, mask=(rm[:, None] < M) if KEEP else rm < M)


@pytest.mark.parametrize("op,axis", [(op, axis) for op in ("sum", "max", "min", "argmax", "argmin")
                                     for axis in (0, 1, None) if not (op.startswith("arg") and axis is None)])
@pytest.mark.parametrize("keep", [False, True])
def test_reductions_float(op, axis, keep):
    M, N = 13, 27
    x = RNG.standard_normal((M, N)).astype(np.float32)
    x[3, 5] = x[3, 9] = 10.0                   # a tie: argmax picks the first index
    out_n = 1 if axis is None else (N if axis == 0 else M)
    is_arg = op.startswith("arg")
    z = np.full(out_n, -7 if is_arg else np.nan, np.int32 if is_arg else np.float32)
    reduce_kernel[(1,)](x, z, M, N, OP=op, AXIS=axis, KEEP=keep, BM=16, BN=32,
                        OUT=tl.int32 if is_arg else tl.float32)
    ref = {"sum": np.sum, "max": np.max, "min": np.min, "argmax": np.argmax, "argmin": np.argmin}[op](x, axis=axis)
    np.testing.assert_allclose(z, np.reshape(ref, -1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype,op,out", [(np.int8, "sum", tl.int32), (np.uint8, "sum", tl.uint32),
                                          (np.int64, "sum", tl.int64), (np.float16, "sum", tl.float16),
                                          (np.float16, "max", tl.float32), (np.int16, "min", tl.int32),
                                          (np.int32, "xor_sum", tl.int32)])
def test_reduction_dtypes(dtype, op, out):
    M, N = 5, 9
    x = (RNG.integers(0 if np.dtype(dtype).kind == "u" else -50, 50, (M, N)) if np.dtype(dtype).kind in "iu"
         else RNG.standard_normal((M, N))).astype(dtype)
    z = np.zeros(N, out.np_dtype)
    reduce_kernel[(1,)](x, z, M, N, OP=op, AXIS=0, KEEP=False, BM=8, BN=16, OUT=out)
    if op == "xor_sum":
        ref = np.bitwise_xor.reduce(x, axis=0)
    else:
        ref = {"sum": np.sum, "max": np.max, "min": np.min}[op](x.astype(np.float64), axis=0)
    np.testing.assert_allclose(z.astype(np.float64), ref.astype(np.float64), rtol=2e-3)


@triton.jit
def _mul_combine(a, b):
    return a * b


@triton.jit
def _pair_max_combine(v1, i1, v2, i2):
    take = v1 > v2
    return tl.where(take, v1, v2), tl.where(take, i1, i2)


@triton.jit
def custom_reduce_kernel(X, P, V, I, n, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(X + r, mask=r < n, other=1.0)
    tl.store(P, tl.reduce(x, 0, _mul_combine))
    v, i = tl.reduce((x, r), 0, _pair_max_combine)
    tl.store(V, v)
    tl.store(I, i)
    tl.store(X + r, tl.associative_scan(x, 0, _mul_combine), mask=r < n)


def test_custom_combine_functions():
    x = (1 + RNG.random(20) * 0.1).astype(np.float32)
    orig = x.copy()
    p, v, i = np.zeros(1, np.float32), np.zeros(1, np.float32), np.zeros(1, np.int32)
    custom_reduce_kernel[(1,)](x, p, v, i, 20, BLOCK=32)
    np.testing.assert_allclose(p[0], np.prod(orig), rtol=1e-5)
    assert v[0] == orig.max() and i[0] == orig.argmax()
    np.testing.assert_allclose(x, np.cumprod(orig), rtol=1e-5)


@triton.jit
def scan_kernel(X, Z, M, N, OP: tl.constexpr, AXIS: tl.constexpr, REVERSE: tl.constexpr,
                BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)[:, None]
    rn = tl.arange(0, BN)[None, :]
    mask = (rm < M) & (rn < N)
    x = tl.load(X + rm * N + rn, mask=mask, other=0 if OP == "cumsum" else 1)
    if OP == "cumsum":
        z = tl.cumsum(x, axis=AXIS, reverse=REVERSE)
    else:
        z = tl.cumprod(x, axis=AXIS, reverse=REVERSE)
    tl.store(Z + rm * N + rn, z, mask=mask)


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
def test_scans(op, axis, reverse):
    M, N = 8, 16       # full blocks: a reverse scan over padding would mix in the fill values
    x = (1 + RNG.random((M, N)) * 0.2).astype(np.float32)
    z = np.full_like(x, np.nan)
    scan_kernel[(1,)](x, z, M, N, OP=op, AXIS=axis, REVERSE=reverse, BM=8, BN=16)
    fn = np.cumsum if op == "cumsum" else np.cumprod
    ref = np.flip(fn(np.flip(x, axis), axis=axis), axis) if reverse else fn(x, axis=axis)
    np.testing.assert_allclose(z, ref, rtol=1e-5)


@triton.jit
def shape_kernel(X, Z, OP: tl.constexpr):
    r4 = tl.arange(0, 4)
    r8 = tl.arange(0, 8)
    x = tl.load(X + r4[:, None] * 8 + r8[None, :])                 # [4, 8]
    if OP == "trans":
        z = tl.trans(x)                                            # [8, 4]
    elif OP == "T":
        z = x.T
    elif OP == "permute3":
        z = tl.permute(tl.reshape(x, (2, 2, 8)), (2, 0, 1))       # [8, 2, 2]
    elif OP == "reshape":
        z = tl.reshape(x, 8, 4)
    elif OP == "view":
        z = x.reshape(32)
    elif OP == "join":
        z = tl.join(x, x + 100)                                    # [4, 8, 2]
    elif OP == "split":
        a, b = tl.split(tl.reshape(x, (4, 4, 2)))
        z = a * 1000 + b                                           # [4, 4]
    elif OP == "interleave":
        z = tl.interleave(x, x + 100)                              # [4, 16]
    elif OP == "cat":
        z = tl.cat(x, x + 100)                                     # [8, 8]
    elif OP == "expand":
        z = tl.broadcast_to(tl.expand_dims(x, 0), (2, 4, 8))       # [2, 4, 8]
    elif OP == "broadcast":
        a, b = tl.broadcast(r4[:, None], r8[None, :])
        z = a * 10 + b
    elif OP == "slice":
        z = tl.extract_slice(x, [1, 2], [2, 2], [2, 3])             # rows 1,3; cols 2,5
    elif OP == "ravel":
        z = tl.ravel(x)
    tl.store(Z + tl.arange(0, z.numel), tl.reshape(z, (z.numel,)))


SHAPE_REF = {
    "trans": lambda x: x.T, "T": lambda x: x.T, "permute3": lambda x: x.reshape(2, 2, 8).transpose(2, 0, 1),
    "reshape": lambda x: x.reshape(8, 4), "view": lambda x: x.reshape(32),
    "join": lambda x: np.stack([x, x + 100], -1), "split": lambda x: x.reshape(4, 4, 2)[..., 0] * 1000 +
    x.reshape(4, 4, 2)[..., 1], "interleave": lambda x: np.stack([x, x + 100], -1).reshape(4, 16),
    "cat": lambda x: np.concatenate([x, x + 100]), "expand": lambda x: np.broadcast_to(x, (2, 4, 8)),
    "broadcast": lambda x: np.arange(4)[:, None] * 10 + np.arange(8)[None, :],
    "slice": lambda x: x[1:4:2, 2:6:3], "ravel": lambda x: x.reshape(-1),
}


@pytest.mark.parametrize("op", sorted(SHAPE_REF))
def test_shape_ops(op):
    x = RNG.integers(-50, 50, (4, 8)).astype(np.int32)
    ref = np.asarray(SHAPE_REF[op](x)).reshape(-1)
    z = np.full(ref.size, -999, np.int32)
    shape_kernel[(1,)](x, z, OP=op)
    np.testing.assert_array_equal(z, ref)


@triton.jit
def dot_kernel(A, B, C, Out, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, MODE: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(A + rm[:, None] * K + rk[None, :])
    b = tl.load(B + rk[:, None] * N + rn[None, :])
    if MODE == "plain":
        c = tl.dot(a, b)
    elif MODE == "acc":
        c = tl.dot(a, b, acc=tl.load(C + rm[:, None] * N + rn[None, :]))
    elif MODE == "fp16_out":
        c = tl.dot(a, b, out_dtype=tl.float16)
    elif MODE == "ieee":
        c = tl.dot(a, b, input_precision="ieee", allow_tf32=None)
    tl.store(Out + rm[:, None] * N + rn[None, :], c)


@pytest.mark.parametrize("dtype,mode,out", [(np.float16, "plain", np.float32), (np.float32, "acc", np.float32),
                                            (np.int8, "plain", np.int32), (np.float16, "fp16_out", np.float16),
                                            (np.float32, "ieee", np.float32)])
def test_dot(dtype, mode, out):
    M, N, K = 16, 32, 16
    if np.dtype(dtype).kind == "i":
        a, b = RNG.integers(-100, 100, (M, K)).astype(dtype), RNG.integers(-100, 100, (K, N)).astype(dtype)
    else:
        a, b = RNG.standard_normal((M, K)).astype(dtype), RNG.standard_normal((K, N)).astype(dtype)
    c = RNG.standard_normal((M, N)).astype(np.float32)
    z = np.zeros((M, N), out)
    dot_kernel[(1,)](a, b, c, z, M=M, N=N, K=K, MODE=mode)
    ref = a.astype(np.float64) @ b.astype(np.float64) + (c if mode == "acc" else 0)
    np.testing.assert_allclose(z.astype(np.float64), ref, rtol=2e-3, atol=2e-2)


def test_dot_shape_errors():
    a = np.zeros((16, 16), np.float16)
    with pytest.raises(CompilationError, match="same dtype"):
        dot_kernel[(1,)](a, a.astype(np.float32), a, a, M=16, N=16, K=16, MODE="plain")


@triton.jit
def batched_dot_kernel(A, B, Out):
    r2, r16 = tl.arange(0, 2), tl.arange(0, 16)
    idx = r2[:, None, None] * 256 + r16[None, :, None] * 16 + r16[None, None, :]
    tl.store(Out + idx, tl.dot(tl.load(A + idx), tl.load(B + idx)))


def test_batched_dot():
    a, b = (RNG.standard_normal((2, 16, 16)).astype(np.float32) for _ in range(2))
    z = np.zeros((2, 16, 16), np.float32)
    batched_dot_kernel[(1,)](a, b, z)
    np.testing.assert_allclose(z, a @ b, rtol=1e-4, atol=1e-4)
