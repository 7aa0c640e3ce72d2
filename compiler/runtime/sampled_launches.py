"""Which timing-only launches are sampled: simulated for their first waves and their K loop's first
trips, the rest extrapolated.

`simulator/sampling.py` says how and where that is exact. A launch is sampled when its `sample_waves`
option says so; None (the default) takes this module's setting when the launch starts: off, unless
inside `sampled()` (what `compiler.inductor.estimate` of a production-size model and `mtiasim serve`
use) or with MTIASIM_SAMPLE_WAVES=1 in the environment. The resolved value is part of the launch's
options, and so of its memo key: a sampled record never answers for a full one.
"""
from __future__ import annotations

import os
from contextlib import contextmanager

ENV = "MTIASIM_SAMPLE_WAVES"
_ON: list[bool] = []


@contextmanager
def sampled(on: bool = True):
    """Timing-only launches inside are sampled (`on`), or not (`sampled(False)` inside a sampled run)."""
    _ON.append(bool(on))
    try:
        yield
    finally:
        _ON.pop()


def enabled() -> bool:
    """Whether a launch starting now, whose options leave `sample_waves` at None, is sampled."""
    if _ON:
        return _ON[-1]
    return os.environ.get(ENV, "0").strip().lower() in ("1", "true", "yes", "on")
