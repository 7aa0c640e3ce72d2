import triton
import triton.language as tl
import numpy as np

# Split-K matmul: the grid's third axis splits K; each program multiplies its K range of one
# output tile and adds the partial product into the f32 output with tl.atomic_add.


@triton.jit
def splitk_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                         stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         SPLIT_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(pid_k * BLOCK_K, K, BLOCK_K * SPLIT_K):
        k_mask = (k - pid_k * BLOCK_K + offs_k) < K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & k_mask[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=k_mask[:, None] & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * SPLIT_K * stride_ak
        b_ptrs += BLOCK_K * SPLIT_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.atomic_add(c_ptrs, acc, mask=c_mask)


CASES = [dict(M=40, N=48, K=300, split_k=4), dict(M=16, N=16, K=64, split_k=2)]


def make_inputs(rng, M, N, K, split_k):
    return dict(a=rng.standard_normal((M, K)).astype(np.float16),
                b=rng.standard_normal((K, N)).astype(np.float16), split_k=split_k)


def host(lib, a, b, split_k):
    M, K = a.shape
    N = b.shape[1]
    c = lib.zeros((M, N), lib.float32)                 # the partial products are added into it
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 16), split_k)
    h = splitk_matmul_kernel[grid](a, b, c, M, N, K, lib.stride(a, 0), lib.stride(a, 1),
                                   lib.stride(b, 0), lib.stride(b, 1), lib.stride(c, 0), lib.stride(c, 1),
                                   BLOCK_M=16, BLOCK_N=16, BLOCK_K=32, SPLIT_K=split_k)
    return dict(c=c), [h]


def reference(a, b, split_k):
    return dict(c=a.astype(np.float32) @ b.astype(np.float32))


TOLERANCE = dict(c=(1e-4, 1e-4))
