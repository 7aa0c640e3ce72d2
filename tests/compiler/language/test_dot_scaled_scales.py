"""tl.dot_scaled's scales are e8m0 bytes, unsigned whatever integer type holds them: an int8 0x80 is
2^(128 - 127) = 2.0 (Triton's interpreter and GPUs agree). Ours sign-extended an int8 scale and scaled by
-2.0 (a silent wrong answer; upstream test_matmul.py's test_mxfp8_mxfp4_matmul with CONST_SCALE builds its
scale with `.to(tl.int8)` from 128). Scales of another group size than 32 (nvfp4's 16) are refused at the
user's call, not with an internal reshape error inside the library."""
import ml_dtypes
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.errors import CompilationError

from executors import EXECUTORS, launch


@triton.jit
def scaled_e5m2(a_ptr, b_ptr, sa_ptr, sb_ptr, o_ptr, K: tl.constexpr, SIGNED: tl.constexpr):
    r, c, k = tl.arange(0, 32), tl.arange(0, 32), tl.arange(0, K)
    g = tl.arange(0, K // 32)
    a = tl.load(a_ptr + r[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * 32 + c[None, :])
    sa = tl.load(sa_ptr + r[:, None] * (K // 32) + g[None, :])
    sb = tl.load(sb_ptr + c[:, None] * (K // 32) + g[None, :])
    if SIGNED:
        sa = sa.to(tl.int8, bitcast=True)
    tl.store(o_ptr + r[:, None] * 32 + c[None, :], tl.dot_scaled(a, sa, "e5m2", b, sb, "e5m2"))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("signed", [False, True])
def test_scale_bytes_are_unsigned_exponents(executor, signed):
    K = 64
    rng = np.random.default_rng(0)
    a = rng.standard_normal((32, K)).astype(ml_dtypes.float8_e5m2)
    b = rng.standard_normal((K, 32)).astype(ml_dtypes.float8_e5m2)
    sa = rng.integers(120, 136, (32, K // 32)).astype(np.uint8)        # bytes on both sides of 0x80
    sa[0, 0] = 0x80
    sb = rng.integers(120, 136, (32, K // 32)).astype(np.uint8)
    out = np.full((32, 32), np.nan, np.float32)
    launch(scaled_e5m2, (1,), a.view(np.uint8), b.view(np.uint8), sa, sb, out, executor=executor, K=K,
           SIGNED=signed)
    scale_a = np.repeat(2.0 ** (sa.astype(np.float64) - 127), 32, axis=1)
    scale_b = np.repeat(2.0 ** (sb.astype(np.float64) - 127), 32, axis=1).T
    want = (a.astype(np.float64) * scale_a) @ (b.astype(np.float64) * scale_b)
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)


@triton.jit
def scaled_group16(a_ptr, b_ptr, sa_ptr, o_ptr):
    r, k = tl.arange(0, 32), tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + k[None, :])
    b = tl.load(b_ptr + k[:, None] * 32 + r[None, :])
    sa = tl.load(sa_ptr + r[:, None] * 2 + tl.arange(0, 2)[None, :])      # one scale per 16 elements
    tl.store(o_ptr + r[:, None] * 32 + r[None, :], tl.dot_scaled(a, sa, "e5m2", b, None, "e5m2"))  # MARK


def test_scales_of_16_elements_are_refused_at_the_call():
    u8 = np.zeros((32, 32), np.uint8)
    with pytest.raises(CompilationError, match=r"test_dot_scaled_scales.py:\d+:\d+: error: .*one e8m0 scale per 32 "
                                               r"elements(.|\n)*in dot_scaled, compiler/language/mxfp.py:\d+"):
        scaled_group16[(1,)](u8, u8, np.zeros((32, 2), np.uint8), np.zeros((32, 32), np.float32),
                             executor="interpreter")
