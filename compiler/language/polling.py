"""tl.atomic_poll: wait until each pointer's value equals the expected one, written as a @jit loop over
atomic loads (no IR op of its own), as Triton 3.9's `tl.atomic_poll` behaves without a timeout.

`timeout_ns` is refused: the interpreter has no clock to count it on (the MTIA executor has one, but both
executors must run every valid kernel alike). A program that waits here for a value another program writes
ends on MTIA, where programs run side by side on the PEs; the interpreter runs programs one after another,
as Triton's does, so there the writer must be the earlier program.
"""
from __future__ import annotations

from ..runtime.jit import jit
from . import core as tl
from .builtins import atomic_load, broadcast_to, full
from .reductions import max as _max


def _poll_arguments(sem, timeout_ns) -> None:
    """The arguments Triton checks, checked at compile time."""
    if sem not in (None, "acquire", "relaxed"):
        raise ValueError(f"atomic_poll supports sem='acquire' or 'relaxed', got {sem!r}")
    if timeout_ns is not None:
        if timeout_ns < 0:
            raise ValueError(f"atomic_poll's timeout_ns must be >= 0, got {timeout_ns}")
        raise ValueError("atomic_poll with timeout_ns is not supported: the interpreter has no clock to count it on")


@jit
def atomic_poll(pointer, expected_value, sem: tl.constexpr = None, scope: tl.constexpr = None,
                timeout_ns: tl.constexpr = None):
    """Wait until the value at each pointer equals `expected_value` (broadcast to the pointers' shape);
    returns True for each element (a poll without a timeout never gives up)."""
    _poll_arguments(sem, timeout_ns)
    if isinstance(pointer.type, tl.block_type):
        expected = broadcast_to(expected_value, pointer.shape)
        while _max((atomic_load(pointer, sem=sem, scope=scope) != expected).to(tl.int32)) != 0:
            pass
        return full(pointer.shape, True, tl.int1)
    else:
        while atomic_load(pointer, sem=sem, scope=scope) != expected_value:
            pass
        return full((), True, tl.int1)
