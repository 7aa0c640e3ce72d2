"""What the reduction engine computes for a tt.reduce / tt.scan: the combine region recognised.

The RE reduces with sum, prod, max, min, and, or, xor and argmax/argmin (the first index of the
extreme), and scans with sum, prod, max, min. `re_combine` names the one a combine region computes,
or None; `target.runs_on_re` says whether the RE runs the op as one command.
"""
from __future__ import annotations

from ..ir import Op, patterns
from ..ir.core import Operation

RE_KINDS = {"add": "sum", "mul": "prod", "max": "max", "min": "min", "and": "and", "or": "or", "xor": "xor"}
RE_SCANS = ("sum", "prod", "max", "min")


def re_combine(op: Operation) -> str | None:
    """What a tt.reduce / tt.scan combine region computes, when the RE runs it: 'sum', 'max', 'argmax', ...
    None for any other combine (the expand-combine pass rewrites those into SE and MLU steps)."""
    if len(op.srcs) == 1:
        return RE_KINDS.get(patterns.combine_kind(op))
    if len(op.srcs) == 2 and op.name == Op.REDUCE:
        return _arg_extreme(op)
    return None


def _arg_extreme(op: Operation) -> str | None:
    """'argmax' / 'argmin' for tl.argmax's combine over (x, the index along the axis):
    better = v1 > v2 [or (v1 == v2 and i1 < i2)] (or v1 >= v2), returning select(better, v1, v2) and
    select(better, i1, i2). The RE gives the first index of the extreme; a combine preferring later
    indices on ties, or carrying anything but the index, is not this."""
    v1, i1, v2, i2 = op.body.args
    rv, ri = op.body.terminator.operands
    sv, si = patterns.defining_op(rv, Op.SELECT), patterns.defining_op(ri, Op.SELECT)
    if sv is None or si is None or (sv.true_value, sv.false_value) != (v1, v2) \
            or (si.true_value, si.false_value) != (i1, i2) or sv.cond is not si.cond \
            or not _is_index(op.srcs[1], op.attrs["axis"]):
        return None
    better = sv.cond
    cmp = _compare(better, v1, v2)
    if cmp is None:                                  # or(v1 > v2, and(v1 == v2, i1 < i2))
        either = patterns.defining_op(better, Op.ORI)
        sides = [(either.lhs, either.rhs), (either.rhs, either.lhs)] if either is not None else []
        for first, second in sides:
            both = patterns.defining_op(second, Op.ANDI)
            cmp = _compare(first, v1, v2)
            if cmp in ("gt", "lt") and both is not None and \
                    {_compare(both.lhs, v1, v2), _compare(both.rhs, i1, i2)} == {"eq", "lt"}:
                return "argmax" if cmp == "gt" else "argmin"
        return None
    return {"gt": "argmax", "ge": "argmax", "lt": "argmin", "le": "argmin"}.get(cmp)


def _compare(v, a, b) -> str | None:
    """'gt', 'ge', 'lt', 'le' or 'eq' when v is the comparison a <pred> b (signedness aside)."""
    c = patterns.defining_op(v)
    if c is None or c.name not in (Op.CMPF, Op.CMPI) or c.operands != (a, b):
        return None
    pred = c.attrs["predicate"]
    return pred if pred == "eq" else pred[1:]


def _is_index(v, axis: int) -> bool:
    """Whether v is 0, 1, ..., n-1 along `axis` (tl.arange expanded and broadcast to the block)."""
    n = v.type.shape[axis]
    while (o := patterns.defining_op(v, Op.BROADCAST)) is not None:
        v = o.src
    shape = v.type.shape
    if shape[axis] != n or any(d != 1 for i, d in enumerate(shape) if i != axis):
        return False
    while (o := patterns.defining_op(v)) is not None and o.name in (Op.EXPAND_DIMS, Op.RESHAPE):
        v = o.src
    r = patterns.defining_op(v, Op.MAKE_RANGE)
    return r is not None and r.attrs["start"] == 0 and r.attrs["end"] == n
