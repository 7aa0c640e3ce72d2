"""Small helpers for pattern-matching the IR (used by passes, the interpreter and backends)."""
from __future__ import annotations

from .core import Operation, Value
from .ops import Op

# the single binary op of a combine region -> the reduction it performs
COMBINE_KINDS = {
    Op.ADDF: "add", Op.ADDI: "add", Op.MULF: "mul", Op.MULI: "mul",
    Op.MAXNUMF: "max", Op.MAXIMUMF: "max", Op.MAXSI: "max", Op.MAXUI: "max",
    Op.MINNUMF: "min", Op.MINIMUMF: "min", Op.MINSI: "min", Op.MINUI: "min",
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
    """'add', 'mul', 'max', 'min', 'and', 'or' or 'xor' for a simple tt.reduce / tt.scan, else None
    (e.g. argmax, which reduces (value, index) pairs with a compare-and-select region)."""
    inner = combine_op(op)
    return COMBINE_KINDS.get(inner.name) if inner is not None else None
