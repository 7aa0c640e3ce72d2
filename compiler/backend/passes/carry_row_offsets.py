"""Carry a pointer block that each iteration moves row by row (`a_ptrs += offs[:, None]`, offs loaded in
the loop) as its rows' offsets: an [N, 1] i64 block instead of the [N, M] block of addresses.

The pointer block is rebuilt in the loop as `init + broadcast(offsets)`, which the memory lowering
reads as rows picked by an index block (backend/analysis/rows.py: a `dma.rows` per load, its index the
offsets plus the rows' own steps), where the carried block would have been a materialised address
tile and an element-wise gather. Uniform steps (`a_ptrs += BK`) are scalarize-iter-args' and are
carried as scalars before this pass runs; this one takes what is left whose step varies only down
the rows.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...ir import Builder, Op
from ...ir.core import Operation, Value
from ...ir.types import BlockType, i64


@dataclass(frozen=True)
class CarryRowOffsets:
    name: ClassVar[str] = "carry-row-offsets"

    def run(self, module) -> None:
        for func in module.functions:
            for op in [o for o in func.walk(post_order=True) if o.name == Op.FOR]:
                _carry(op)


def _row_step(arg: Value, yielded: Value) -> Value | None:
    """The [N, 1] integer block d when yielded == arg + broadcast(d), else None."""
    op = yielded.owner
    if not hasattr(op, "name") or op.name != Op.ADDPTR or op.ptr is not arg:
        return None
    d = op.offset
    while hasattr(d.owner, "name") and d.owner.name == Op.BROADCAST:
        d = d.owner.src
    n = arg.type.shape[0]
    if not d.type.is_block() or tuple(d.type.shape) != (n, 1) or not d.type.scalar.is_int():
        return None
    return d


def _carry(loop: Operation) -> None:
    body = loop.body
    yield_op = body.terminator
    steps = {}
    for j, arg in enumerate(body.args[1:]):
        t = arg.type
        if t.is_block() and t.scalar.is_ptr() and len(t.shape) == 2 and t.shape[1] > 1:
            d = _row_step(arg, yield_op.values[j])
            if d is not None:
                steps[j] = d
    if not steps:
        return
    b = Builder()
    b.set_insertion_point_before(loop)
    b.loc = loop.loc
    inits = list(loop.inits)
    new_inits = list(inits)
    for j in steps:
        new_inits[j] = b.constant(0, BlockType((inits[j].type.shape[0], 1), i64))
    new = Operation(Op.FOR, [loop.lower, loop.upper, loop.step] + new_inits, [v.type for v in new_inits],
                    dict(loop.attrs), loc=loop.loc)
    region = loop.regions[0]
    loop.regions.clear()
    new.add_region(region)
    loop.parent.insert_before(loop, new)
    top = Builder()
    top.block, top.index = body, 0
    top.loc = loop.loc
    for j, d in steps.items():
        arg = body.args[j + 1]
        block_t = arg.type
        arg.type = new_inits[j].type
        users = list(arg.uses)
        rebuilt = _rebuild(top, inits[j], arg, block_t)
        for u in users:
            u.op.set_operand(u.index, rebuilt)
        stepped = yield_op.values[j]          # arg + broadcast(d): loads after the step read it too
        yb = Builder()
        yb.set_insertion_point_before(stepped.owner)
        yb.loc = loop.loc
        step = d if d.type.scalar == i64 else yb.create1(Op.EXTSI, [d], arg.type)
        moved = yb.create1(Op.ADDI, [arg, step], arg.type)
        stepped.replace_all_uses_with(_rebuild(yb, inits[j], moved, block_t))
        yield_op.set_operand(j, moved)
    after = Builder()
    after.set_insertion_point_before(loop)
    after.loc = loop.loc
    for j, r in enumerate(loop.results):
        if j not in steps:
            r.replace_all_uses_with(new.results[j])
        elif r.uses:
            r.replace_all_uses_with(_rebuild(after, inits[j], new.results[j], r.type))
    loop.set_operands([])
    loop.erase()


def _rebuild(b: Builder, init: Value, offsets: Value, block_t) -> Value:
    """init + broadcast(offsets): the pointer block the loop carried."""
    wide = b.create1(Op.BROADCAST, [offsets], BlockType(tuple(block_t.shape), i64))
    return b.create1(Op.ADDPTR, [init, wide], block_t)
