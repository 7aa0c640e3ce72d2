"""y = x @ W.T for a few rows of x (a decode step's linear layer): W streamed once at the DRAM floor.

W is in PyTorch's `nn.Linear` layout, [N, K] with K contiguous, so each output column is one
contiguous row of W. A program owns BLOCK_N rows of W and walks them in BLOCK_K chunks: each load
is BLOCK_N runs of BLOCK_K * 2 contiguous bytes, long enough that a DRAM page (2 KB) opened for a
run serves most of it (the tiled matmul's 64- to 128-byte runs of a [K, N] slab open a row for
nearly every run: 19-27% of the channel time went to activates, so decode GEMVs stopped at ~75% of
the floor). The products accumulate element-wise on the SE ([BLOCK_N, BLOCK_K] in f32) and reduce
once at the end: at one MAC per weight the DPE's 32-row tiles would be 1/32 used, and the SE's work
stays an order of magnitude below the DRAM time. Rows of x beyond the first are more programs on
the same W tile, placed next to each other, so the LLC serves the repeats; but the SE's work grows
with M (1x4096x4096 at 97% of the floor, 4x at 75%, 16x at 39%): past a few rows a skinny GEMM
wants the DPE, W's tile as its A operand.

The block sizes come from a rule (`pick_blocks`), not from trial runs: a weight-streaming kernel's
time is the DRAM floor as long as every PE has work and the runs are long.
"""
from __future__ import annotations

import numpy as np

import compiler as triton
import compiler.language as tl

from . import LibraryKernel


@triton.jit
def gemv_kernel(x_ptr, w_ptr, y_ptr, M, N, K, stride_xm, stride_wn, stride_ym,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(axis=0)
    m = pid % M                     # the rows of x sharing a W tile run side by side (LLC reuse)
    rows = (pid // M) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + m * stride_xm + cols, mask=cols < K, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + rows[:, None] * stride_wn + cols[None, :],
                    mask=(rows[:, None] < N) & (cols[None, :] < K), other=0.0)
        acc += w.to(tl.float32) * x[None, :]
    y = tl.sum(acc, axis=1)
    tl.store(y_ptr + m * stride_ym + rows, y.to(tl.float16), mask=rows < N)


MIN_RUN_BYTES = 512         # a W run of at least two 256-byte channel granules: few activates per byte
MAX_BLOCK_K = 512           # 1 KB runs already reach ~97% of the floor; longer ones only cost local store
STAGES = 3                  # the default pipeline depth: loads in flight while the SE works


def pick_blocks(M: int, N: int, K: int, num_pes: int, ls_bytes: int) -> dict:
    """BLOCK_K: the longest run up to MAX_BLOCK_K, a power of two that divides K if one does (no
    masked tail chunk). BLOCK_N: the largest power of two up to 64 whose grid keeps 90% of the
    PE-waves busy (else the one keeping most busy) and whose f32 accumulator plus STAGES W tiles
    fit half the local store."""
    bk = MAX_BLOCK_K
    while bk > MIN_RUN_BYTES // 2 and K % bk:
        bk //= 2
    bk = min(bk, max(16, 1 << (K - 1).bit_length()))

    def busy(bn):
        n = triton.cdiv(N, bn) * M
        return n / (triton.cdiv(n, num_pes) * num_pes)

    def fits(bn):
        return bn * bk * (4 + 2 * STAGES) <= ls_bytes // 2
    sizes = [bn for bn in (64, 32, 16, 8, 4, 2, 1) if fits(bn)]
    good = [bn for bn in sizes if busy(bn) >= 0.9]
    bn = good[0] if good else max(sizes, key=busy)
    return {"BLOCK_N": bn, "BLOCK_K": bk}


def gemv(x: np.ndarray, w: np.ndarray, **meta):
    """y[m, n] = sum_k x[m, k] * w[n, k] (f16 in and out, f32 accumulate); x is [M, K] or [K]."""
    x2 = x.reshape(1, -1) if x.ndim == 1 else x
    M, K = x2.shape
    N, Kw = w.shape
    if Kw != K or w.strides[1] != w.itemsize or x2.strides[1] != x2.itemsize:
        raise ValueError(f"gemv wants x [M, K] and w [N, K] with K contiguous; got {x.shape} and {w.shape}")
    device = triton.runtime.driver.active.utils.get_device_properties(0)     # as GPU host code sizes its grid
    blocks = {**pick_blocks(M, N, K, device["multiprocessor_count"], device["max_shared_mem"]), **{k: v for k, v in meta.items() if k.isupper()}}
    launch = {k: v for k, v in meta.items() if not k.isupper()}
    y = np.full((M, N), np.nan, np.float16)      # poisoned: an element the kernel misses stays NaN
    grid = (triton.cdiv(N, blocks["BLOCK_N"]) * M,)
    run = gemv_kernel[grid](x2, w, y, M, N, K, x2.strides[0] // 2, w.strides[0] // 2, y.strides[0] // 2,
                            **blocks, **launch)
    return (y.reshape(N) if x.ndim == 1 else y,), [run]


def reference(x, w):
    y = x.astype(np.float32) @ w.astype(np.float32).T
    return (y.astype(np.float16),)


def make_inputs(shape, rng):
    """shape (M, K, N), as the decode step names it: M tokens, K in, N out."""
    M, K, N = shape
    return ((rng.standard_normal((M, K)) / 4).astype(np.float16), (rng.standard_normal((N, K)) / 4).astype(np.float16))


LIBRARY = [
    LibraryKernel("gemv", "y = x @ W.T for a few rows x, W [N, K] streamed in long rows at the DRAM floor", gemv,
                  reference, make_inputs, (1, 4096, 11008), ((1, 64, 96), (1, 100, 70), (3, 130, 50), (1, 1000, 33)),
                  rtol=2e-2, atol=2e-2, dims=("M", "K", "N")),
]
