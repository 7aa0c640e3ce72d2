"""Carry pointer blocks through loops as scalars: `a_ptrs += BK * stride` becomes one register.

Triton kernels advance blocks of pointers each iteration (the matmul tutorial's `a_ptrs += ...`).
When a loop-carried block is affine at loop entry (`root + base + sum_d i_d * stride_d`) and each
iteration adds a uniform delta to it, only `root + base` changes: this pass carries that scalar
instead, and rebuilds the block inside the loop (and after it) as `splat(scalar) + pattern`, where
the index pattern is computed once before the loop. The memory lowering then sees an affine
pointer rooted at a register and emits one box DMA per iteration.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...ir import Builder, Op
from ...ir.core import Operation, Value
from ...ir.types import BlockType, i64
from ..analysis.affine import Affine, analyze
from .lower_memory import index_block, materialize, offset_pointer


@dataclass(frozen=True)
class ScalarizeIterArgs:
    remap_boxes: bool = True           # carry wrapped and clamped rows too (compiler/backend/options.py)
    name: ClassVar[str] = "scalarize-iter-args"

    def run(self, module) -> None:
        for func in module.functions:
            for op in [o for o in func.walk(post_order=True) if o.name == Op.FOR]:
                _scalarize(op, self.remap_boxes)


def _delta(arg: Value, yielded: Value):
    """The uniform per-iteration step when yielded == arg + step, else None."""
    op = yielded.owner
    if not hasattr(op, "name") or op.name not in (Op.ADDPTR, Op.ADDI):
        return None
    a, d = op.operands
    if a is not arg:
        if op.name == Op.ADDI and d is arg:
            a, d = d, a
        else:
            return None
    aff = analyze(d)
    if aff is None or not aff.uniform or aff.root is not None:
        return None
    return aff


def _pattern(b: Builder, aff: Affine) -> Value | None:
    """i64 block sum_d j_d * stride_d over aff's shape, j_d = i_d or its remap (None when every
    stride is zero)."""
    shape = aff.shape
    total = None
    for d, s in enumerate(aff.strides):
        if not s:
            continue
        r = index_block(b, aff, d)
        cur = (shape[d],)
        for axis in range(len(shape)):
            if axis == d:
                continue
            cur = cur[:axis] + (1,) + cur[axis:]
            r = b.create1(Op.EXPAND_DIMS, [r], BlockType(cur, i64), {"axis": axis})
        if not (s.is_const and s.value == 1):
            st = b.create1(Op.SPLAT, [materialize(b, s)], BlockType(cur, i64))
            r = b.create1(Op.MULI, [r, st], BlockType(cur, i64))
        if cur != shape:
            r = b.create1(Op.BROADCAST, [r], BlockType(shape, i64))
        total = r if total is None else b.create1(Op.ADDI, [total, r], BlockType(shape, i64))
    return total


def _rebuild(b: Builder, scalar: Value, pattern: Value | None, block_t) -> Value:
    """The block `splat(scalar) + pattern` of type block_t."""
    if block_t.scalar.is_ptr():
        s = b.create1(Op.SPLAT, [scalar], block_t)
        return s if pattern is None else b.create1(Op.ADDPTR, [s, pattern], block_t)
    wide = BlockType(block_t.shape, i64)
    s = b.create1(Op.SPLAT, [scalar], wide)
    v = s if pattern is None else b.create1(Op.ADDI, [s, pattern], wide)
    return v if block_t.scalar == i64 else b.create1(Op.TRUNCI, [v], block_t)


def _scalarize(loop: Operation, remap_boxes: bool) -> None:
    body = loop.body
    inits = list(loop.inits)
    args = body.args[1:]
    yield_op = body.terminator
    plans = {}
    for j, (init, arg) in enumerate(zip(inits, args)):
        t = arg.type
        if not t.is_block() or not (t.scalar.is_ptr() or t.scalar.is_int()):
            continue
        aff = analyze(init)
        if aff is None or (t.scalar.is_ptr() and aff.root is None) or (aff.remap is not None and not remap_boxes):
            continue
        d = _delta(arg, yield_op.values[j])
        if d is not None:
            plans[j] = (aff, d)
    if not plans:
        return
    b = Builder()
    b.set_insertion_point_before(loop)
    b.loc = loop.loc
    new_inits, patterns = list(inits), {}
    for j, (aff, _) in plans.items():
        new_inits[j] = offset_pointer(b, aff.root, aff.base) if aff.root is not None else materialize(b, aff.base)
        patterns[j] = _pattern(b, aff)
    # the new loop: same body region, scalar iter_args where planned
    types = [v.type for v in new_inits]
    new = Operation(Op.FOR, [loop.lower, loop.upper, loop.step] + new_inits, types, dict(loop.attrs), loc=loop.loc)
    region = loop.regions[0]
    loop.regions.clear()
    new.add_region(region)
    loop.parent.insert_before(loop, new)
    # inside the body: block args become scalars; rebuild the blocks at the top
    bb = Builder()
    bb.block, bb.index = body, 0
    bb.loc = loop.loc
    for j, (_aff, d) in plans.items():
        arg = body.args[j + 1]
        old_t = arg.type
        arg.type = new_inits[j].type
        users = list(arg.uses)
        rebuilt = _rebuild(bb, arg, patterns[j], old_t)
        for u in users:
            u.op.set_operand(u.index, rebuilt)
        # the yield: scalar + delta
        yb = Builder()
        yb.set_insertion_point_before(yield_op)
        yb.loc = loop.loc
        step = materialize(yb, d.base)
        nxt = yb.create1(Op.ADDPTR, [arg, step], arg.type) if arg.type.is_ptr() else \
            yb.create1(Op.ADDI, [arg, step], arg.type)
        yield_op.set_operand(j, nxt)
    # after the loop (the old loop sits right after the new one until it is erased)
    ab = Builder()
    ab.set_insertion_point_before(loop)
    ab.loc = loop.loc
    for j, r in enumerate(loop.results):
        if j not in plans:
            r.replace_all_uses_with(new.results[j])
        elif r.uses:
            r.replace_all_uses_with(_rebuild(ab, new.results[j], patterns[j], r.type))
    loop.set_operands([])
    loop.erase()
