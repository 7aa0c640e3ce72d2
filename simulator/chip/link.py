"""A bandwidth resource served in order of request (a port, a DRAM channel, the SRAM).

A transfer of n bytes asked for at time t occupies the link from max(t, when it frees) for
n / bytes_per_cycle cycles. Reserving ahead instead of stepping through time keeps a transfer to
one calculation per resource, so simulation cost follows the number of commands, not of cycles.
"""
from __future__ import annotations


class Link:
    __slots__ = ("name", "bpc", "free_at", "busy", "bytes")

    def __init__(self, name: str, bytes_per_cycle: float):
        self.name = name
        self.bpc = float(bytes_per_cycle)
        self.free_at = 0.0
        self.busy = 0.0       # cycles spent transferring
        self.bytes = 0        # bytes carried

    def reserve(self, now: float, nbytes: float) -> float:
        """Book `nbytes` from `now`; return the time the last byte is through."""
        start = now if now > self.free_at else self.free_at
        dur = nbytes / self.bpc
        end = start + dur
        self.free_at = end
        self.busy += dur
        self.bytes += nbytes
        return end
