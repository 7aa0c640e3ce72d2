"""The distinct DRAM lines a launch read and wrote: the bytes it had to move at least once.

The compulsory floor (simulator/report.py) counts what the arguments must move. An argument's size
is that only when the kernel touches all of it: an embedding bag reads the rows its indices name, a
few MB of a table of GB, and a floor of the table's size would call the kernel 600% of "compulsory".
The lines each transfer covered are kept here (sorted and made unique in batches, so memory stays
near the footprint itself) and counted per argument when the report is built.
"""
from __future__ import annotations

import numpy as np

_BATCH = 1 << 22          # line numbers buffered before they are merged into the unique set


class Footprint:
    def __init__(self) -> None:
        self._pending = {False: [], True: []}      # write? -> line-number arrays not merged yet
        self._count = {False: 0, True: 0}
        self._unique = {False: np.zeros(0, np.int64), True: np.zeros(0, np.int64)}

    def note(self, lines: np.ndarray, write: bool) -> None:
        """Lines (numbers, not addresses) one transfer read or wrote."""
        self._pending[write].append(lines)
        self._count[write] += lines.size
        if self._count[write] > _BATCH:
            self._merge(write)

    def _merge(self, write: bool) -> np.ndarray:
        if self._pending[write]:
            self._unique[write] = np.unique(np.concatenate([self._unique[write], *self._pending[write]]))
            self._pending[write], self._count[write] = [], 0
        return self._unique[write]

    def lines_in(self, first: int, last: int, write: bool) -> int:
        """How many distinct lines in [first, last] were read (or written)."""
        u = self._merge(write)
        return int(np.searchsorted(u, last, "right") - np.searchsorted(u, first, "left"))
