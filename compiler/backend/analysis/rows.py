"""Loads of whole rows picked by loaded indices: one `dma.rows` descriptor per row, instead of an
element-wise gather over a materialised offsets tile.

An embedding lookup reads `tl.load(table + idx[:, None] * D + cols[None, :])`: along a row the
address moves by one element per column, and the row itself is chosen by a value loaded from memory.
No box covers it (idx is data), but each row is one contiguous run, which the DMA reads as a run
when it is told the rows' starts. `find` splits the offsets into an affine part (`affine.analyze`),
which must step by 1 along the columns, and row terms `coef * x` with x an [N, 1] integer
block (any value: loaded, computed) and coef a constant or a uniform scalar (a stride argument). The
access becomes `mtia.load_rows`: row r reads `row_stride * x[r]` elements past the affine part's
start, its first `valid_cols` columns; where the affine part also moves down the rows (`a + rm[:, None]
* K + off[:, None] + rk[None, :]`), the index is `coef * x + r * K` (i64) with row_stride 1, r the
row's own index or its wrap or clamp (the matmul tutorial's `offs_am % M`). Wrapped columns (`offs_bn
% N` along a row) are the descriptor's own wrap: each row is then up to two runs.

Masks: a conjunction of [N, 1] blocks (rows to skip: they take the padding) and a column bound
`cols < C` (the valid columns). Anything else, or an `other` that is not a constant, stays an
element-wise gather.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...ir import Op
from ...ir.core import Operation, Value
from .affine import Affine, Poly, add_affine, analyze
from .masks import analyze_mask
from .windows import signed_terms, widened


@dataclass(frozen=True)
class Rows:
    """The load reads row r at `start + r * down + sum(coef * x[r] for x, coef in terms)`, columns
    [0, cols) (all when None), rows where every value of `row_masks` holds (all when empty)."""
    start: Affine               # the affine part: its root, base; `down` along the rows, 1 along the columns
    down: Poly
    terms: tuple[tuple[Value, Poly], ...]   # x an [N, 1] integer block; coef in elements, constant or uniform
    cols: Poly | None
    row_masks: tuple[Value, ...]

    @property
    def summed(self) -> bool:
        """Whether the rows' offsets must be summed into one i64 index (stride 1) before the DMA: the
        affine part moves down the rows (its wrap or clamp of them included), or more than one block
        picks them."""
        return bool(self.down) or len(self.terms) > 1


def _strip(v: Value) -> Value:
    """v through broadcasts and sign extensions (an index block's own value)."""
    op = v.owner
    while hasattr(op, "name") and op.name in (Op.BROADCAST, Op.EXTSI):
        v = op.operands[0]
        op = v.owner
    return v


def _row_term(v: Value, sign: int, rows: int) -> tuple[Value, Poly] | None:
    """sign * v as coef * x with x an [rows, 1] integer block and coef a constant or a uniform scalar."""
    coef = Poly.const(sign)
    op = v.owner
    if hasattr(op, "name") and op.name == Op.MULI:
        for x, k in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            a = analyze(k)
            if a is not None and a.uniform and a.root is None:
                coef, v = a.base.scale(sign), x
                break
    x = _strip(v)
    if _shape(x) != (rows, 1) or not x.type.scalar.is_int():
        return None
    return x, coef


def _shape(v: Value) -> tuple[int, ...]:
    return tuple(v.type.shape) if v.type.is_block() else ()


def _mask_parts(m: Value, out: list) -> None:
    op = m.owner
    if hasattr(op, "name") and op.name == Op.ANDI:
        _mask_parts(op.lhs, out)
        _mask_parts(op.rhs, out)
    elif hasattr(op, "name") and op.name == Op.BROADCAST:
        _mask_parts(op.src, out)
    else:
        out.append(m)


def _masks(mask: Value | None, rows: int, cols: int) -> tuple[Poly | None, tuple[Value, ...]] | None:
    """(column bound, row masks) of a load's mask, or None when it is not of that form."""
    if mask is None:
        return None, ()
    parts: list = []
    _mask_parts(mask, parts)
    limit, row_masks = None, []
    for p in parts:
        shape = _shape(p)
        if shape == (rows, 1):
            row_masks.append(p)
            continue
        if shape not in ((1, cols), (cols,)):
            return None
        box = analyze_mask(p)
        if box is None or any(bd.dim != len(shape) - 1 or bd.coef != 1 for bd in box.bounds):
            return None
        for bd in box.bounds:
            if limit is not None:
                return None                       # (two column bounds: leave it to the gather)
            limit = bd.limit
    return limit, tuple(row_masks)


def find(load: Operation) -> Rows | None:
    """The rows form of a 2-D load, or None."""
    ptr = load.ptr
    shape = _shape(ptr)
    if len(shape) != 2 or shape[1] == 1:
        return None
    parts: list = []
    base = None
    while base is None:          # (table + idx[:, None] * D) + cols[None, :]: a chain of adds and broadcasts
        op = ptr.owner
        if not hasattr(op, "name"):
            return None
        if op.name == Op.BROADCAST:
            ptr = op.src
            continue
        if op.name != Op.ADDPTR:
            return None
        signed_terms(op.offset, 1, parts)
        ptr = op.ptr
        base = analyze(ptr)
        if base is not None and base.root is None:
            return None
    if base.root is None or not parts:
        return None
    start = widened(base, shape)
    terms = []
    for v, sign in parts:
        a = analyze(v)
        if a is not None and a.root is None:
            start = add_affine(shape, start, widened(a, shape), sign)
            if start is None:
                return None
            continue
        t = _row_term(v, sign, shape[0])
        if t is None:
            return None
        terms.append(t)
    remap = start.remap
    if not terms or (remap is not None and remap.dim == 1 and remap.kind != "wrap"):
        return None          # (a wrapped or clamped row index is summed into the index; wrapped columns, dma.rows')
    down, across = start.strides
    if not (across.is_const and across.value == 1):
        return None
    masks = _masks(load.mask, *shape)
    if masks is None:
        return None
    form = Rows(start, down, tuple(terms), *masks)
    if form.summed and any(x.type.scalar.ir not in ("i32", "i64") for x, _ in terms):
        return None                               # (the rows' offsets are summed in i64 from signed indices)
    return form
