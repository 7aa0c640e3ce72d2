"""Amounts spread over fixed time windows: what the report's peak power and the trace's power
counters are made of.

Engines add the cycles they are busy, the memory system the bytes each transfer moves, each spread
evenly over the cycles the work spans. The window is the config's `energy.peak_window_us`.
"""
from __future__ import annotations


def window_cycles(cfg) -> float:
    """The width of one window in cycles: `energy.peak_window_us` at the config's clock."""
    return cfg.energy.peak_window_us * 1e3 * cfg.clock_ghz


def spread(bins: dict[int, float], width: float, t0: float, t1: float, amount: float) -> None:
    """Add `amount` to `bins` (window index -> amount), evenly over [t0, t1)."""
    i = int(t0 // width)
    if t1 <= (i + 1) * width or t1 <= t0:          # inside one window (or an instant)
        bins[i] = bins.get(i, 0.0) + amount
        return
    rate = amount / (t1 - t0)
    while i * width < t1:
        lo, hi = max(t0, i * width), min(t1, (i + 1) * width)
        if hi > lo:
            bins[i] = bins.get(i, 0.0) + rate * (hi - lo)
        i += 1
