"""The chip's memory state between launches: what the LLC part of SRAM holds when one kernel ends and
the next begins.

On the chip, kernels of one model run back to back on the same SRAM: the next kernel finds as hits
the lines the previous one left (weights it read, activations it wrote), and a dirty line one kernel
left is written back to DRAM by whichever later kernel evicts it. A `MemoryState` is that LLC, handed
from launch to launch (`Machine(cfg, memory_state=state)`); a launch without one starts from an
empty LLC, as if the chip were cold (each kernel in isolation).

    state = MemoryState(cfg)
    for program, grid, args in kernels:
        Machine(cfg, memory_state=state).run(program, grid, args)    # each report counts its warm hits
    drained = state.drain()          # the dirty lines left at the end, written back: bytes and cycles

Besides handing the cache on, the state answers what a caller that skips a launch needs to keep it
true (the runtime's launch memo): which lines of an address range are cached and dirty (`lines_in`),
how full the cache is (`occupancy`), and putting a range back as a launch left it (`restore`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .llc import LLC


@dataclass(frozen=True)
class Drain:
    """The write-back of the dirty lines left in the LLC: how many, their bytes, and the DRAM channel
    time it takes (the cycles a run that ends with them pays to make DRAM current)."""
    lines: int
    bytes: int
    cycles: float


class MemoryState:
    def __init__(self, cfg):
        self.cfg = cfg
        self.llc = LLC(cfg.sram.llc_mib << 20, cfg.sram.line_bytes, cfg.sram.ways)
        self.line = cfg.sram.line_bytes
        self._version = 0           # changes made here, not by a launch (`_resident` works out again)

    def adopt(self, other: "MemoryState") -> None:
        """Take `other`'s LLC as this state's (a sampled launch ran on a copy of this state: the copy is
        what the launch left, simulator/sampling.py)."""
        if not other.fits(self.cfg):
            raise ValueError("a memory state can adopt only a state of the same LLC geometry")
        self.llc = other.llc
        self._version += 1

    def fits(self, cfg) -> bool:
        """Whether a launch on `cfg` can run on this state: the same LLC geometry and policy."""
        a, b = self.cfg.sram, cfg.sram
        return (a.llc_mib, a.line_bytes, a.ways, a.llc_policy) == (b.llc_mib, b.line_bytes, b.ways, b.llc_policy)

    # ---- what a skipped launch needs ----------------------------------------------------------------
    def lines_in(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """(line numbers relative to the line of `lo`, sorted; dirty flags) of the cached lines that
        overlap bytes [lo, hi)."""
        llc = self.llc
        first, last = lo // self.line, (hi - 1) // self.line
        # a range of at most the LLC's lines: look them up (its lines x ways compares), else pick it out of
        # the sorted list of every cached line (which a change of the cache sorts again)
        if llc.sets and (last - first + 1) <= llc.sets * llc.ways:
            present, slots = llc.find(np.arange(first, last + 1, dtype=np.int64))
            return np.flatnonzero(present), llc.dirty[slots]
        lines, dirty = self._resident()             # a large one: pick it out of what the LLC holds
        i, j = np.searchsorted(lines, [first, last + 1])
        return lines[i:j] - first, dirty[i:j]

    def occupancy(self) -> tuple[int, int, int]:
        """(cached lines, dirty lines, lines the LLC holds at most)."""
        llc = self.llc
        if llc.sets == 0:
            return 0, 0, 0
        return int(np.count_nonzero(llc.tags)), llc.dirty_lines(), llc.sets * llc.ways

    def restore(self, lo: int, hi: int, rel: np.ndarray, dirty: np.ndarray) -> int:
        """Make the cached lines overlapping [lo, hi) exactly `rel` (relative to the line of `lo`, as
        `lines_in` gives them) with those `dirty` flags, as if a launch had just used them: lines no
        longer listed leave (dirty ones written back), listed ones that are missing come in, evicting
        their sets' least recently used lines. Returns the dirty lines written back doing so."""
        llc = self.llc
        if llc.sets == 0:
            return 0
        first = lo // self.line
        written = 0
        if rel.size < (hi - 1) // self.line - first + 1:       # (every line of the range wanted: none leaves)
            now, _ = self.lines_in(lo, hi)
            gone = np.setdiff1d(now, rel, assume_unique=True) + first
            written = llc.discard(gone)         # (a dirty line leaving was written back)
        want = rel.astype(np.int64) + first
        present, (ps, pw) = llc.find(want)
        llc.clock += 1
        (ns, nw), victims = llc.allocate(want[~present])
        llc.stamp[ps, pw] = llc.clock
        llc.dirty[ps, pw] = dirty[present]
        llc.epoch[ps, pw] = llc.launch
        llc.dirty[ns, nw] = dirty[~present]     # (allocate stamped them with this clock and launch)
        self._version += 1
        return written + int(victims.size)

    def restore_launch(self, spans: list) -> int:
        """Stand for a launch that is not simulated: a new launch begins on the LLC, and each (lo, hi, rel,
        dirty) of `spans` is restored (`restore`). Returns the dirty lines written back doing so."""
        self.llc.new_launch()
        return sum(self.restore(lo, hi, rel, dirty) for lo, hi, rel, dirty in spans)

    def drain(self) -> Drain:
        """Write every dirty line back to DRAM (they stay cached, clean): what it moved and the channel
        time it takes from idle channels (`dram.py`, the same booking a launch's write-backs get)."""
        from .dram import Dram
        llc = self.llc
        if llc.sets == 0 or not llc.dirty.any():
            return Drain(0, 0, 0.0)
        s, w = np.nonzero(llc.dirty)
        lines = np.sort((llc.tags[s, w] - 1) * llc.sets + s)
        dram = Dram(self.cfg)
        dram.new_launch()
        ends, _ = dram.access(0.0, lines * self.line, np.full(lines.size, self.line, np.int64), write=True)
        llc.dirty[s, w] = False
        self._version += 1
        return Drain(int(lines.size), int(lines.size) * self.line, float(ends.max()) + self.cfg.dram_latency_cycles)

    def _resident(self) -> tuple[np.ndarray, np.ndarray]:
        """Every cached line (sorted) and its dirty flag, worked out once per change of the cache."""
        llc = self.llc
        key = (llc.launch, self._version)       # (a launch on the state starts with llc.new_launch)
        if getattr(self, "_cached_key", None) != key:
            lines, dirty = llc.resident()
            order = np.argsort(lines, kind="stable")
            self._cached, self._cached_key = (lines[order], dirty[order]), key
        return self._cached
