"""`tl.mtia`: MTIA-specific extensions."""
from __future__ import annotations

from .core import builtin
from .semantic import current


@builtin
def get_pe_id():
    """The id (0..63) of the processing element running this program instance (i32)."""
    return current().get_pe_id()


@builtin
def re_reduce(x, op="sum"):
    """Combine `x` across the PEs of the launch over the reduction-engine network ('sum', 'max', 'min');
    every PE receives the combined value. In the reference interpreter (one program at a time) it
    returns `x` unchanged."""
    return current().re_reduce(x, op)
