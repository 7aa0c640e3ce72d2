"""DMA commands of the fabric interface: moves between global memory (SRAM scratch, DRAM through
the LLC) and the local store over the NoC. Two commands of one PE that access overlapping bytes of
global memory take effect in the order they were issued (so do a command and a scalar load or store).

Addresses are byte addresses held in x registers; strides and offsets count elements of the tile's
dtype. A descriptor's `valid` extents clip the box at run time (Triton masks turned into effective
shapes), and its `skip` counts clip the box's start (a tensor descriptor's block at a negative corner:
the first `skip[k]` indices of dimension k lie before the tensor): elements outside are neither read
nor written, and loads fill them with `pad`. Box
transfers need a 32-byte aligned base address unless they set `unaligned=1`, the MTIA 2i mode for
unaligned addresses, which costs a partial burst at each end of every contiguous run.

A box may walk one dimension d by a remapped index instead of i_d, so that GPU kernels' wrapped and
clamped rows stay one descriptor (the engine splits it into one box per contiguous part: two for a
wrap of a dimension no longer than its bound):
`wrap=[d, s, m]` steps by (s + i_d) rem m, C's remainder (Triton's `%`); `clamp=[d, s, b, f]` by
s + i_d where that is < b, else f (`tl.where(offs < M, offs, f)`, `tl.minimum(offs, f)`).

Command forms (ISCA'25's custom instructions for tight issue loops; what they save is the control
core's time, see docs/timing-model.md): `inc=n` (auto-increment) adds n elements of the tile's dtype
to the base register once the command is issued, as a post-increment addressing mode does, and the
command processor advances the address it holds by as much; `ctx=c` (multi-context, c >= 1) issues
the command through command context c of its engine, which keeps the operands of the last command
issued through it, so that operands equal to those are not sent again.
"""
from __future__ import annotations

from .fields import FOrImm, Imm, OptTile, TileKind, XList, XOrImm, XReg, choice
from .instruction import Instr, instruction


@instruction("dma.in", "dma")
class DmaIn(Instr):
    """dst[i] = mem[base + sum_k(j_k * strides[k]) * itemsize] for every index i of dst's box with
    skip[k] <= i_k < valid[k] (no lower clip when skip is empty, all of the box when valid is empty),
    j_k = i_k except along a wrapped or clamped dimension (module docstring; a box that skips is not
    remapped); the other elements of dst = pad.

    prefetch (DMA_IN with prefetch): when nonzero, the same box at base + prefetch bytes is also
    brought from DRAM into the LLC (clipped to the array base is in); the transfer does not wait for it.
    bcast=N (N > 1): a broadcast read. The N PEs of this PE's group (N consecutive PEs of a grid row,
    PE index // N; N divides the columns) each issue the same dma.in, and the k-th broadcast read of
    every member is one transfer: memory and the NoC up to where the routes part carry it once. It
    starts when the last member has issued it; a member that never does leaves the others waiting.
    bcast_col=1: the group runs down a grid column instead (N consecutive PEs of a column, grid row
    // N; N divides the rows): ISCA'25's weights broadcast across PE columns. Each row's route to the
    crossbar carries its own copy; the SRAM is read once.
    ctx, inc: the command forms of the module docstring."""
    dst: TileKind
    base: XReg
    strides: XList
    valid: XList = ()
    skip: XList = ()
    pad: FOrImm = 0.0
    unaligned: Imm = 0
    wrap: XList = ()
    clamp: XList = ()
    prefetch: XOrImm = 0
    bcast: Imm = 0
    bcast_col: Imm = 0
    ctx: Imm = 0
    inc: XOrImm = 0


@instruction("dma.out", "dma")
class DmaOut(Instr):
    """mem[base + sum_k(j_k * strides[k]) * itemsize] = src[i] for every index i of src's box with
    skip[k] <= i_k < valid[k], j_k as for dma.in (where a clamp sends several elements to one address, the last
    in row-major order lands); nothing else is written. ctx, inc: the command forms of the module
    docstring."""
    src: TileKind
    base: XReg
    strides: XList
    valid: XList = ()
    skip: XList = ()
    unaligned: Imm = 0
    wrap: XList = ()
    clamp: XList = ()
    ctx: Imm = 0
    inc: XOrImm = 0


@instruction("dma.gather", "dma")
class DmaGather(Instr):
    """dst[i] = mem[base + offsets[i] * itemsize] where mask[i] (or everywhere without a mask);
    dst[i] = pad elsewhere. offsets and mask broadcast to dst's shape. Each element is its own
    memory transaction: the fallback for pointer tensors that are not affine."""
    dst: TileKind
    base: XReg
    offsets: TileKind
    mask: OptTile = None
    pad: FOrImm = 0.0


@instruction("dma.scatter", "dma")
class DmaScatter(Instr):
    """mem[base + offsets[i] * itemsize] = src[i] where mask[i]; later elements win on repeated
    addresses (row-major order)."""
    src: TileKind
    base: XReg
    offsets: TileKind
    mask: OptTile = None


@instruction("dma.rows", "dma")
class DmaRows(Instr):
    """Indexed DMA_IN: dst[r, c] = mem[base + (index[r] * row_stride + j) * itemsize] for
    c < valid_cols (all columns when 0) and the rows r where mask[r] (every row without a mask);
    pad elsewhere. j = c, or with wrap=[start, bound] j = (start + c) rem bound (C's remainder, as
    for dma.in): a row is then up to two runs. One descriptor per row (embedding lookups, rows
    gathered by loaded indices). An index may be negative: it is an offset from base like any other."""
    dst: TileKind
    base: XReg
    index: TileKind
    row_stride: XOrImm
    valid_cols: XOrImm = 0
    pad: FOrImm = 0.0
    mask: OptTile = None
    wrap: XList = ()


@instruction("dma.atomic", "dma")
class DmaAtomic(Instr):
    """For each element i in row-major order where mask[i]: old = mem[a]; mem[a] = op(old, val[i])
    with a = base + offsets[i] * itemsize; dst[i] = old (dst may be none). Without offsets (and mask)
    the addresses are a box, as dma.out's: a = base + sum_k(i_k * strides[k]) * itemsize for every index
    i of val's box with i_k < valid[k] (all of it when valid is empty), in row-major order; dst[i] = 0
    elsewhere (unaligned as for dma.out). Atomic with respect to every other PE: each element's
    read-modify-write happens at the memory in one step."""
    op: choice("add", "max", "min", "xchg", "and", "or", "xor")
    dst: OptTile
    base: XReg
    offsets: OptTile
    val: TileKind
    mask: OptTile = None
    strides: XList = ()
    valid: XList = ()
    unaligned: Imm = 0


@instruction("dma.cas", "dma")
class DmaCas(Instr):
    """For each element i in row-major order: old = mem[a]; if old == cmp[i]: mem[a] = val[i];
    dst[i] = old, with a = base + offsets[i] * itemsize. Atomic like dma.atomic."""
    dst: TileKind
    base: XReg
    offsets: TileKind
    cmp: TileKind
    val: TileKind


@instruction("dma.prefetch", "dma")
class DmaPrefetch(Instr):
    """Bring `nbytes` starting at DRAM address base (within the array base is in) into the LLC part
    of SRAM. No data reaches the local store. The command completes once its descriptor is issued;
    a later load of those lines waits for a fill still in flight."""
    base: XReg
    nbytes: XOrImm


@instruction("dma.discard", "dma")
class DmaDiscard(Instr):
    """Dead-tensor hint: the `nbytes` bytes from DRAM address base hold data nobody reads again.
    Their whole LLC lines are dropped without being written back to DRAM, and those bytes of memory
    become undefined (the simulator fills them with 0xff). Bytes in SRAM scratch are untouched."""
    base: XReg
    nbytes: XOrImm


MAX_DIMS = 4
"""Box descriptors have at most this many dimensions (the innermost is usually contiguous)."""
