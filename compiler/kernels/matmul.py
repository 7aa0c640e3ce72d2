"""C = act(A @ B): a tiled matmul whose programs walk the output tiles in groups of GROUP_M rows,
so that consecutive programs share tiles of A and B in the LLC (Triton tutorial 03's ordering),
with an optional fused activation applied to the accumulator before the store."""
from __future__ import annotations

import numpy as np

import compiler as triton
import compiler.language as tl

from . import LibraryKernel


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if ACTIVATION == "leaky_relu":
        acc = leaky_relu(acc)
    c = acc.to(tl.float16)
    c_ptrs = c_ptr + stride_cm * offs_m[:, None] + stride_cn * offs_n[None, :]
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def fits(bm: int, bn: int, bk: int, ls_bytes: int) -> bool:
    """Whether the kernel's tiles fit a PE's local store at their smallest depths: the f32 accumulator,
    one slot of each f16 operand block, and the 1 KiB the backend keeps for register spills (the
    allocator deepens the operand buffers where room is left). Checked against compiles at 128-512 KiB."""
    return bm * bn * 4 + (bm * bk + bk * bn) * 2 + 1024 <= ls_bytes


def pick_blocks(M: int, N: int, K: int) -> dict:
    """Output tiles for the device's PEs, as GPU host code sizes tiles by its SMs and shared memory (the
    driver's device properties): of the tiles that fit the local store, the largest (they fill the DPE
    and reuse operands most; 256x256 f32 accumulators just fit MTIA 2i's 384 KiB) whose last wave of
    programs still keeps 90% of the PEs busy, else the candidate that keeps the most busy."""
    props = triton.runtime.driver.active.utils.get_device_properties(0)
    pes = props["multiprocessor_count"]
    tiles = [t for t in [(256, 256), (256, 128), (128, 256), (128, 128), (128, 64), (64, 64), (64, 32), (32, 32)]
             if fits(*t, 32, props["max_shared_mem"])] or [(32, 32)]

    def busy(bm, bn):          # the fraction of PE-waves that have a program to run
        n = triton.cdiv(M, bm) * triton.cdiv(N, bn)
        return n / (triton.cdiv(n, pes) * pes)
    good = [t for t in tiles if busy(*t) >= 0.9]
    bm, bn = good[0] if good else max(tiles, key=lambda t: (busy(*t), t[0] * t[1]))
    return {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": 32, "GROUP_M": 8}


def matmul(a: np.ndarray, b: np.ndarray, activation: str = "", **meta):
    M, K = a.shape
    _, N = b.shape
    c = np.full((M, N), np.nan, np.float16)
    blocks = {**pick_blocks(M, N, K), **{k: v for k, v in meta.items() if k.isupper()}}
    launch = {k: v for k, v in meta.items() if not k.isupper()}
    grid = (triton.cdiv(M, blocks["BLOCK_M"]) * triton.cdiv(N, blocks["BLOCK_N"]),)
    run = matmul_kernel[grid](a, b, c, M, N, K, a.strides[0] // a.itemsize, a.strides[1] // a.itemsize,
                              b.strides[0] // b.itemsize, b.strides[1] // b.itemsize, c.strides[0] // 2,
                              c.strides[1] // 2, ACTIVATION=activation, **blocks, **launch)
    return (c,), [run]


def matmul_leaky_relu(a, b, **meta):
    return matmul(a, b, activation="leaky_relu", **meta)


def reference(a, b):
    return ((a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16),)


def reference_leaky_relu(a, b):
    c = a.astype(np.float32) @ b.astype(np.float32)
    return (np.where(c >= 0, c, np.float32(0.01) * c).astype(np.float16),)


def make_inputs(shape, rng):
    M, N, K = shape
    return ((rng.standard_normal((M, K)) / 4).astype(np.float16), (rng.standard_normal((K, N)) / 4).astype(np.float16))


LIBRARY = [
    LibraryKernel("matmul", "C = A @ B, f16 in, f32 accumulate, grouped tile order", matmul, reference, make_inputs,
                  (2048, 2048, 2048), ((64, 64, 32), (100, 130, 70), (256, 192, 160)), rtol=2e-2, atol=2e-2, dims=("M", "N", "K"),
                  blocks=("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M")),
    LibraryKernel("matmul_leaky_relu", "C = leaky_relu(A @ B), the activation fused before the store",
                  matmul_leaky_relu, reference_leaky_relu, make_inputs, (2048, 2048, 2048),
                  ((64, 64, 32), (100, 130, 70)), rtol=2e-2, atol=2e-2, dims=("M", "N", "K"),
                  blocks=("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M")),
]
