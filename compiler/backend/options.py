"""The MTIA backend's optimisation switches: each is on by default and can be turned off alone, so its
effect can be measured (`python -m mtiasim.bench.kernels` prints every switch's ablation).

A launch takes them as `mtia_options={"remap_boxes": False}` (and `compile(..., mtia_options=...)`);
`num_stages` stays Triton's own launch keyword.
"""
from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class BackendOptions:
    remap_boxes: bool = True
    """Wrapped (`% M`) and clamped (`tl.where(offs < M, offs, 0)`) rows stay DMA boxes; off: they
    become element-wise gathers over materialised address tiles."""
    mask_boxes: bool = True
    """Masks that are boxes become clipped DMA extents (the effective shape); off: masked loads and
    stores are element-wise gathers and scatters under the mask."""
    select_boxes: bool = True
    """A `tl.where` whose condition is a box mask (`tl.where(cols < n, x, 0.0)`) is one SE command
    taking the valid extents as scalars (`se.select_box`, compiler/backend/passes/select_boxes.py); off:
    the SE builds the index block, compares it into a mask tile and selects under that."""
    transposed_boxes: bool = True
    """A 2-D box load whose contiguous axis is its first (a [BK, BN] tile of an `nn.Linear` weight's
    W.T) reads the box the other way, a run per row, and transposes it in the local store: a view
    when only tl.dot reads it (compiler/backend/passes/transpose_boxes.py); off: the DMA reads it as
    written, one element per burst."""
    licm: bool = True
    """Loop-invariant scalar address arithmetic is hoisted out of loops; off: it is recomputed by the
    control core every iteration."""
    fold_casts: bool = True
    """A widening cast (f16/bf16 -> f32, i8/i16/i32 -> float) read only by SE arithmetic is no
    command: the SE reads the narrow tile and converts it as it computes (the same numbers); off:
    an SE copy writes the widened tile first."""
    broadcast_reads: bool = True
    """A box load that the programs running together on a broadcast group (N PEs of a grid row, or
    of a grid column when no row group reads it alike) read alike is one broadcast read for the
    group (`dma.in ... bcast=N`, `bcast_col=1` for a column), decided at launch from the grid, the
    arguments and the placement (`pe_mapping`; backend/launch/broadcast.py). Off: every PE reads its own
    copy."""
    rotate_carried: bool = True
    """A loop-carried tile each iteration makes afresh (computed one iteration ahead, as a software-
    pipelined loop does) rotates through two slots of its buffer; off: it is copied into the carried
    slot at the end of every iteration (an SE move of the whole tile)."""
    auto_increment: bool = True
    """A box DMA whose base register the same block then advances by a constant or loop-invariant step
    takes the auto-increment form (`inc=`) and the update goes (compiler/backend/program/command_forms.py);
    off: the control core computes each address and sends it with the command."""
    index_windows: bool = True
    """A load through indices that a `tl.device_assert` before it keeps inside a small window of each
    row (DLRM's pair gather `z[:, li, lj]`) is one DMA box of the windows and a gather in the local
    store (backend/analysis/windows.py), wherever the launch's windows stay inside the array (else that launch
    takes the gathers: launch/window_bounds.py); off: an element-wise DMA gather of the indexed elements."""
    row_loads: bool = True
    """A 2-D load whose rows an index block picks (`table + idx[:, None] * D + cols[None, :]`: an
    embedding lookup, a paged KV cache) reads each row as one run, `dma.rows` with the index tile
    (compiler/backend/analysis/rows.py); off: an element-wise DMA gather over a materialised offsets tile."""
    command_contexts: bool = True
    """Each DMA and DPE command in a loop is issued through a command context of its own (`ctx=`), so
    it sends only the operands that changed since its last issue; off: every command sends all its
    operands."""
    coalesce_k: bool = True
    """A matmul loop that loads A [BM, BK] and B [BK, BN] as boxes moving on by BK along K and accumulates
    tl.dot(a, b) runs two K steps per iteration: one box of [BM, 2BK], one of [2BK, BN] and one dpe.mm
    over both halves (`kslices=2`: the same sums and rounding, the same DPE time), where the doubled
    tiles fit the local store at full depth (compiler/backend/passes/coalesce_k.py); off: three commands
    per K step, as written."""
    defer_stores: bool = True
    """A program whose result leaves in one final store of a tile a loop accumulates (a matmul's C)
    runs as a persistent program over its PE's program ids (`mtia.next_pid`), and each program's
    final store is issued by the next program on the PE after that one's first loads, so that the
    loads do not wait in the DMA's queue behind a store that waits for the epilogue
    (compiler/backend/program/defer_store.py); decided at launch where no array read is one written. Off:
    each program's store precedes the next program's loads."""

    @staticmethod
    def names() -> tuple[str, ...]:
        return tuple(f.name for f in fields(BackendOptions))

    @staticmethod
    def of(value) -> "BackendOptions":
        """From a BackendOptions, a dict of switches, or None (all on); unknown names are refused."""
        if value is None:
            return BackendOptions()
        if isinstance(value, BackendOptions):
            return value
        if not isinstance(value, dict):
            raise TypeError(f"mtia_options must be a dict of switches ({', '.join(BackendOptions.names())}), "
                            f"got {value!r}")
        bad = [k for k in value if k not in BackendOptions.names()]
        if bad:
            raise ValueError(f"unknown mtia_options {', '.join(map(repr, bad))}; the switches are "
                             f"{', '.join(BackendOptions.names())}")
        for k, v in value.items():
            if not isinstance(v, bool):
                raise TypeError(f"mtia_options[{k!r}] must be True or False, got {v!r}")
        return BackendOptions(**value)

    def off(self) -> tuple[str, ...]:
        """The switches turned off (the cache key part and the report's note)."""
        return tuple(n for n in self.names() if not getattr(self, n))
