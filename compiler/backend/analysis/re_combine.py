"""What the reduction engine computes for a tt.reduce / tt.scan: the combine region recognised.

The RE reduces with sum, prod, max, min, and, or, xor and argmax/argmin (the first index of the
extreme), and scans with sum, prod, max, min; its max and min ignore NaNs (IEEE maxNum, as tl.max
and tl.maximum's default), so a NaN-propagating combine (propagate_nan=ALL) is not one of them. `re_combine` names the one a combine region computes,
or None; `target.runs_on_re` says whether the RE runs the op as one command.
"""
from __future__ import annotations

from ...ir import Op, patterns
from ...ir.core import Operation

RE_KINDS = {"add": "sum", "mul": "prod", "max": "max", "min": "min", "and": "and", "or": "or", "xor": "xor"}
RE_SCANS = ("sum", "prod", "max", "min")


def re_combine(op: Operation) -> str | None:
    """What a tt.reduce / tt.scan combine region computes, when the RE runs it: 'sum', 'max', 'argmax', ...
    None for any other combine (the expand-combine pass rewrites those into SE and MLU steps)."""
    if len(op.srcs) == 1:
        return RE_KINDS.get(patterns.combine_kind(op))
    if len(op.srcs) == 2 and op.name == Op.REDUCE:
        return patterns.arg_extreme(op)
    return None
