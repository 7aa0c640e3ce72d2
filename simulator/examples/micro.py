"""Microbenchmarks written directly in MTIA assembly, to check the model against its config.

- `dram_stream`: every PE streams its own slice of memory into a CB (no compute): DRAM bandwidth,
  SRAM and NoC bandwidth when the source is in SRAM scratch, broadcast reads with `bcast`.
- `dram_copy`: every PE copies its slice to another array: a mixed read/write stream.
- `dpe_loop`: every PE runs back-to-back matmuls on tiles already in its local store: DPE peak.
- `channel_stream`: PEs read rows that all map to one DRAM channel: channel contention.
"""
from __future__ import annotations

from isa import Program


def dram_stream(chunks: int, chunk_bytes: int = 32768, stages: int = 4, every: int = 1, share: int = 1,
                bcast: int = 0, columns: int = 0) -> Program:
    """Program instance pid reads `chunks` x `chunk_bytes` from src + (pid // share) * chunks *
    chunk_bytes: `share` consecutive instances read the same slice, with one broadcast read per chunk
    when `bcast` is their number. With `columns` (the grid's), instance pid reads slice pid % columns
    instead: the instances of a grid column share one, and `bcast` groups run down the columns
    (`bcast_col=1`). Instances whose pid is not a multiple of `every` stop at once (so that the PEs
    that stream are `every` apart)."""
    n = chunk_bytes // 4
    opts = (f", bcast={bcast}" if bcast else "") + (", bcast_col=1" if bcast and columns else "")
    slice_of = "rem x5, x5, x6" if columns else "div x5, x5, x6"
    share = columns or share
    return Program.from_asm(f"""
.kernel dram_stream
.arg src ptr f32 x10
.cb 0 sink base=0 slot={chunk_bytes} slots={stages}
    mtia.pid x5, 0
    li x6, {every}
    rem x6, x5, x6
    bne x6, x0, done
    li x6, {share}
    {slice_of}
    li x6, {chunks * chunk_bytes}
    mul x6, x5, x6
    add x7, x10, x6
    li x8, {chunks}
loop:
    dma.in cb0.push:f32[{n}], x7, [1]{opts}
    cb.pop 0                      # released as soon as the data has landed
    addi x7, x7, {chunk_bytes}
    addi x8, x8, -1
    bne x8, x0, loop
done:
    halt
""")


def dram_copy(chunks: int, chunk_bytes: int = 32768, stages: int = 4, dead: bool = False) -> Program:
    """Each program instance copies `chunks` x `chunk_bytes` from src to dst (its slice at pid *
    chunks * chunk_bytes of each): half the traffic reads, half writes. With `dead`, it then
    declares its slice of dst dead (`dma.discard`: a scratch result nobody reads again)."""
    n = chunk_bytes // 4
    hint = f"    dma.discard x13, {chunks * chunk_bytes}\n" if dead else ""
    return Program.from_asm(f"""
.kernel dram_copy
.arg src ptr f32 x10
.arg dst ptr f32 x11
.cb 0 buf base=0 slot={chunk_bytes} slots={stages}
    mtia.pid x5, 0
    li x6, {chunks * chunk_bytes}
    mul x6, x5, x6
    add x7, x10, x6
    add x12, x11, x6
    mv x13, x12
    li x8, {chunks}
loop:
    dma.in cb0.push:f32[{n}], x7, [1]
    dma.out cb0.pop:f32[{n}], x12, [1]
    addi x7, x7, {chunk_bytes}
    addi x12, x12, {chunk_bytes}
    addi x8, x8, -1
    bne x8, x0, loop
{hint}    halt
""")


def dpe_loop(iters: int, m: int = 256, n: int = 256, k: int = 32, dtype: str = "f16") -> Program:
    """Fill A and B once, then `iters` accumulating matmuls with both operands kept in place."""
    isz = 1 if dtype in ("i8", "u8") or dtype.startswith("f8") else 2     # fp8 and int8 are a byte each
    acc = "i32" if dtype in ("i8", "u8") else "f32"
    a, b, c = m * k * isz, k * n * isz, m * n * 4
    return Program.from_asm(f"""
.kernel dpe_loop
.cb 0 a base=0 slot={a} slots=1
.cb 1 b base={a} slot={b} slots=1
.cb 2 acc base={a + b} slot={c} slots=1
    se.fill cb0.push:{dtype}[{m}x{k}], 1.0
    se.fill cb1.push:{dtype}[{k}x{n}], 1.0
    se.fill cb2.push:{acc}[{m}x{n}], 0.0
    li x5, {iters}
loop:
    dpe.mm cb2.acc:{acc}[{m}x{n}], cb0.keep:{dtype}[{m}x{k}], cb1.keep:{dtype}[{k}x{n}]
    addi x5, x5, -1
    bne x5, x0, loop
    cb.pop 0
    cb.pop 1
    cb.pop 2
    halt
""")


def channel_stream(rows: int, channel_stride_bytes: int, row_bytes: int = 256, per_dma: int = 16) -> Program:
    """Read `rows` rows of `row_bytes`, `channel_stride_bytes` apart (a multiple of channels x
    interleave, so every row lands in the same channel); instance pid starts at row pid."""
    n = row_bytes // 4
    stride = channel_stride_bytes // 4
    return Program.from_asm(f"""
.kernel channel_stream
.arg src ptr f32 x10
.cb 0 sink base=0 slot={per_dma * row_bytes} slots=4
    mtia.pid x5, 0
    li x6, {channel_stride_bytes}
    mul x6, x5, x6
    add x7, x10, x6                # instance pid owns rows pid, pid + 2, pid + 4, ...
    li x8, {rows // per_dma}
    li x9, {stride * 2}
    li x11, {channel_stride_bytes * 2 * per_dma}
loop:
    dma.in cb0.push:f32[{per_dma}x{n}], x7, [x9, 1]
    cb.pop 0
    add x7, x7, x11
    addi x8, x8, -1
    bne x8, x0, loop
    halt
""")
