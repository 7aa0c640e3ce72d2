"""y = x @ W.T for a few rows of x (a decode step's linear layer): W streamed once at the DRAM floor.

W is in PyTorch's `nn.Linear` layout, [N, K] with K contiguous, so each output column is one
contiguous row of W. A program owns BLOCK_N rows of W and walks them in BLOCK_K chunks: each load
is BLOCK_N runs of BLOCK_K * 2 contiguous bytes, long enough that a DRAM page (2 KB) opened for a
run serves most of it (the tiled matmul's 64- to 128-byte runs of a [K, N] slab open a row for
nearly every run: 19-27% of the channel time went to activates, so decode GEMVs stopped at ~75% of
the floor). The products accumulate element-wise on the SE ([BLOCK_N, BLOCK_K] in f32, one se.fma
per tile) and reduce once at the end: at one MAC per weight the DPE's 32-row tiles would be 1/32
used, and the SE's work stays well below the DRAM time. (A multiply then an add took twice the SE
commands and an f32 products tile: 10 bytes through the local-store port per weight byte against
6, which on MTIA 300, whose PEs each carry 1/72 of 6.1 TB/s, was 45% of the SE's time and the run's
tail.) Rows of x beyond the first are more programs on
the same W tile, placed next to each other, so the LLC serves the repeats; but the SE's work grows
with M (1x4096x4096 at 97% of the floor, 4x at 75%, 16x at 39%): past a few rows a skinny GEMM
wants the DPE, W's tile as its A operand.

The block sizes come from a rule (`pick_blocks`), not from trial runs: a weight-streaming kernel's
time is the DRAM floor as long as the runs are long and the PEs with work can draw the bandwidth,
so the rule costs a grid by a wave model of the chip's DRAM and PE bandwidths (`estimate_ns`), not
by how many PEs it keeps busy.
"""
from __future__ import annotations

import numpy as np

import compiler as triton
import compiler.language as tl
from compiler.runtime.target import default_config

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
        acc = tl.fma(w.to(tl.float32), x[None, :], acc)
    y = tl.sum(acc, axis=1)
    tl.store(y_ptr + m * stride_ym + rows, y.to(tl.float16), mask=rows < N)


MIN_RUN_BYTES = 512         # a W run of at least two 256-byte channel granules: few activates per byte
MAX_BLOCK_K = 512           # 1 KB runs already reach ~97% of the floor; longer ones only cost local store
TAIL_WASTE = 1 / 16         # the masked last chunk of a row may waste up to this much of the SE's work
# bytes through a PE's local-store port per byte of W: the DMA writes the f16 tile (1), se.fma reads it
# (1) and the f32 accumulator (2) and writes that back (2)
LS_BYTES_PER_W_BYTE = 6
# DRAM round trips a program waits for that its stream does not hide: its first tile and its store
# (the next program's loads queue behind the store). Fitted: MTIA 300 runs of 1x4096x4096 at BLOCK_N
# 8..64 cost 0.24-0.41 us a wave beyond their bytes, 2.4-4 x the 100 ns HBM latency; 2 is the low end
ROUND_TRIPS_PER_PROGRAM = 2


def stream_gbps(cfg) -> float:
    """How fast one PE streams W through this kernel (GB/s): the least of its DMA port, its local
    store's port (LS_BYTES_PER_W_BYTE) and its SE (one fused multiply-add per f16 weight)."""
    se_gbps = cfg.pe.se.elems_per_cycle * 2 * cfg.clock_ghz
    return min(cfg.pe.dma.gbps, cfg.pe.local_store_gbps / LS_BYTES_PER_W_BYTE, se_gbps)


def footprint(bn: int, bk: int) -> int:
    """Local-store bytes of the kernel's buffers at their smallest depths: the f32 accumulator, two
    slots of the f16 W tile (one streaming in while the SE works on the other), two of the x chunk (f16
    and f32), and the 1 KiB the backend keeps for register spills."""
    return bn * bk * (4 + 2 * 2) + bk * (2 + 4) * 2 + 1024


def estimate_ns(M: int, N: int, K: int, bn: int, bk: int, cfg) -> float:
    """The kernel's time on `cfg` by a wave model, for choosing blocks (not a timing): each wave of
    programs takes the longer of its W bytes at the DRAM bandwidth (a W tile is read from DRAM once
    for the M rows of x next to each other) and one program's bytes at a PE's `stream_gbps`; each wave
    adds ROUND_TRIPS_PER_PROGRAM DRAM latencies, and the run the SE's work on its last tile."""
    pes = cfg.num_pes
    programs = triton.cdiv(N, bn) * M
    program_bytes = bn * K * 2
    stream = stream_gbps(cfg)
    full, last = divmod(programs, pes)
    waves = [pes] * full + ([last] if last else [])
    ns = sum(max(n * program_bytes / M / cfg.dram.bandwidth_gbps, program_bytes / stream) for n in waves)
    return ns + len(waves) * ROUND_TRIPS_PER_PROGRAM * cfg.dram.latency_ns + bn * bk * 2 / stream


def pick_blocks(M: int, N: int, K: int, cfg) -> dict:
    """Blocks for `cfg` (a simulator Config: its PEs, local store, DRAM and PE bandwidths).

    BLOCK_K: the longest run up to MAX_BLOCK_K (and no longer than K needs), a power of two whose
    masked last chunk of a row wastes under TAIL_WASTE of the SE's work, down to 256 (512-byte runs):
    K = 11008 takes 512 (21.5 chunks).

    BLOCK_N: of the powers of two up to 64 whose buffers fit the local store, the one `estimate_ns`
    finds fastest (the larger on a tie). The kernel is bound by DRAM, so a last wave of few programs
    costs nothing as long as their PEs still draw the bandwidth (MTIA 300 needs 33 of its 72 PEs for
    6.1 TB/s; MTIA 2i 5 of its 64 for 205 GB/s), while each wave costs a program's unhidden round
    trips. (Costing a wave as all the PEs, as a compute-bound kernel's rule does, took 1024 programs of
    4 rows at N = 4096 on MTIA 300: 12 KB in flight per PE, short of the HBM's bandwidth x latency,
    at 50% of the floor; down_proj, K = 11008, took 4 x 256 tiles at 36%.)"""
    bk = min(MAX_BLOCK_K, max(16, 1 << (K - 1).bit_length()))
    while bk > MIN_RUN_BYTES // 2 and triton.cdiv(K, bk) * bk - K > TAIL_WASTE * K:
        bk //= 2
    sizes = [bn for bn in (64, 32, 16, 8, 4, 2, 1) if footprint(bn, bk) <= cfg.ls_bytes] or [1]
    bn = min(sizes, key=lambda bn: estimate_ns(M, N, K, bn, bk, cfg))     # min keeps the first (largest) of ties
    return {"BLOCK_N": bn, "BLOCK_K": bk}


def gemv(x: np.ndarray, w: np.ndarray, **meta):
    """y[m, n] = sum_k x[m, k] * w[n, k] (f16 in and out, f32 accumulate); x is [M, K] or [K]."""
    x2 = x.reshape(1, -1) if x.ndim == 1 else x
    M, K = x2.shape
    N, Kw = w.shape
    if Kw != K or w.strides[1] != w.itemsize or x2.strides[1] != x2.itemsize:
        raise ValueError(f"gemv wants x [M, K] and w [N, K] with K contiguous; got {x.shape} and {w.shape}")
    cfg = default_config()          # the device the launch runs on, as GPU host code sizes its grid
    blocks = {**pick_blocks(M, N, K, cfg), **{k: v for k, v in meta.items() if k.isupper()}}
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
