"""Expand tl.reduce / tl.associative_scan with combine functions the RE cannot run into SE and MLU steps.

The RE runs sum, prod, max, min, and, or, xor and argmax/argmin reductions and sum, prod, max, min
scans as one command (`target.runs_on_re` recognises them). Any other combine function (Welford's
(mean, m2, count), a hand-written argmin over (value, payload), a segmented scan over (value, flag),
`a + b * 2`) is rewritten here into ops the backend already lowers: the combine region's ops are
re-created on blocks, where they run element-wise on the SE, so each lane combines one pair.

Reduce along an axis of n (a power of two), log2(n) halving steps, each:
    lhs, rhs = y[..., 0::2, ...], y[..., 1::2, ...]       # two MLU slices per operand
    y = combine(lhs, rhs)                                  # the region's k ops on the SE
then the size-1 axis is reshaped away (a view; a 1-D input gives a scalar via mtia.to_scalar).
Adjacent pairs keep the operands in order, so an associative combine need not be commutative, and
the tree is the interpreter's: even a non-associative combine gives its result.
Cost: 2 * m * log2(n) MLU slices and k * log2(n) SE commands (m operands, k ops in the region),
k * n element-ops in all (n/2 + n/4 + ... + 1 per op).

Scan (inclusive, Hillis-Steele): a loop of log2(n) steps, d = 1, 2, 4, ... < n:
    shifted = gather(y, max(i - d, 0))                     # one MLU gather per operand
    y = where(i - d >= 0, combine(shifted, y), y)          # k ops and m selects on the SE
(reverse: gather(y, min(i + d, n - 1)), where(i + d < n, combine(shifted, y), y): as in Triton, a
reverse scan is the scan of the flipped axis, so the later elements are the combine's left operand). A loop, not
unrolled steps, so that each tile keeps one CB (the local store gives every CB its own bytes).
Cost: m * log2(n) MLU gathers and (k + m) * log2(n) full-size SE commands, plus 4 SE commands on
one row per step for the indices; (k + m) * n * log2(n) element-ops. This order equals the
sequential scan's for associative combines; Triton leaves a non-associative one's unspecified.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...ir import Builder, Op
from ...ir.core import Block, Operation, Region, Value
from ...ir.ops import OP_DEFS
from ...ir.types import i1, i32
from .. import dialect as mtia
from ..target import runs_on_re
from .util import error_at


@dataclass(frozen=True)
class ExpandCombine:
    name: ClassVar[str] = "expand-combine"

    def run(self, module) -> None:
        for op in [o for o in module.walk() if o.name in (Op.REDUCE, Op.SCAN)]:
            if runs_on_re(op):
                continue
            _check_elementwise(op)
            b = Builder()
            b.set_insertion_point_before(op)
            with b.at_loc(op.loc):
                new = _expand_reduce(b, op) if op.name == Op.REDUCE else _expand_scan(b, op)
            for old, v in zip(op.results, new):
                if v.name_hint is None and v not in op.operands:
                    v.name_hint = old.name_hint       # the printed IR keeps the user's names
            op.replace_all_uses_with(new)
            op.erase()


def _check_elementwise(op: Operation) -> None:
    what = "tl.reduce" if op.name == Op.REDUCE else "tl.associative_scan"
    for o in op.body.ops[:-1]:
        d = OP_DEFS.get(o.name)
        if o.regions or d is None or not (d.elementwise or o.name == Op.CONSTANT):
            raise error_at(o, f"this {what} combine function uses {o.name}, which the MTIA backend cannot "
                              "apply lane by lane: compute the result with element-wise ops (tl.where, not if)")


def _combine(b: Builder, body: Block, lhs: list[Value], rhs: list[Value]) -> list[Value]:
    """The combine region's ops re-created on blocks of lhs's shape (the SE applies them per lane)."""
    shape = lhs[0].type.shape
    env = dict(zip(body.args, lhs + rhs))

    def get(v: Value) -> Value:
        if v not in env:                              # a scalar from outside the region: one per lane
            env[v] = b.create1(Op.SPLAT, [v], v.type.with_shape(shape))
        return env[v]

    for o in body.ops[:-1]:
        new = b.create(o.name, [get(v) for v in o.operands], [r.type.with_shape(shape) for r in o.results],
                       dict(o.attrs), loc=o.loc)
        env.update(zip(o.results, new.results))
    return [get(v) for v in body.terminator.operands]


def _slice(b: Builder, v: Value, axis: int, start: int, count: int, step: int) -> Value:
    """v[..., start::step, ...] along axis (count elements); a uniform block just gets the new shape."""
    shape = list(v.type.shape)
    shape[axis] = count
    t = v.type.with_shape(shape)
    src = v.owner if isinstance(v.owner, Operation) else None
    if src is not None and src.name == Op.CONSTANT:
        return b.constant(src.attrs["value"], t)
    if src is not None and src.name == Op.SPLAT:
        return b.create1(Op.SPLAT, [src.src], t)
    rank = len(shape)
    return b.create1(Op.EXTRACT_SLICE, [v], t, {
        "offsets": [start if d == axis else 0 for d in range(rank)], "sizes": shape,
        "strides": [step if d == axis else 1 for d in range(rank)]})


def _expand_reduce(b: Builder, op: Operation) -> list[Value]:
    axis = op.attrs["axis"]
    ys = list(op.operands)
    while (n := ys[0].type.shape[axis]) > 1:
        lhs = [_slice(b, y, axis, 0, n // 2, 2) for y in ys]
        rhs = [_slice(b, y, axis, 1, n // 2, 2) for y in ys]
        ys = _combine(b, op.body, lhs, rhs)
    outs = []
    for y, r in zip(ys, op.results):
        if r.type.is_block():
            outs.append(b.create1(Op.RESHAPE, [y], r.type))
        else:                                         # a 1-D reduction: the one element, as a scalar
            outs.append(b.create1(mtia.TO_SCALAR, [y], r.type))
    return outs


def _along(b: Builder, v: Value, axis: int, shape: tuple[int, ...]) -> Value:
    """A 1-D block v laid along `axis` of `shape` (expand_dims, then broadcast)."""
    for d in range(len(shape)):
        if d != axis:
            row = list(v.type.shape)
            row.insert(d, 1)
            v = b.create1(Op.EXPAND_DIMS, [v], v.type.with_shape(row), {"axis": d})
    if v.type.shape != tuple(shape):
        v = b.create1(Op.BROADCAST, [v], v.type.with_shape(shape))
    return v


def _expand_scan(b: Builder, op: Operation) -> list[Value]:
    """A loop of log2(n) Hillis-Steele steps: one loop keeps each tile in one CB (not one per step)."""
    axis, reverse = op.attrs["axis"], bool(op.attrs.get("reverse"))
    ys = list(op.operands)
    shape = ys[0].type.shape
    n = shape[axis]
    if n == 1:
        return ys
    row = i32.with_shape((n,))
    i = b.create1(Op.MAKE_RANGE, [], row, {"start": 0, "end": n})
    steps = n.bit_length() - 1
    loop = b.create(Op.FOR, [b.constant(0, i32), b.constant(steps, i32), b.constant(1, i32)] + ys,
                    [y.type for y in ys], regions=[Region([Block([i32] + [y.type for y in ys], ["step"])])])
    s, *ys = loop.body.args
    with b.at_end(loop.body):
        d = b.create1(Op.SPLAT, [b.create1(Op.SHLI, [b.constant(1, i32), s], i32)], row)
        if reverse:                                   # lane i combines with lane i + d, if there is one
            j = b.create1(Op.ADDI, [i, d], row)
            src = b.create1(Op.MINSI, [j, b.constant(n - 1, row)], row)
            valid = b.create1(Op.CMPI, [j, b.constant(n, row)], i1.with_shape((n,)), {"predicate": "slt"})
        else:                                         # lane i combines with lane i - d, if there is one
            j = b.create1(Op.SUBI, [i, d], row)
            src = b.create1(Op.MAXSI, [j, b.constant(0, row)], row)
            valid = b.create1(Op.CMPI, [j, b.constant(0, row)], i1.with_shape((n,)), {"predicate": "sge"})
        src, valid = _along(b, src, axis, shape), _along(b, valid, axis, shape)
        shifted = [b.create1(Op.GATHER, [y, src], y.type, {"axis": axis}) for y in ys]
        combined = _combine(b, op.body, shifted, ys)  # the lanes before (after, reversed) on the left
        b.create(Op.YIELD, [b.create1(Op.SELECT, [valid, c, y], y.type) for c, y in zip(combined, ys)])
    return loop.results
