"""tl.dot gives the same bits on both executors: the interpreter and the MTIA backend (the DPE, or the
vector core for f64) sum each element the same way (isa/dot_numerics.py). numpy's f32 matmul sums in an
order that depends on operand layout and tile size, and at 128x128 tiles the two executors used to
differ in the last bit of thousands of elements.

For 16-bit operands the contract is also checked against an independent oracle: the exact sum (f64, exact
for these inputs) rounded once to f32. Outputs are NaN-poisoned so an unwritten element fails.
"""
import ml_dtypes
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import launch


@triton.jit
def dot2d(a_ptr, b_ptr, c_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
          TRANS_A: tl.constexpr, TRANS_B: tl.constexpr, ACC: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    if TRANS_A:
        a = tl.load(a_ptr + rm[:, None] + rk[None, :] * M)
    else:
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    if TRANS_B:
        b = tl.load(b_ptr + rk[:, None] + rn[None, :] * K)
    else:
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    if ACC:
        acc = tl.load(c_ptr + rm[:, None] * N + rn[None, :])
        out = tl.dot(a, b, acc)
    else:
        out = tl.dot(a, b)
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], out)


@triton.jit
def dot_k_loop(a_ptr, b_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, BK)
    acc = tl.zeros((M, N), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def dot3d(a_ptr, b_ptr, o_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb, rm, rn, rk = tl.arange(0, B), tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rb[:, None, None] * M * K + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb[:, None, None] * K * N + rk[None, :, None] * N + rn[None, None, :])
    tl.store(o_ptr + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :], tl.dot(a, b))


DTYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f8e4m3": ml_dtypes.float8_e4m3fn,
          "f64": np.float64}


def _operand(rng, shape, dtype):
    return rng.standard_normal(shape).astype(DTYPES[dtype])


def _both(kernel, out_shape, out_dtype, *args):
    """The kernel's output on each executor, NaN-poisoned first."""
    outs = []
    for executor in ("interpreter", "mtia"):
        out = np.full(out_shape, np.nan, out_dtype)
        launch(kernel, (1,), *args[:-1], out, *args[-1], executor=executor)
        assert not np.isnan(out).any(), f"unwritten elements on {executor}"
        outs.append(out)
    return outs


def _same_bits(interp, mtia):
    differ = interp.view(np.uint64 if interp.itemsize == 8 else np.uint32) != \
        mtia.view(np.uint64 if mtia.itemsize == 8 else np.uint32)
    assert not differ.any(), f"{differ.sum()} of {differ.size} elements differ between the executors"


SHAPES = [(128, 256, 32, False, False), (128, 128, 64, True, False), (64, 128, 128, False, True),
          (16, 32, 16, True, True)]
# an f64 dot runs on the vector core (one vfmacc per k and strip of a row): smaller shapes keep it quick
F64_SHAPES = [(32, 64, 16, False, False), (16, 32, 16, True, True), (4, 256, 8, False, True)]
CASES = [(dt, *shape) for dt in ("f16", "bf16", "f32", "f8e4m3") for shape in SHAPES] + \
        [("f64", *shape) for shape in F64_SHAPES]


@pytest.mark.parametrize("dtype, M, N, K, trans_a, trans_b", CASES)
@pytest.mark.parametrize("acc", [False, True])
def test_one_dot_agrees_bit_for_bit(dtype, M, N, K, trans_a, trans_b, acc):
    rng = np.random.default_rng(M + N + K + 7 * trans_a + 3 * trans_b + acc)
    a, b = _operand(rng, (M, K), dtype), _operand(rng, (K, N), dtype)
    out_dtype = np.float64 if dtype == "f64" else np.float32
    c = rng.standard_normal((M, N)).astype(out_dtype)
    a_in = np.ascontiguousarray(a.T) if trans_a else a
    b_in = np.ascontiguousarray(b.T) if trans_b else b
    interp, mtia = _both(dot2d, (M, N), out_dtype, a_in, b_in, c, (M, N, K, trans_a, trans_b, acc))
    _same_bits(interp, mtia)
    if dtype in ("f16", "bf16"):          # the oracle: the exact sum rounded once, plus c rounded once
        exact = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
        np.testing.assert_array_equal(mtia, exact + c if acc else exact)


@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_dot_accumulated_over_k_steps_agrees(dtype):
    """The K loop's steps (the backend coalesces them into one command's slices): rounded to f32 between
    steps on both executors."""
    rng = np.random.default_rng(5)
    M, N, K, BK = 128, 128, 256, 64
    a, b = _operand(rng, (M, K), dtype), _operand(rng, (K, N), dtype)
    interp, mtia = _both(dot_k_loop, (M, N), np.float32, a, b, (M, N, K, BK))
    _same_bits(interp, mtia)
    steps = np.zeros((M, N), np.float32)
    for k in range(0, K, BK):
        steps = steps + (a[:, k:k + BK].astype(np.float64) @ b[k:k + BK].astype(np.float64)).astype(np.float32)
    if dtype == "f16":
        np.testing.assert_array_equal(mtia, steps)


def test_batched_dot_agrees():
    rng = np.random.default_rng(11)
    B, M, N, K = 2, 64, 128, 32
    a, b = _operand(rng, (B, M, K), "f16"), _operand(rng, (B, K, N), "f16")
    interp, mtia = _both(dot3d, (B, M, N), np.float32, a, b, (B, M, N, K))
    _same_bits(interp, mtia)
    np.testing.assert_array_equal(mtia, (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32))
