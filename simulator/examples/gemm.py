"""A tiled GEMM written by hand in MTIA assembly: C[M, N] (f32) = A[M, K] @ B[K, N].

Each program instance computes one BM x BN tile of C on one PE. The K loop streams BM x BK tiles of
A and BK x BN tiles of B into circular buffers `stages` deep, so the DMA of step k+1.. overlaps the
DPE's matmul of step k; the f32 accumulator lives in a CB that the first matmul writes and the
others update in place (`acc`). With `splits=S`
the tile is computed as S bands of BM/S rows one after another, each with its own K loop, and the
accumulator CB has two slots: a band's store overlaps the next band's matmuls, so only the last
band's store is left at the end (at the price of streaming B S times).

For a weight-bound GEMM (ISCA'25's 512 x 26592 x 2048) two MTIA paths apply:
- `bcast=G`: the G programs of a group (consecutive program ids, so G consecutive PEs of a grid row)
  compute the G tiles of one column of C, and read each B tile with one broadcast read;
- `prefetch=D`: each B load also prefetches the B tile D steps further down K into the LLC, so DRAM
  runs ahead of the loads that need its lines;
- `b_tiles=True`: B is stored tile by tile (weights packed offline, each BK x BN tile contiguous),
  so a tile is one DRAM stream instead of BK rows in BK DRAM pages.
"""
from __future__ import annotations

import numpy as np

from isa import Program, itemsize

from ..launch import DEFAULT_PE_MAPPING


def gemm_program(M: int, N: int, K: int, BM: int = 256, BN: int = 256, BK: int = 32,
                 dtype: str = "f16", stages: int = 3, bcast: int = 0, prefetch: int = 0, b_tiles: bool = False,
                 m_fastest: bool | None = None, splits: int = 1) -> Program:
    """`m_fastest` (default: when broadcasting) numbers the tiles down M first, so that consecutive
    program ids share a column of B."""
    if M % BM or N % BN or K % BK:
        raise ValueError(f"this hand-written GEMM needs M % BM == N % BN == K % BK == 0 "
                         f"(got M={M} N={N} K={K}, BM={BM} BN={BN} BK={BK})")
    if bcast > 1 and (M // BM) % bcast:
        raise ValueError(f"bcast={bcast}: the {M // BM} tiles along M must split into groups of {bcast}")
    if BM % splits:
        raise ValueError(f"splits={splits} must divide BM={BM}")
    SM = BM // splits                  # rows of one band
    isz = itemsize(dtype)
    a_slot, b_slot, acc_slot = SM * BK * isz, BK * BN * isz, SM * BN * 4
    a_base, b_base = 0, stages * a_slot
    acc_base = b_base + stages * b_slot
    if m_fastest is None:
        m_fastest = bcast > 1
    if m_fastest:         # consecutive programs share a tile column (a broadcast group)
        order = f"""    li x6, {M // BM}
    rem x7, x5, x6               # pm: tile row
    div x8, x5, x6               # pn: tile column"""
    else:
        order = f"""    li x6, {BN}
    div x6, x14, x6              # tiles along N
    div x7, x5, x6               # pm: tile row
    rem x8, x5, x6               # pn: tile column"""
    b_step = BK * BN * isz if b_tiles else BK * N * isz          # bytes from one B tile to the next down K
    b_col = K * BN * isz if b_tiles else BN * isz                # bytes from one tile column of B to the next
    b_rows = BN if b_tiles else N                                # elements between rows of a B tile
    b_opts = (f", prefetch={prefetch * b_step}" if prefetch else "") + (f", bcast={bcast}" if bcast > 1 else "")
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
.cb 2 acc base={acc_base} slot={acc_slot} slots={1 if splits == 1 else 2}
    mtia.pid x5, 0
{order}
    li x9, {BM * isz}
    mul x16, x7, x15
    mul x16, x16, x9
    add x16, x10, x16            # &A[pm*BM, 0]
    li x9, {b_col}
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
    li x21, {b_step}             # bytes from one B tile to the next
    mv x25, x17                  # the B column, again for every band
    mv x26, x16                  # the band's first row of A
    li x27, {SM * isz}
    mul x27, x27, x15            # bytes from one band of A to the next
    li x24, 0
band:
    mv x16, x26
    mv x17, x25
    dma.in cb0.push:{dtype}[{SM}x{BK}], x16, [x15, 1]
    dma.in cb1.push:{dtype}[{BK}x{BN}], x17, [{b_rows}, 1]{b_opts}
    dpe.mm cb2.push:f32[{SM}x{BN}], cb0.pop:{dtype}[{SM}x{BK}], cb1.pop:{dtype}[{BK}x{BN}]
    addi x16, x16, {BK * isz}    # the first K step writes the accumulator fresh: no fill to wait for
    add x17, x17, x21
    li x20, {BK}
    bge x20, x15, stored
k_loop:
    dma.in cb0.push:{dtype}[{SM}x{BK}], x16, [x15, 1]
    dma.in cb1.push:{dtype}[{BK}x{BN}], x17, [{b_rows}, 1]{b_opts}
    dpe.mm cb2.acc:f32[{SM}x{BN}], cb0.pop:{dtype}[{SM}x{BK}], cb1.pop:{dtype}[{BK}x{BN}]
    addi x16, x16, {BK * isz}
    add x17, x17, x21
    addi x20, x20, {BK}
    blt x20, x15, k_loop
stored:
    dma.out cb2.pop:f32[{SM}x{BN}], x22, [x14, 1]
    add x26, x26, x27
    li x9, {SM * 4}
    mul x9, x9, x14
    add x22, x22, x9             # the next band of C
    addi x24, x24, 1
    li x9, {splits}
    blt x24, x9, band
    halt
"""
    return Program.from_asm(asm)


def run_gemm(machine, M: int, N: int, K: int, region: str = "sram", seed: int = 0, act_region: str | None = None,
             **tiling):
    """Allocate random A and B (and a NaN-poisoned C) in `region`, or only the weights B there and
    the activations A and C in `act_region` (ISCA'25's weight-bound GEMM keeps its activations in
    SRAM scratch), run, return (report, C, A@B)."""
    rng = np.random.default_rng(seed)
    dtype = tiling.get("dtype", "f16")
    np_dt = {"f16": np.float16, "bf16": None}.get(dtype, np.float16)
    a = (rng.standard_normal((M, K)) / 8).astype(np_dt)
    b = (rng.standard_normal((K, N)) / 8).astype(np_dt)
    c = np.full((M, N), np.nan, np.float32)
    g = machine.gmem
    BN = tiling.get("BN", 256)
    packed = np.ascontiguousarray(b.reshape(K, N // BN, BN).transpose(1, 0, 2)) if tiling.get("b_tiles") else b
    ga, gb = g.alloc_array(a, "A", act_region or region), g.alloc_array(packed, "B", region)
    gc = g.alloc_array(c, "C", act_region or region)
    prog = gemm_program(M, N, K, **tiling)
    BM = tiling.get("BM", 256)
    # a broadcast group is G consecutive program ids on G consecutive PEs: round robin keeps them so on
    # every pass over the grid (linear placement would give one PE several members of a group)
    mapping = "round_robin" if tiling.get("bcast", 0) > 1 else DEFAULT_PE_MAPPING
    rep = machine.run(prog, grid=((M // BM) * (N // BN),), args={"a": ga, "b": gb, "c": gc, "M": M, "N": N, "K": K},
                      pe_mapping=mapping)
    out = gc.data.view(np.float32)[: M * N].reshape(M, N).copy()
    return rep, out, a.astype(np.float32) @ b.astype(np.float32)
