"""A tiled GEMM written by hand in MTIA assembly: C[M, N] (f32) = A[M, K] @ B[K, N].

Each program instance computes one BM x BN tile of C on one PE. The K loop streams BM x BK tiles of
A and BK x BN tiles of B into circular buffers `stages` deep, so the DMA of step k+1.. overlaps the
DPE's matmul of step k; the f32 accumulator lives in a one-slot CB updated in place (`acc`).
"""
from __future__ import annotations

import numpy as np

from isa import Program, itemsize


def gemm_program(M: int, N: int, K: int, BM: int = 256, BN: int = 256, BK: int = 32,
                 dtype: str = "f16", stages: int = 3) -> Program:
    if M % BM or N % BN or K % BK:
        raise ValueError(f"this hand-written GEMM needs M % BM == N % BN == K % BK == 0 "
                         f"(got M={M} N={N} K={K}, BM={BM} BN={BN} BK={BK})")
    isz = itemsize(dtype)
    a_slot, b_slot, acc_slot = BM * BK * isz, BK * BN * isz, BM * BN * 4
    a_base, b_base = 0, stages * a_slot
    acc_base = b_base + stages * b_slot
    asm = f"""
.kernel gemm
.arg a ptr {dtype} x10
.arg b ptr {dtype} x11
.arg c ptr f32 x12
.arg M int i32 x13
.arg N int i32 x14
.arg K int i32 x15
.cb 0 a_tiles base={a_base} slot={a_slot} slots={stages}
.cb 1 b_tiles base={b_base} slot={b_slot} slots={stages}
.cb 2 acc base={acc_base} slot={acc_slot} slots=1
    mtia.pid x5, 0
    li x6, {BN}
    div x6, x14, x6              # tiles along N
    div x7, x5, x6               # pm: tile row
    rem x8, x5, x6               # pn: tile column
    li x9, {BM * isz}
    mul x16, x7, x15
    mul x16, x16, x9
    add x16, x10, x16            # &A[pm*BM, 0]
    li x9, {BN * isz}
    mul x17, x8, x9
    add x17, x11, x17            # &B[0, pn*BN]
    li x9, {BM}
    mul x22, x7, x9
    mul x22, x22, x14            # pm*BM*N
    li x9, {BN}
    mul x23, x8, x9
    add x22, x22, x23
    slli x22, x22, 2
    add x22, x12, x22            # &C[pm*BM, pn*BN]
    li x9, {BK * isz}
    mul x21, x14, x9             # bytes from one B tile to the next: BK rows of N
    se.fill cb2.push:f32[{BM}x{BN}], 0.0
    li x20, 0
k_loop:
    dma.in cb0.push:{dtype}[{BM}x{BK}], x16, [x15, 1]
    dma.in cb1.push:{dtype}[{BK}x{BN}], x17, [x14, 1]
    dpe.mm cb2.acc:f32[{BM}x{BN}], cb0.pop:{dtype}[{BM}x{BK}], cb1.pop:{dtype}[{BK}x{BN}]
    addi x16, x16, {BK * isz}
    add x17, x17, x21
    addi x20, x20, {BK}
    blt x20, x15, k_loop
    dma.out cb2.pop:f32[{BM}x{BN}], x22, [x14, 1]
    halt
"""
    return Program.from_asm(asm)


def run_gemm(machine, M: int, N: int, K: int, region: str = "sram", seed: int = 0, **tiling):
    """Allocate random A and B (and a NaN-poisoned C) in `region`, run, return (report, C, A@B)."""
    rng = np.random.default_rng(seed)
    dtype = tiling.get("dtype", "f16")
    np_dt = {"f16": np.float16, "bf16": None}.get(dtype, np.float16)
    a = (rng.standard_normal((M, K)) / 8).astype(np_dt)
    b = (rng.standard_normal((K, N)) / 8).astype(np_dt)
    c = np.full((M, N), np.nan, np.float32)
    g = machine.gmem
    ga, gb, gc = g.alloc_array(a, "A", region), g.alloc_array(b, "B", region), g.alloc_array(c, "C", region)
    prog = gemm_program(M, N, K, **tiling)
    BM, BN = tiling.get("BM", 256), tiling.get("BN", 256)
    rep = machine.run(prog, grid=((M // BM) * (N // BN),), args={"a": ga, "b": gb, "c": gc, "M": M, "N": N, "K": K})
    out = gc.data.view(np.float32)[: M * N].reshape(M, N).copy()
    return rep, out, a.astype(np.float32) @ b.astype(np.float32)
