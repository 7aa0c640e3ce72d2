"""C = A @ B written the GPU way, as Triton's matmul tutorial does: rows and columns of each tile
wrapped with `% M` / `% N` so that edge tiles read repeated rows instead of masking them, pointer
blocks advanced each K step, the tutorial's 128x128x64 blocks. The compiler keeps the wrapped rows
as DMA boxes (compiler/backend/analysis/affine.py); this kernel is what the benchmark compares against the
library matmul (compiler/kernels/matmul.py), which masks instead."""
from __future__ import annotations

import numpy as np

import compiler as triton
import compiler.language as tl

from . import LibraryKernel
from .matmul import make_inputs, reference


@triton.jit
def matmul_tutorial_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                           stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                           BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def matmul_tutorial(a: np.ndarray, b: np.ndarray, BLOCK_SIZE_M: int = 128, BLOCK_SIZE_N: int = 128,
                    BLOCK_SIZE_K: int = 64, GROUP_SIZE_M: int = 8, **launch):
    M, K = a.shape
    _, N = b.shape
    c = np.full((M, N), np.nan, np.float16)
    grid = (triton.cdiv(M, BLOCK_SIZE_M) * triton.cdiv(N, BLOCK_SIZE_N),)
    run = matmul_tutorial_kernel[grid](a, b, c, M, N, K, a.strides[0] // a.itemsize, a.strides[1] // a.itemsize,
                                       b.strides[0] // b.itemsize, b.strides[1] // b.itemsize, c.strides[0] // 2,
                                       c.strides[1] // 2, BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N,
                                       BLOCK_SIZE_K=BLOCK_SIZE_K, GROUP_SIZE_M=GROUP_SIZE_M, **launch)
    return (c,), [run]


LIBRARY = [
    LibraryKernel("matmul_tutorial", "C = A @ B as Triton's tutorial writes it (% M wrapped rows, 128x128x64)",
                  matmul_tutorial, reference, make_inputs, (2048, 2048, 2048), ((128, 128, 64), (100, 130, 70)),
                  rtol=2e-2, atol=2e-2, dims=("M", "N", "K")),
]
