"""Python's cycle collector paused while a burst of short-lived objects is made and dropped.

A simulation allocates a few objects per command (commands, events, closures) and a compile a few per
IR operation; reference counting frees almost all of them and almost none form cycles, but each
allocation burst triggers a collection, and the full ones scan every live object in the process.
With the collector on, the cost per command grew with the run (attention 2x1024x128: 38 us a command,
8x2048x128: 62), and in a process that has imported torch (a million live objects) a compile of the
matmul tutorial took 80 ms instead of 18. The few cycles left behind wait for the collector's next
pass after the burst.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def cycle_collection_paused():
    """The collector off inside the block, back on after it if it was on (nesting is fine)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            # the burst's own young objects now, cheaply: left to the collector, the first allocation
            # after it would count the whole burst and could start a full collection of the process
            gc.collect(0)
            gc.enable()
