"""The LLC part of on-chip SRAM: a set-associative, LRU cache of DRAM lines (timing only; data lives
in global memory). Lookups take a whole DMA's lines at once as a numpy array.

A way holds its line's tag plus one, so that 0 marks an empty way and a fresh cache is `np.zeros`
(memory the OS hands over untouched: an LLC of 1M ways costs a launch nothing until its sets are
used, where filling 8 MB of tags with -1 cost every launch tens of milliseconds of page faults).

Each way also keeps whether its line is dirty (written since it came from DRAM, under the
write-back policy) and when its data is there: a line being filled is allocated at once, with the
time its fill lands, so that a second reader waits for that fill instead of finding the line
ready (what an MSHR does).

The cache outlives a launch when the caller carries it (`memory_state.py`): each way remembers the
launch that last brought its line in or wrote it (`epoch`), so that a launch counts the reads it
found warm (lines an earlier launch left) and the dirty lines an earlier launch left that it had to
write back when it evicted them.
"""
from __future__ import annotations

import numpy as np


class LLC:
    def __init__(self, size_bytes: int, line_bytes: int, ways: int):
        self.line_bytes = line_bytes
        self.ways = ways
        self.sets = max(1, size_bytes // (line_bytes * ways)) if size_bytes else 0
        shape = (self.sets, ways)
        self.tags = np.zeros(shape, np.int64) if self.sets else None     # tag + 1; 0: empty
        self.stamp = np.zeros(shape, np.int64) if self.sets else None
        self.dirty = np.zeros(shape, np.bool_) if self.sets else None
        self.ready = np.zeros(shape, np.float64) if self.sets else None
        self.epoch = np.zeros(shape, np.int32) if self.sets else None    # launch that last filled or wrote it
        self.launch = 0
        self.clock = 0
        self.allocated = False        # whether a line got a way (and so a ready time) since the last launch
        self.new_launch()

    def new_launch(self) -> None:
        """Counters at zero; fills still in flight at the end of the last launch have landed."""
        self.hits = self.misses = self.fill_waits = self.writebacks = 0
        self.warm_hits = 0            # reads of lines an earlier launch left
        self.warm_writebacks = 0      # dirty lines an earlier launch left, written back when evicted
        self.launch += 1
        if self.allocated:            # (a fresh or untouched `ready` is all zeros: filling its 8 MB again
            self.ready.fill(0.0)      # costs a launch tens of milliseconds of page faults on a loaded host)
        self.allocated = False

    def lookup(self, lines: np.ndarray, now: float) -> tuple[np.ndarray, float]:
        """Look up unique line numbers; hits refresh their LRU stamp. Returns (hit mask, when the
        data of the hits is there: `now`, or later for a line whose fill is still in flight)."""
        if self.sets == 0:
            return np.zeros(lines.size, np.bool_), now
        self.clock += 1
        tag1, s = np.divmod(lines + self.sets, self.sets)      # (tag + 1, set)
        match = self.tags[s] == tag1[:, None]
        hit = np.logical_or.reduce(match, axis=1)
        n_hit = int(np.count_nonzero(hit))
        ready = now
        if n_hit:
            if n_hit < hit.size:             # (all hit is the common case: no selecting)
                match, s = match[hit], s[hit]
            way = match.argmax(axis=1)
            self.stamp[s, way] = self.clock
            self.warm_hits += int(np.count_nonzero(self.epoch[s, way] < self.launch))
            r = self.ready[s, way]
            latest = float(r.max())
            if latest > now:
                self.fill_waits += int(np.count_nonzero(r > now))
                ready = latest
        return hit, ready

    def allocate(self, lines: np.ndarray, dirty: bool = False) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
        """Give lines that missed a way each (the LRU victim of its set). Returns their (set, way)
        slots and the line numbers of dirty victims, which the caller writes back."""
        n = lines.size
        if self.sets == 0 or n == 0:
            empty = np.zeros(0, np.int64)
            return (empty, empty), empty
        self.allocated = True
        tag1, s = np.divmod(lines + self.sets, self.sets)      # (tag + 1, set)
        sets_out, ways_out = np.empty(n, np.int64), np.empty(n, np.int64)
        evicted = []
        ordered = np.sort(s)
        todo = np.arange(n) if (ordered[1:] == ordered[:-1]).any() else None
        if todo is None:                  # every line in a set of its own: one round
            victim = self.stamp[s].argmin(axis=1)
            old = self.tags[s, victim]
            gone = (old > 0) & self.dirty[s, victim]
            self.warm_writebacks += int(np.count_nonzero(self.epoch[s, victim][gone] < self.launch))
            self.tags[s, victim] = tag1
            self.stamp[s, victim] = self.clock
            self.dirty[s, victim] = dirty
            self.epoch[s, victim] = self.launch
            victims = (old[gone] - 1) * self.sets + s[gone]
            self.writebacks += int(victims.size)
            return (s, victim), victims
        while todo.size:
            # one line per set per round, so two misses to one set both get a way
            _, first = np.unique(s[todo], return_index=True)
            now = todo[first]
            ss = s[now]
            victim = self.stamp[ss].argmin(axis=1)
            old = self.tags[ss, victim]
            gone = (old > 0) & self.dirty[ss, victim]
            if gone.any():
                evicted.append((old[gone] - 1) * self.sets + ss[gone])
                self.warm_writebacks += int(np.count_nonzero(self.epoch[ss, victim][gone] < self.launch))
            self.tags[ss, victim] = tag1[now]
            self.stamp[ss, victim] = self.clock
            self.dirty[ss, victim] = dirty
            self.epoch[ss, victim] = self.launch
            sets_out[now], ways_out[now] = ss, victim
            todo = np.setdiff1d(todo, now, assume_unique=True)
        victims = np.concatenate(evicted) if evicted else np.zeros(0, np.int64)
        self.writebacks += int(victims.size)
        return (sets_out, ways_out), victims

    def find(self, lines: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """(present mask, (set, way) of the present ones), touching no LRU state."""
        if self.sets == 0:
            empty = np.zeros(0, np.int64)
            return np.zeros(lines.size, np.bool_), (empty, empty)
        tag1, s = np.divmod(lines + self.sets, self.sets)      # (tag + 1, set)
        match = self.tags[s] == tag1[:, None]
        hit = match.any(axis=1)
        hi = np.flatnonzero(hit)
        return hit, (s[hi], match[hi].argmax(axis=1))

    def mark_dirty(self, lines: np.ndarray) -> None:
        hit, slots = self.find(lines)
        if hit.any():
            self.write(slots)

    def write(self, slots: tuple[np.ndarray, np.ndarray]) -> None:
        """Cached lines written by this launch: dirty, and this launch's to write back."""
        self.dirty[slots] = True
        self.epoch[slots] = self.launch

    def discard(self, lines: np.ndarray) -> int:
        """Drop lines (a dead tensor) without writing them back; returns how many were dirty."""
        hit, slots = self.find(lines)
        if not hit.any():
            return 0
        n = int(self.dirty[slots].sum())
        self.tags[slots] = 0
        self.dirty[slots] = False
        self.ready[slots] = 0.0
        return n

    def resident(self) -> tuple[np.ndarray, np.ndarray]:
        """(line numbers, dirty flags) of every cached line, in (set, way) order."""
        if self.sets == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.bool_)
        s, w = np.nonzero(self.tags)
        return (self.tags[s, w] - 1) * self.sets + s, self.dirty[s, w]

    def dirty_lines(self) -> int:
        return int(self.dirty.sum()) if self.sets else 0
