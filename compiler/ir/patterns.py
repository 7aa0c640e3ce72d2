"""Small helpers for pattern-matching the IR (used by passes, the interpreter and backends)."""
from __future__ import annotations

from .core import Operation, Value
from .ops import Op

# the single binary op of a combine region -> the reduction it performs
COMBINE_KINDS = {
    Op.ADDF: "add", Op.ADDI: "add", Op.MULF: "mul", Op.MULI: "mul",
    Op.MAXNUMF: "max", Op.MAXSI: "max", Op.MAXUI: "max", Op.MINNUMF: "min", Op.MINSI: "min", Op.MINUI: "min",
    Op.MAXIMUMF: "maximum", Op.MINIMUMF: "minimum",     # NaN-propagating (max/min ignore NaNs)
    Op.ANDI: "and", Op.ORI: "or", Op.XORI: "xor",
}


def defining_op(v: Value, name: str | None = None) -> Operation | None:
    """The op that defines `v` (None for block arguments, or when it is not a `name` op)."""
    owner = v.owner
    if not isinstance(owner, Operation):
        return None
    return owner if name is None or owner.name == name else None


def constant_value(v: Value):
    """The Python value of `v` if an arith.constant defines it (a splat for blocks), else None."""
    op = defining_op(v, Op.CONSTANT)
    return op.attrs["value"] if op is not None else None


def combine_op(op: Operation) -> Operation | None:
    """For tt.reduce / tt.scan whose combine region is `return lhs <op> rhs`: that binary op."""
    blk = op.regions[0].block
    if len(blk.args) != 2 or len(blk.ops) != 2:
        return None
    inner, term = blk.ops
    if len(inner.operands) != 2 or set(inner.operands) != set(blk.args) or len(inner.results) != 1 \
            or term.operands != (inner.result,):
        return None
    return inner


def combine_kind(op: Operation) -> str | None:
    """'add', 'mul', 'max', 'min', 'maximum', 'minimum', 'and', 'or' or 'xor' for a simple tt.reduce /
    tt.scan, else None
    (e.g. argmax, which reduces (value, index) pairs with a compare-and-select region)."""
    inner = combine_op(op)
    return COMBINE_KINDS.get(inner.name) if inner is not None else None


def arg_extreme(op: Operation) -> str | None:
    """'argmax' / 'argmin' for tl.argmax's combine over (x, the index along the axis):
    better = v1 > v2 [or (v1 == v2 and i1 < i2)] (or v1 >= v2), returning select(better, v1, v2) and
    select(better, i1, i2). Both executors give what Triton defines for tl.argmax/argmin: the first
    index of the extreme, NaNs ignored (the extreme of the other elements; index 0 when all are NaN).
    A combine preferring later indices on ties, or carrying anything but the index, is not this."""
    if op.name != Op.REDUCE or len(op.srcs) != 2:
        return None
    v1, i1, v2, i2 = op.body.args
    rv, ri = op.body.terminator.operands
    sv, si = defining_op(rv, Op.SELECT), defining_op(ri, Op.SELECT)
    if sv is None or si is None or (sv.true_value, sv.false_value) != (v1, v2) \
            or (si.true_value, si.false_value) != (i1, i2) or sv.cond is not si.cond \
            or not _is_index(op.srcs[1], op.attrs["axis"]):
        return None
    better = sv.cond
    cmp = _compare(better, v1, v2)
    if cmp is None:                                  # or(v1 > v2, and(v1 == v2, i1 < i2))
        either = defining_op(better, Op.ORI)
        sides = [(either.lhs, either.rhs), (either.rhs, either.lhs)] if either is not None else []
        for first, second in sides:
            both = defining_op(second, Op.ANDI)
            cmp = _compare(first, v1, v2)
            if cmp in ("gt", "lt") and both is not None and \
                    {_compare(both.lhs, v1, v2), _compare(both.rhs, i1, i2)} == {"eq", "lt"}:
                return "argmax" if cmp == "gt" else "argmin"
        return None
    return {"gt": "argmax", "ge": "argmax", "lt": "argmin", "le": "argmin"}.get(cmp)


def _compare(v, a, b) -> str | None:
    """'gt', 'ge', 'lt', 'le' or 'eq' when v is the comparison a <pred> b (signedness aside)."""
    c = defining_op(v)
    if c is None or c.name not in (Op.CMPF, Op.CMPI) or c.operands != (a, b):
        return None
    pred = c.attrs["predicate"]
    return pred if pred == "eq" else pred[1:]


def _is_index(v, axis: int) -> bool:
    """Whether v is 0, 1, ..., n-1 along `axis` (tl.arange expanded and broadcast to the block)."""
    n = v.type.shape[axis]
    while (o := defining_op(v, Op.BROADCAST)) is not None:
        v = o.src
    shape = v.type.shape
    if shape[axis] != n or any(d != 1 for i, d in enumerate(shape) if i != axis):
        return False
    while (o := defining_op(v)) is not None and o.name in (Op.EXPAND_DIMS, Op.RESHAPE):
        v = o.src
    r = defining_op(v, Op.MAKE_RANGE)
    return r is not None and r.attrs["start"] == 0 and r.attrs["end"] == n
