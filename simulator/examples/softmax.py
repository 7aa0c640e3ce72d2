"""Row softmax written by hand in MTIA assembly: y[r, :] = exp(x[r, :] - max(x[r, :])) / sum(...).

x and y are [R, C] f32 arrays in global memory. Each program instance handles one block of BR rows
and runs the whole row pipeline on it, one command per step:

    dma.in     x block                    -> cb0 (x_tiles)
    re.reduce  max over the row            -> cb1 (row_max, [BR x 1])
    se.sub     x - row_max (broadcast)     -> cb2 (shifted)
    se.exp                                 -> cb3 (exps)
    re.reduce  sum over the row            -> cb4 (row_sum, [BR x 1])
    se.div     exps / row_sum (broadcast)  -> cb5 (y_tiles)
    dma.out    y block

Every CB has two slots, so the core runs ahead into the next program instance on the same PE: the
DMA of block i+1 overlaps the SE/RE work of block i and the write-back of block i-1. The [BR x 1]
row statistics broadcast against [BR x C] tiles by numpy rules, as the SE defines.
"""
from __future__ import annotations

import numpy as np

from isa import Program

F32 = 4
BIG_CBS = 4          # CBs of a whole [BR x C] block: x_tiles, shifted, exps, y_tiles
SLOTS = 2


def softmax_program(R: int, C: int, BR: int) -> Program:
    if R % BR:
        raise ValueError(f"this hand-written softmax needs R % BR == 0 (got R={R}, BR={BR})")
    block, stat = BR * C * F32, BR * F32
    bases, at = [], 0
    for nbytes in (block, stat, block, block, stat, block):      # cb0..cb5, packed one after another
        bases.append(at)
        at += SLOTS * nbytes
    tile, col = f"f32[{BR}x{C}]", f"f32[{BR}x1]"
    asm = f"""
.kernel softmax
.arg x ptr f32 x10
.arg y ptr f32 x11
.arg R int i32 x12
.arg C int i32 x13
.cb 0 x_tiles base={bases[0]} slot={block} slots={SLOTS}
.cb 1 row_max base={bases[1]} slot={stat} slots={SLOTS}
.cb 2 shifted base={bases[2]} slot={block} slots={SLOTS}
.cb 3 exps base={bases[3]} slot={block} slots={SLOTS}
.cb 4 row_sum base={bases[4]} slot={stat} slots={SLOTS}
.cb 5 y_tiles base={bases[5]} slot={block} slots={SLOTS}
    mtia.pid x5, 0
    li x6, {block}
    mul x6, x5, x6               # byte offset of this program's block of rows
    add x7, x10, x6              # &x[pid*BR, 0]
    add x8, x11, x6              # &y[pid*BR, 0]
    dma.in cb0.push:{tile}, x7, [x13, 1]
    re.reduce cb1.push:{col}, cb0.keep:{tile}, max, 1
    se.sub cb2.push:{tile}, cb0.pop:{tile}, cb1.pop:{col}
    se.exp cb3.push:{tile}, cb2.pop:{tile}
    re.reduce cb4.push:{col}, cb3.keep:{tile}, sum, 1
    se.div cb5.push:{tile}, cb3.pop:{tile}, cb4.pop:{col}
    dma.out cb5.pop:{tile}, x8, [x13, 1]
    halt
"""
    return Program.from_asm(asm)


def local_store_bytes(C: int, BR: int) -> int:
    """Local store the program's CBs take."""
    return SLOTS * (BIG_CBS * BR * C * F32 + 2 * BR * F32)


def rows_per_block(R: int, C: int, ls_bytes: int, max_rows: int = 64) -> int:
    """The largest power-of-two block of rows (<= max_rows) that divides R and whose CBs fit."""
    br = 1
    while br * 2 <= max_rows and R % (br * 2) == 0 and local_store_bytes(C, br * 2) <= ls_bytes:
        br *= 2
    return br


def run_softmax(machine, R: int, C: int, BR: int | None = None, region: str = "dram", seed: int = 0):
    """Allocate a random x (and a NaN-poisoned y) in `region`, run, return (report, y, numpy's softmax)."""
    if BR is None:
        BR = rows_per_block(R, C, machine.cfg.ls_bytes)
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((R, C)) * 4).astype(np.float32)
    y = np.full((R, C), np.nan, np.float32)
    g = machine.gmem
    gx, gy = g.alloc_array(x, "x", region), g.alloc_array(y, "y", region)
    rep = machine.run(softmax_program(R, C, BR), grid=(R // BR,), args={"x": gx, "y": gy, "R": R, "C": C})
    out = gy.data.view(np.float32)[: R * C].reshape(R, C).copy()
    return rep, out, reference_softmax(x)


def reference_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
