"""Indirect loads whose data-dependent offsets provably stay inside a small window: one DMA box of the
window and a gather in the local store, instead of an element-wise DMA gather.

Inductor indexes a tensor through loaded indices (DLRM's pair gather `z[:, li, lj]` is
`tl.load(z + (tmp9 + 4*tmp4 + 16*y0))`, tmp4 and tmp9 loaded from li and lj) and checks every index
first: `tl.device_assert(((0 <= tmp4) & (tmp4 < 4)) | ~xmask)`. Past that assert, in every lane the
load's mask keeps, tmp9 + 4*tmp4 lies in [0, 16): each row's offsets fall in one 16-element window
after its affine part 16*y0. `find` splits a load's offsets into an affine part (`affine.analyze`) and
such bounded terms (a checked index times a constant), and the access becomes a box of the windows
(the affine part's box, its dimension `axis`, along which the affine part does not move, replaced by
the window, stride 1) and a `tt.gather` along `axis` by offset - window start. The index is clamped
into the window, so that lanes the mask drops (where no assert speaks) read inside it too; those lanes
take the load's `other` afterwards. The facts come only from an assert in the same block before the
load whose own mask, if any, is one of the load's mask's conjuncts. The box does not depend on the
checked indices, so it is issued before the asserts (`issue_point`): its transfer overlaps the index
loads and the checks, which make the control core wait for their result.

The box reads every element the asserted range allows, not only those the indices name: a kernel whose
assert allows more than its array holds would read past it, so each launch checks that its window
boxes stay inside their arrays and takes the element gathers where one might not (launch/window_bounds.py).
The `index_windows` switch (options.py) turns windows off.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...ir import Op
from ...ir.core import Operation, Value
from .. import dialect as mtia
from .affine import ZERO, Affine, Poly, Quotient, Wrapped, add_affine, analyze

# ops that write memory: a load issued earlier must not pass one
_WRITES = frozenset((Op.STORE, Op.ATOMIC_RMW, Op.ATOMIC_CAS, Op.DESCRIPTOR_STORE, mtia.STORE_BOX, mtia.SCATTER,
                     mtia.ATOMIC, mtia.ATOMIC_BOX, mtia.CAS))
# a window at most this many times the block's extent along its axis: past it the box reads much
# more than the gather would
MAX_WIDEN = 4


@dataclass(frozen=True)
class Term:
    """coef * value, value an index block with lo <= value < hi wherever the load's mask holds."""
    value: Value
    coef: int
    lo: int
    hi: int


@dataclass(frozen=True)
class Window:
    """The load's offsets = affine (a box with stride 1 and extent `width` along `axis`, starting at
    the window start) + sum of terms - the window start's shift `low`."""
    affine: Affine
    axis: int
    width: int
    low: int
    terms: tuple[Term, ...]


def _const_block(v: Value) -> int | None:
    a = analyze(v) if v.type.scalar.is_int() else None
    if a is None or not a.uniform or a.root is not None or not a.base.is_const:
        return None
    return a.base.value


def _is_true(v: Value) -> bool:
    op = v.owner
    while hasattr(op, "name") and op.name in (Op.SPLAT, Op.BROADCAST):
        v = op.src
        op = v.owner
    return hasattr(op, "name") and op.name == Op.CONSTANT and op.attrs.get("value") in (True, 1, -1)


def _negated(v: Value) -> Value | None:
    """m when v is ~m (xor with all ones)."""
    op = v.owner
    if not hasattr(op, "name") or op.name != Op.XORI:
        return None
    if _is_true(op.rhs):
        return op.lhs
    return op.rhs if _is_true(op.lhs) else None


def _conjuncts(v: Value) -> list[Value]:
    """The values whose `&` v is, through broadcasts (v itself when it is no `&`)."""
    op = v.owner
    if hasattr(op, "name") and op.name == Op.ANDI:
        return _conjuncts(op.lhs) + _conjuncts(op.rhs)
    if hasattr(op, "name") and op.name == Op.BROADCAST:
        return [v] + _conjuncts(op.src)
    return [v]


def _bound(cmp: Value) -> tuple[Value, int | None, int | None] | None:
    """(v, lo, hi) for `c <= v`, `v < c` and the other comparisons of a block v with a constant."""
    op = cmp.owner
    if not hasattr(op, "name") or op.name != Op.CMPI:
        return None
    pred, lhs, rhs = op.attrs["predicate"], op.lhs, op.rhs
    c = _const_block(rhs)
    if c is None:
        c = _const_block(lhs)
        if c is None:
            return None
        lhs = rhs
        pred = {"slt": "sgt", "sle": "sge", "sgt": "slt", "sge": "sle"}.get(pred)
    # lhs OP c
    if pred == "sge":
        return lhs, c, None
    if pred == "sgt":
        return lhs, c + 1, None
    if pred == "slt":
        return lhs, None, c
    if pred == "sle":
        return lhs, None, c + 1
    return None


def _asserted(op: Operation) -> tuple[dict, Value | None]:
    """{value: (lo, hi)} an assert's condition states, and the mask it is conditioned on (cond | ~m)."""
    cond = op.cond
    c = cond.owner
    guard = None
    if hasattr(c, "name") and c.name == Op.ORI:
        for a, b in ((c.lhs, c.rhs), (c.rhs, c.lhs)):
            m = _negated(b)
            if m is not None:
                cond, guard = a, m
                break
        else:
            return {}, None
    facts: dict = {}
    for part in _conjuncts(cond):
        r = _bound(part)
        if r is None:
            continue
        v, lo, hi = r
        old_lo, old_hi = facts.get(v, (None, None))
        facts[v] = (lo if lo is not None else old_lo, hi if hi is not None else old_hi)
    return {v: r for v, r in facts.items() if None not in r}, guard


def _facts(load: Operation) -> dict:
    """{value: (lo, hi)} that hold in every lane the load keeps: from the asserts before it in its block."""
    block = load.parent
    keeps = {id(v) for v in _conjuncts(load.mask)} if load.mask is not None else set()
    facts: dict = {}
    for op in block.ops:
        if op is load:
            break
        if op.name != Op.ASSERT:
            continue
        found, guard = _asserted(op)
        if guard is not None and id(guard) not in keeps:
            continue
        facts.update(found)
    return facts


def signed_terms(v: Value, sign: int, out: list) -> None:
    """The signed summands of v, through adds, subtracts, broadcasts and widenings."""
    op = v.owner
    name = op.name if hasattr(op, "name") else None
    if name in (Op.ADDI, Op.SUBI):
        signed_terms(op.lhs, sign, out)
        signed_terms(op.rhs, -sign if name == Op.SUBI else sign, out)
    elif name in (Op.BROADCAST, Op.EXTSI):
        signed_terms(op.operands[0], sign, out)
    else:
        out.append((v, sign))


def _bounded(v: Value, sign: int, facts: dict) -> Term | None:
    """sign * v as c * x with x a checked index (v = x, c * x, x * c or a widening of those)."""
    coef = sign
    op = v.owner
    if hasattr(op, "name") and op.name == Op.MULI:
        for x, k in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            c = _const_block(k)
            if c is not None:
                coef, v = sign * c, x
                break
        else:
            return None
    op = v.owner
    while hasattr(op, "name") and op.name in (Op.BROADCAST, Op.EXTSI):
        v = op.operands[0]
        op = v.owner
    r = facts.get(v)
    if r is None:
        return None
    return Term(v, coef, *r)


def widened(a: Affine, shape) -> Affine:
    """a over the larger `shape` it broadcasts to (no stride along the dimensions it was 1 in)."""
    strides = tuple(s if n == m else ZERO for s, n, m in zip(a.strides, a.shape, shape))
    return Affine(tuple(shape), a.base, strides, a.root, a.remap)


def find(load: Operation) -> Window | None:
    """The window form of a load's pointer block, or None."""
    ptr = load.ptr
    op = ptr.owner
    if not hasattr(op, "name") or op.name != Op.ADDPTR:
        return None
    base = analyze(op.ptr)
    if base is None or base.root is None:
        return None
    facts = _facts(load)
    if not facts:
        return None
    shape = tuple(ptr.type.shape)
    parts: list = []
    signed_terms(op.offset, 1, parts)
    affine = widened(base, shape)
    terms = []
    for v, sign in parts:
        a = analyze(v)
        if a is not None and a.root is None:
            affine = add_affine(shape, affine, widened(a, shape), sign)
            if affine is None:
                return None
            continue
        t = _bounded(v, sign, facts)
        if t is None or len(t.value.type.shape) != len(shape):
            return None
        terms.append(t)
    if not terms:
        return None
    moving = {d for t in terms for d, n in enumerate(t.value.type.shape) if n > 1}
    axes = [d for d in moving if not affine.strides[d] and (affine.remap is None or affine.remap.dim != d)]
    if len(axes) != 1:
        return None
    axis = axes[0]
    low = sum(t.coef * (t.lo if t.coef > 0 else t.hi - 1) for t in terms)
    high = sum(t.coef * (t.hi - 1 if t.coef > 0 else t.lo) for t in terms)
    width = high - low + 1
    if width > MAX_WIDEN * shape[axis]:
        return None
    strides = tuple(Poly.const(1) if d == axis else s for d, s in enumerate(affine.strides))
    window = Affine(shape[:axis] + (width,) + shape[axis + 1:], affine.base + Poly.const(low), strides,
                    affine.root, affine.remap)
    return Window(window, axis, width, low, tuple(terms))


def _values(p: Poly):
    """The scalar Values a polynomial's value is computed from."""
    for mono, _ in p.terms:
        for v in mono:
            if isinstance(v, Quotient):
                yield from _values(v.start)
            elif isinstance(v, Wrapped):
                yield from _values(v.value)
            else:
                yield v


def issue_point(load: Operation, polys) -> Operation:
    """The op before which the window's box may be issued: the first assert before the load in its block
    when every scalar the box is computed from (`polys`) is defined before that assert and nothing
    between them writes memory, else the load."""
    block = load.parent
    index = {id(op): k for k, op in enumerate(block.ops)}
    first = next((op for op in block.ops[:index[id(load)]] if op.name == Op.ASSERT), None)
    if first is None:
        return load
    limit = index[id(first)]
    if any(op.name in _WRITES or op.regions for op in block.ops[limit:index[id(load)]]):
        return load
    for p in polys:
        for v in _values(p):
            k = index.get(id(v.owner))
            if k is not None and k >= limit:
                return load
    return first
