"""The LLC part of on-chip SRAM: a set-associative, LRU cache of DRAM lines (timing only; data lives
in global memory). Lookups take a whole DMA's lines at once as a numpy array."""
from __future__ import annotations

import numpy as np


class LLC:
    def __init__(self, size_bytes: int, line_bytes: int, ways: int):
        self.line_bytes = line_bytes
        self.ways = ways
        self.sets = max(1, size_bytes // (line_bytes * ways)) if size_bytes else 0
        self.tags = np.full((self.sets, ways), -1, np.int64) if self.sets else None
        self.stamp = np.zeros((self.sets, ways), np.int64) if self.sets else None
        self.clock = 0
        self.hits = 0
        self.misses = 0

    def access(self, lines: np.ndarray, allocate: bool = True) -> np.ndarray:
        """Look up unique line numbers; return a bool mask of misses. Misses are filled (LRU victim)
        when `allocate`; hits refresh their LRU stamp."""
        n = lines.size
        if self.sets == 0:
            self.misses += n
            return np.ones(n, np.bool_)
        self.clock += 1
        s = lines % self.sets
        tag = lines // self.sets
        match = self.tags[s] == tag[:, None]
        hit = match.any(axis=1)
        hi = np.flatnonzero(hit)
        if hi.size:
            self.stamp[s[hi], match[hi].argmax(axis=1)] = self.clock
        miss = ~hit
        self.hits += int(hi.size)
        self.misses += int(n - hi.size)
        if allocate:
            todo = np.flatnonzero(miss)
            while todo.size:
                # one line per set per round, so two misses to one set both get a way
                _, first = np.unique(s[todo], return_index=True)
                now = todo[first]
                ss = s[now]
                victim = self.stamp[ss].argmin(axis=1)
                self.tags[ss, victim] = tag[now]
                self.stamp[ss, victim] = self.clock
                todo = np.setdiff1d(todo, now, assume_unique=True)
        return miss

    def invalidate_all(self) -> None:
        if self.sets:
            self.tags.fill(-1)
