"""The launch memo (`launch_memo.py`) for launches on a carried memory state (`memory_state=`: the LLC that
earlier kernels of a model run left, `simulator.chip.memory_state`).

Such a launch's cycles depend on what it finds in the LLC, and it leaves the LLC changed for the next
one: a reused record must have started from the same state, and skipping the simulation must still
leave the state as the launch would have. So the memo keeps, with each record:

- the incoming state's class, in the key (`state_class`): for each buffer the launch's pointer arguments
  point into (in argument order), which of its lines are cached and which of those dirty, relative to the
  buffer's first line; and how full the rest of the LLC is, in sixteenths of its lines, cached and dirty;
- the launch's effect (`effect`): which lines of each of those buffers it left cached and dirty, relative
  to the buffer. A reuse puts them back (`replay`, `MemoryState.restore`): lines it left come in (evicting
  their sets' least recently used lines, as its own fills did), lines it evicted leave.

Keys are relative: a buffer is known by its size, region, guard and its address modulo the larger of an
LLC line and a DMA burst (what decides which lines and bursts an access covers), not by where it is, so that layer 3 of a stack, whose weights and activations lie
elsewhere than layer 2's but which finds its activations warm and its weights cold exactly as layer 2 did,
reuses layer 2's record. Why that is sound, and where it is an approximation:

- what a launch reads and writes is a function of its program, grid, scalars and the offsets of its
  pointers into their buffers (the key); a program whose data can reach an address (a gather) keeps the
  absolute key with the bytes of every buffer (`launch_memo.data_key`), since its addresses are data;
- which of those accesses hit, and which lines are dirty, is the per-buffer class: exact;
- a miss's fill evicts some other line, whose dirtiness costs a write-back: that depends on lines outside
  the launch's buffers, which the class knows only as how full (and how dirty) the LLC is. When the LLC has
  room (a small model, the first sixteenth) no fill evicts anything and the reuse is exact; when it is full
  the two launches evict different lines of the same dirtiness class, an approximation;
- where the lines fall on the DRAM channels and banks depends on absolute addresses, which the key leaves
  out: a launch's cold misses cost a little more or less at another address (under 1% of a small decoder
  layer's kernels: tests/compiler/inductor/test_memory_state.py); the reused record keeps the first layer's.
  Where every line a launch touches is warm, nothing reaches DRAM and the reuse is exact.
"""
from __future__ import annotations

import dataclasses
import hashlib

import numpy as np

from .memory import PointerArg

BUCKETS = 16         # the LLC's fill and dirt outside the launch's buffers, in this many steps


@dataclasses.dataclass
class Carried:
    """A memo entry for a launch on a carried state: its record and its effect on the LLC."""
    record: object
    effect: tuple


def ranges(values: list) -> list[tuple[int, int]]:
    """[lo, hi) of each distinct buffer the launch's pointer arguments point into, in argument order."""
    out: dict[int, tuple[int, int]] = {}
    for v in values:
        if isinstance(v, PointerArg):
            b = v.buffer
            out.setdefault(b.address, (b.address, b.address + b.size))
    return list(out.values())


def relative_key(compiled, grid: tuple, values: list, options, kernel_body) -> tuple:
    """The launch's identity apart from where its buffers lie (module docstring)."""
    cfg = options.config
    align = max(cfg.sram.line_bytes, cfg.pe.dma.burst_bytes)
    index: dict[int, int] = {}
    args = []
    for v in values:
        if isinstance(v, PointerArg):
            b = v.buffer
            i = index.setdefault(b.address, len(index))
            args.append((i, b.size, b.region, b.guard, b.address % align, v.offset, str(v.elem)))
        else:
            args.append((type(v).__name__, repr(v)))
    opts = tuple((f.name, repr(getattr(options, f.name))) for f in dataclasses.fields(options)
                 if f.name not in ("config", "machine", "executor", "memory_state"))
    config = hashlib.sha256(options.config.model_dump_json().encode()).hexdigest()
    return ("carried", kernel_body(compiled), tuple(grid), tuple(args), opts, config)


def state_class(state, spans: list[tuple[int, int]]) -> tuple:
    """What of the incoming state the launch's timing depends on (module docstring)."""
    digest = hashlib.sha256()
    inside = dirty_inside = 0
    for lo, hi in spans:
        rel, dirty = state.lines_in(lo, hi)
        digest.update(np.int64(rel.size).tobytes())
        digest.update(rel.astype(np.int64).tobytes())
        digest.update(np.packbits(dirty).tobytes())
        inside += int(rel.size)
        dirty_inside += int(np.count_nonzero(dirty))
    cached, dirty_all, capacity = state.occupancy()
    fill = (cached - inside) * BUCKETS // capacity if capacity else 0
    dirt = (dirty_all - dirty_inside) * BUCKETS // capacity if capacity else 0
    return (digest.hexdigest(), int(fill), int(dirt))


def coarse_class(state, spans: list[tuple[int, int]]) -> tuple:
    """The incoming state as `launch_memo.across_placements()` keys a carried launch: for each buffer, the
    share of its lines cached and of those dirty, in sixteenths, and the rest of the LLC as `state_class`
    has it. Which lines of a buffer the LLC kept depends on where the buffer lies (the sets its lines fall
    in, what else evicted them): a 2048-token prefill's activations are partly evicted by every layer's
    600 MB of traffic, never in the same lines twice, so the exact class never repeats and every layer
    would be simulated again. Two launches of the same kernel on buffers cached to the same sixteenth
    are taken as the same: an approximation, counted in `STATS["reused_elsewhere"]`."""
    parts = []
    inside = dirty_inside = 0
    for lo, hi in spans:
        rel, dirty = state.lines_in(lo, hi)
        lines = max(1, (hi - 1) // state.line - lo // state.line + 1)
        d = int(np.count_nonzero(dirty))
        parts.append((int(rel.size) * BUCKETS // lines, d * BUCKETS // max(1, int(rel.size))))
        inside += int(rel.size)
        dirty_inside += d
    cached, dirty_all, capacity = state.occupancy()
    fill = (cached - inside) * BUCKETS // capacity if capacity else 0
    dirt = (dirty_all - dirty_inside) * BUCKETS // capacity if capacity else 0
    return (tuple(parts), int(fill), int(dirt))


def effect(state, spans: list[tuple[int, int]]) -> tuple:
    """The lines of each buffer the launch left cached (relative, int32) and their dirty flags (packed bits)."""
    out = []
    for lo, hi in spans:
        rel, dirty = state.lines_in(lo, hi)
        out.append((rel.astype(np.int32), np.packbits(dirty), int(rel.size)))
    return tuple(out)


def replay(state, spans: list[tuple[int, int]], effect: tuple) -> None:
    """Leave the state as the launch whose `effect` this is would have (its buffers at `spans`)."""
    state.restore_launch([(lo, hi, rel.astype(np.int64), np.unpackbits(bits, count=n).astype(np.bool_))
                          for (lo, hi), (rel, bits, n) in zip(spans, effect)])
