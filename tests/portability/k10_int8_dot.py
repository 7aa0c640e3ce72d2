import triton
import triton.language as tl
import numpy as np

# int8 x int8 matmul with int32 accumulation (tl.dot on int8 operands gives int32), followed by a
# per-row / per-column dequantisation to f32.


@triton.jit
def int8_matmul_kernel(a_ptr, b_ptr, c_ptr, y_ptr, a_scale_ptr, b_scale_ptr, M, N, K,
                       stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (offs_n[None, :] < N), other=0)
        acc += tl.dot(a, b)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc, mask=mask)
    sa = tl.load(a_scale_ptr + offs_m, mask=offs_m < M, other=0.0)
    sb = tl.load(b_scale_ptr + offs_n, mask=offs_n < N, other=0.0)
    y = acc.to(tl.float32) * sa[:, None] * sb[None, :]
    tl.store(y_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, y, mask=mask)


CASES = [dict(M=40, N=72, K=100), dict(M=32, N=32, K=256)]


def make_inputs(rng, M, N, K):
    return dict(a=rng.integers(-128, 128, (M, K)).astype(np.int8),
                b=rng.integers(-128, 128, (K, N)).astype(np.int8),
                a_scale=rng.uniform(0.001, 0.01, M).astype(np.float32),
                b_scale=rng.uniform(0.001, 0.01, N).astype(np.float32))


def host(lib, a, b, a_scale, b_scale):
    M, K = a.shape
    N = b.shape[1]
    c = lib.output((M, N), lib.int32)
    y = lib.output((M, N), lib.float32)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    h = int8_matmul_kernel[grid](a, b, c, y, a_scale, b_scale, M, N, K, lib.stride(a, 0), lib.stride(a, 1),
                                 lib.stride(b, 0), lib.stride(b, 1), lib.stride(c, 0), lib.stride(c, 1),
                                 BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    return dict(c=c, y=y), [h]


def reference(a, b, a_scale, b_scale):
    c = a.astype(np.int32) @ b.astype(np.int32)
    y = c.astype(np.float32) * a_scale[:, None] * b_scale[None, :]
    return dict(c=c, y=y)


TOLERANCE = dict(y=(1e-6, 1e-7))
