"""Turn Triton's loads, stores, atomics and tensor-descriptor accesses into MTIA DMA ops.

A pointer block that is affine in the program's indices (`ptr + pid * B + arange(B)`, 2-D tiles
with row strides, `ptr[None, :]` broadcasts) becomes one box DMA (`mtia.load_box` /
`mtia.store_box`) with its base address, strides and, from the mask, its valid extents computed by
scalar code. A dimension whose index wraps (`% M`) or is clamped (`tl.where(offs < M, offs, 0)`)
stays a box: the op names the remap (attrs remap, remap_dim) and takes its start, bound (and
fill) as scalars, and the DMA walks that dimension in its contiguous parts. Dimensions along which the address does not move are loaded once and broadcast in the
local store. A load through checked indices that stay inside a small window of each row (Inductor's
`z[:, li, lj]`, `compiler/backend/analysis/windows.py`) becomes a box of the windows and a `tt.gather` in the
local store. Anything else (data-dependent offsets, masks that are not boxes, atomics) becomes an
element-wise `mtia.gather` / `mtia.scatter` / `mtia.atomic` on integer offsets from a root pointer.
Scalar (0-d) loads and stores stay as they are for the control core.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from typing import ClassVar

from ...ir import Builder, Op
from ...ir.core import Operation, Value
from ...ir.types import BlockType, i1, i8, i16, i32, i64, u8, u16, u32, u64
from .. import dialect as mtia
from ..analysis import rows, windows
from ..analysis.affine import Affine, Poly, Quotient, Wrapped, analyze
from ..analysis.masks import BoxMask, analyze_mask
from .util import constant_value, erase_dead, error_at


@dataclass(frozen=True)
class LowerMemory:
    """tt.load / tt.store / tt.atomic_* / descriptor loads and stores -> mtia DMA ops. A box whose base
    is not provably `align_bytes`-aligned (the target's DMA alignment) is marked unaligned. Switches
    (compiler/backend/options.py): `remap_boxes` off makes wrapped and clamped rows gathers, `mask_boxes`
    off makes every masked access a gather or scatter under its mask, `index_windows` off makes loads
    through checked indices element-wise gathers, not windows, `row_loads` off makes rows picked by
    an index block (analysis/rows.py) element-wise gathers."""
    align_bytes: int
    remap_boxes: bool = True
    mask_boxes: bool = True
    index_windows: bool = True
    row_loads: bool = True
    name: ClassVar[str] = "lower-memory"

    def run(self, module) -> None:
        for func in module.functions:
            targets = [op for op in func.walk() if op.name in _HANDLERS or op.name in _BOX_HANDLERS]
            for op in targets:
                try:
                    if op.name in _BOX_HANDLERS:
                        _BOX_HANDLERS[op.name](op, self)
                    else:
                        _HANDLERS[op.name](op)
                except NotSplit:
                    pass            # left for the materialize-pointers fallback
        erase_dead(module)


# ---- scalar materialisation ----------------------------------------------------------------------

def _i64(b: Builder, v: Value) -> Value:
    t = v.type
    if t == i64:
        return v
    if t.is_int() and t.int_bitwidth < 64:
        return b.create1(Op.EXTUI if (t.is_int_unsigned() or t == i1) else Op.EXTSI, [v], i64)
    if t == u64:
        return b.create1(Op.BITCAST, [v], i64)
    raise AssertionError(f"not an integer: {t.ir}")


def _monomial(b: Builder, mono, c: int) -> Value:
    term = None
    for v in mono:
        x = _quotient(b, v) if isinstance(v, Quotient) else _wrapped(b, v) if isinstance(v, Wrapped) else _i64(b, v)
        term = x if term is None else b.create1(Op.MULI, [term, x], i64)
    if c != 1:
        term = b.create1(Op.MULI, [term, b.constant(c, i64)], i64)
    return term


def _quotient(b: Builder, q: Quotient) -> Value:
    return b.create1(Op.REMSI if q.remainder else Op.DIVSI, [materialize(b, q.start), b.constant(q.divisor, i64)], i64)


def _wrapped(b: Builder, w: Wrapped) -> Value:
    """The i64 value of w: its polynomial in i64, cut to w's width and extended back."""
    t = {(8, True): i8, (16, True): i16, (32, True): i32, (8, False): u8, (16, False): u16, (32, False): u32}[(w.bits, w.signed)]
    narrow = b.create1(Op.TRUNCI, [materialize(b, w.value)], t)
    return b.create1(Op.EXTSI if w.signed else Op.EXTUI, [narrow], i64)


def materialize(b: Builder, p: Poly) -> Value:
    """i64 scalar code computing the polynomial: positive terms added, negative ones subtracted
    (constants folded; CSE removes repeats)."""
    const = p.value
    pos = [(m, c) for m, c in p.terms if m and c > 0]
    neg = [(m, -c) for m, c in p.terms if m and c < 0]
    acc = None
    for m, c in pos:
        t = _monomial(b, m, c)
        acc = t if acc is None else b.create1(Op.ADDI, [acc, t], i64)
    if acc is None:
        if not neg:
            return b.constant(const, i64)
        acc, const = b.constant(const, i64), 0
    for m, c in neg:
        acc = b.create1(Op.SUBI, [acc, _monomial(b, m, c)], i64)
    if const:
        acc = b.create1(Op.ADDI, [acc, b.constant(const, i64)], i64)
    return acc


def offset_pointer(b: Builder, root: Value, p: Poly) -> Value:
    """root + p elements (root itself when p is zero)."""
    if not p:
        return root
    return b.create1(Op.ADDPTR, [root, materialize(b, p)], root.type)


def index_block(b: Builder, aff: Affine, d: int) -> Value:
    """The i64 index block along dimension d: 0..n-1, or its remap f(i) (a wrap or clamp of start + i)."""
    n = aff.shape[d]
    t = BlockType((n,), i64)
    r = b.create1(Op.MAKE_RANGE, [], BlockType((n,), i32), {"start": 0, "end": n})
    r = b.create1(Op.EXTSI, [r], t)
    m = aff.remap
    if m is None or m.dim != d:
        return r
    splat = lambda p: b.create1(Op.SPLAT, [materialize(b, p)], t)  # noqa: E731
    r = b.create1(Op.ADDI, [r, splat(m.start)], t)
    if m.kind == "wrap":
        return b.create1(Op.REMSI, [r, splat(m.bound)], t)
    inside = b.create1(Op.CMPI, [r, splat(m.bound)], BlockType((n,), i1), {"predicate": "slt"})
    return b.create1(Op.SELECT, [inside, r, splat(m.fill)], t)


def _divisibility(v: Value) -> int:
    """A known divisor of a scalar integer value (1 when nothing is known)."""
    if isinstance(v, Wrapped):                # wrapping to 2^bits keeps the divisors of 2^bits
        return gcd(_divisor(v.value), 1 << v.bits) or 1
    op = v.owner
    if hasattr(op, "name"):
        if op.name == Op.CONSTANT:
            c = op.attrs.get("value")
            return abs(c) if isinstance(c, int) and c else 1 << 30
        if op.name == Op.MULI:
            return min(_divisibility(op.lhs) * _divisibility(op.rhs), 1 << 30)
        if op.name in (Op.EXTSI, Op.EXTUI):
            return _divisibility(op.x)
        return 1
    func = getattr(op, "parent_op", None)      # a function argument: tt.divisibility hint
    if func is not None and func.name == Op.FUNC:
        attrs = (func.attrs.get("arg_attrs") or [{}] * (v.index + 1))[v.index] or {}
        return attrs.get("tt.divisibility", 1)
    return 1


def _box_aligned(aff: Affine, isz: int, align: int) -> bool:
    """Whether every box the DMA makes of `aff` provably starts `align`-byte aligned: the base, and with a
    remapped dimension each part's start along it, j * stride with j the start's remainder (a wrap),
    the start or the fill (a clamp), or 0."""
    if not _aligned(aff.root, aff.base, isz, align):
        return False
    r = aff.remap
    if r is None:
        return True
    j = gcd(_divisor(r.start), _divisor(r.bound if r.kind == "wrap" else r.fill))
    return _divisor(aff.strides[r.dim]) * j * isz % align == 0


def _remap_operands(b: Builder, aff: Affine) -> tuple[list, dict]:
    """(scalar operands, attrs) naming a remapped dimension: start and bound, and fill for a clamp."""
    r = aff.remap
    if r is None:
        return [], {}
    vals = [materialize(b, r.start), materialize(b, r.bound)]
    if r.kind == "clamp":
        vals.append(materialize(b, r.fill))
    return vals, {"remap": r.kind, "remap_dim": r.dim, "remap_args": len(vals)}


def _divisor(p: Poly) -> int:
    """A known divisor of the polynomial's value at run time (0 for the zero polynomial)."""
    g = 0
    for mono, c in p.terms:
        d = abs(c)
        for v in mono:
            d *= _divisibility(v)
        g = gcd(g, d)
    return g


def _aligned(root: Value, base: Poly, isz: int, align: int) -> bool:
    """Whether root + base * isz is provably `align`-byte aligned."""
    g = _divisor(base) * isz
    if g and g % align:
        return False
    return _root_aligned(root, align)


def _root_aligned(root: Value, align: int) -> bool:
    """A pointer argument is `align`-byte aligned: the runtime places arrays on 256-byte boundaries, and
    marks a view that starts inside its buffer (x[1:] beside x[:-1]) with its real alignment, `mtia.align`."""
    op = root.owner
    func = getattr(op, "parent_op", None)
    if hasattr(op, "name") or func is None or func.name != Op.FUNC:
        return False
    attrs = (func.attrs.get("arg_attrs") or [{}] * (root.index + 1))[root.index] or {}
    known = attrs.get("mtia.align")
    return known is None or known % align == 0


def _uniform_scalar(v: Value) -> tuple[bool, object]:
    """(True, constant or scalar Value) when every element of block v is the same, else (False, None)."""
    op = v.owner
    if hasattr(op, "name"):
        if op.name == Op.CONSTANT:
            return True, op.attrs["value"]
        if op.name == Op.SPLAT:
            c = constant_value(op.src)
            return True, op.src if c is None else c
        if op.name == Op.BROADCAST:
            return _uniform_scalar(op.src)
    return False, None


# ---- loads and stores ----------------------------------------------------------------------------

def _box_operands(b: Builder, aff: Affine, box: BoxMask, shape) -> tuple[Value, list, list]:
    """(base pointer, stride values, valid values) for a box over `shape`."""
    ptr = offset_pointer(b, aff.root, aff.base)
    strides = [materialize(b, s) for s in aff.strides]
    return ptr, strides, box_valid(b, box, shape)


def box_valid(b: Builder, box: BoxMask, shape) -> list:
    """The i64 valid extent of each dimension of `shape` under the box mask (the DMA's `valid`, the box
    select's): the least of its bounds, the whole dimension where none looks at it, and the first
    dimension's times 0 or 1 for the conditions on no index. An extent may come out negative or past
    its dimension; the commands clamp it."""
    valid = []
    for d, n in enumerate(shape):
        v = None
        for bd in box.bounds:
            if bd.dim != d:
                continue
            lim = materialize(b, bd.limit)
            if bd.coef != 1:            # ceil(limit / coef)
                lim = b.create1(Op.ADDI, [lim, b.constant(bd.coef - 1, i64)], i64)
                lim = b.create1(Op.DIVSI, [lim, b.constant(bd.coef, i64)], i64)
            v = lim if v is None else b.create1(Op.MINSI, [v, lim], i64)
        valid.append(v if v is not None else b.constant(n, i64))
    for bd in box.bounds:               # index-free conditions: everything or nothing
        if bd.dim is None:
            ok = b.create1(Op.CMPI, [b.constant(0, i64), materialize(b, bd.limit)], i1, {"predicate": "slt"})
            ok = b.create1(Op.EXTUI, [ok], i64)
            if valid:
                valid[0] = b.create1(Op.MULI, [valid[0], ok], i64)
    return valid


def _broadcast_dims(aff: Affine, box: BoxMask) -> list[int]:
    """Dimensions along which the address never moves and the mask does not look: load them once."""
    masked = {bd.dim for bd in box.bounds}
    return [d for d, s in enumerate(aff.strides) if not s and aff.shape[d] > 1 and d not in masked]


def _box_form(ptr: Value, mask: Value | None, lm: LowerMemory) -> tuple[Affine | None, BoxMask | None]:
    """The pointer's affine form and the mask's box, each None where the access is no box (or the
    switch that would make it one is off)."""
    aff = analyze(ptr)
    if aff is not None and aff.remap is not None and not lm.remap_boxes:
        aff = None
    if mask is None:
        return aff, BoxMask(tuple(ptr.type.shape))
    return aff, analyze_mask(mask) if lm.mask_boxes else None


def _lower_load(op: Operation, lm: LowerMemory) -> None:
    ptr, mask, other = op.ptr, op.mask, op.other
    if not ptr.type.is_block():
        return                                            # a scalar load: the control core's
    b = Builder()
    b.set_insertion_point_before(op)
    b.loc = op.loc
    aff, box = _box_form(ptr, mask, lm)
    uniform_other, pad = (True, 0) if other is None else _uniform_scalar(other)
    if aff is not None and aff.root is not None and box is not None:
        out_t = op.result.type
        shape = tuple(out_t.shape)
        bdims = _broadcast_dims(aff, box)
        ld_shape = tuple(1 if d in bdims else n for d, n in enumerate(shape))
        p, strides, valid = _box_operands(b, aff, box, ld_shape)
        isz = ptr.type.scalar.element_ty.itemsize
        remap, remap_attrs = _remap_operands(b, aff)
        operands = [p, *strides, *valid, *remap]
        attrs = {"rank": len(shape), "unaligned": not _box_aligned(aff, isz, lm.align_bytes), **remap_attrs}
        if uniform_other and not isinstance(pad, Value):
            attrs["pad"] = pad
        elif uniform_other:
            operands.append(pad)
        val = b.create1(mtia.LOAD_BOX, operands, out_t.with_shape(ld_shape), attrs)
        if bdims:
            val = b.create1(Op.BROADCAST, [val], out_t)
        if not uniform_other:                             # a varying `other`: select after the load
            val = b.create1(Op.SELECT, [mask, val, other], out_t)
        val.name_hint = op.result.name_hint
        op.result.replace_all_uses_with(val)
        op.erase()
        return
    win = windows.find(op) if box is not None and lm.index_windows else None
    if win is not None:
        val = _window_load(b, op, win, box, lm)
        val.name_hint = op.result.name_hint
        op.result.replace_all_uses_with(val)
        op.erase()
        return
    form = rows.find(op) if lm.row_loads and uniform_other and not isinstance(pad, Value) else None
    if form is not None:
        val = _rows_load(b, op, form, pad)
        val.name_hint = op.result.name_hint
        op.result.replace_all_uses_with(val)
        op.erase()
        return
    root, offs = split_pointer(b, ptr)
    operands = [root, offs]
    attrs = {}
    if mask is not None:
        operands.append(mask)
    if uniform_other and not isinstance(pad, Value):
        attrs["pad"] = pad
    val = b.create1(mtia.GATHER, operands, op.result.type, attrs)
    val.name_hint = op.result.name_hint
    if other is not None and not (uniform_other and not isinstance(pad, Value)):
        val = b.create1(Op.SELECT, [mask, val, other], op.result.type)    # `other` where masked off
    op.result.replace_all_uses_with(val)
    op.erase()


def _rows_load(b: Builder, op: Operation, form: rows.Rows, pad) -> Value:
    """Rows picked by an index block (analysis/rows.py): one row descriptor each. A column bound of at most 0
    reads no row (the DMA's valid_cols 0 means every column), so it joins the row mask."""
    ptr = offset_pointer(b, form.start.root, form.start.base)
    n = op.result.type.shape[0]
    if form.summed:                     # index sum(coef * x) + j(r) * down in i64, stride 1
        t = BlockType((n, 1), i64)
        index = None
        for x, coef in form.terms:
            if x.type.scalar != i64:
                x = b.create1(Op.EXTSI, [x], t)
            if not (coef.is_const and coef.value == 1):
                x = b.create1(Op.MULI, [x, b.create1(Op.SPLAT, [materialize(b, coef)], t)], t)
            index = x if index is None else b.create1(Op.ADDI, [index, x], t)
        if form.down:
            r = b.create1(Op.EXPAND_DIMS, [index_block(b, form.start, 0)], t, {"axis": 1})   # r, or its remap
            if not (form.down.is_const and form.down.value == 1):
                r = b.create1(Op.MULI, [r, b.create1(Op.SPLAT, [materialize(b, form.down)], t)], t)
            index = b.create1(Op.ADDI, [index, r], t)
        stride = b.constant(1, i64)
    else:
        ((index, coef),) = form.terms
        stride = materialize(b, coef)
    masks = list(form.row_masks)
    m_t = BlockType((n, 1), i1)
    if form.cols is None:
        cols = b.constant(0, i64)
    else:
        cols = materialize(b, form.cols)
        if not (form.cols.is_const and form.cols.value > 0):
            some = b.create1(Op.CMPI, [b.constant(0, i64), cols], i1, {"predicate": "slt"})
            masks.append(b.create1(Op.SPLAT, [some], m_t))
    mask = None
    for m in masks:
        mask = m if mask is None else b.create1(Op.ANDI, [mask, m], m_t)
    remap = form.start.remap
    wrap = [materialize(b, remap.start), materialize(b, remap.bound)] if remap is not None and remap.dim == 1 else []
    operands = [ptr, index, stride, cols, *wrap] + ([mask] if mask is not None else [])
    return b.create1(mtia.LOAD_ROWS, operands, op.result.type, {"pad": pad, "wrap_args": len(wrap)})


def _window_load(b: Builder, op: Operation, win, box: BoxMask, lm: LowerMemory) -> Value:
    """An indirect load inside a window (analysis/windows.py): the box of the windows, then a gather along the
    window's axis by each offset's place in it; lanes the mask drops take `other` (0 without one)."""
    out_t = op.result.type
    aff, axis = win.affine, win.axis
    wbox = BoxMask(aff.shape, [bd for bd in box.bounds if bd.dim != axis])
    remapped = [aff.remap.start, aff.remap.bound, aff.remap.fill] if aff.remap is not None else []
    b.set_insertion_point_before(windows.issue_point(op, [aff.base, *aff.strides, *remapped,
                                                          *(bd.limit for bd in wbox.bounds)]))
    bdims = _broadcast_dims(aff, wbox)
    ld_shape = tuple(1 if d in bdims else n for d, n in enumerate(aff.shape))
    p, strides, valid = _box_operands(b, aff, wbox, ld_shape)
    isz = op.ptr.type.scalar.element_ty.itemsize
    remap, remap_attrs = _remap_operands(b, aff)
    # `window`: the box may read elements no index names; the launch checks it stays in the array
    attrs = {"rank": len(aff.shape), "unaligned": not _box_aligned(aff, isz, lm.align_bytes), "pad": 0,
             "window": True, **remap_attrs}
    val = b.create1(mtia.LOAD_BOX, [p, *strides, *valid, *remap], out_t.with_shape(ld_shape), attrs)
    if bdims:
        val = b.create1(Op.BROADCAST, [val], out_t.with_shape(aff.shape))
    b.set_insertion_point_before(op)
    val = b.create1(Op.GATHER, [val, _window_index(b, win, tuple(out_t.shape))], out_t, {"axis": axis})
    if op.mask is not None:
        other = op.other if op.other is not None else b.constant(0.0 if out_t.scalar.is_floating() else 0, out_t)
        val = b.create1(Op.SELECT, [op.mask, val, other], out_t)
    return val


def _window_index(b: Builder, win, shape) -> Value:
    """i32 block: each offset's place in its window, sum of coef * index - low, clamped into the window
    (computed over the terms' own shape, then broadcast)."""
    rank = len(shape)
    common = tuple(max(t.value.type.shape[d] for t in win.terms) for d in range(rank))
    t32 = _offs_type(i32, common)
    acc = None
    for t in win.terms:
        v = t.value
        if v.type.scalar != i32:
            vt = _offs_type(i32, tuple(v.type.shape))
            v = b.create1(Op.TRUNCI if v.type.scalar.int_bitwidth > 32 else Op.EXTSI, [v], vt)
        if tuple(v.type.shape) != common:
            v = b.create1(Op.BROADCAST, [v], t32)
        if t.coef != 1:
            v = b.create1(Op.MULI, [v, b.constant(t.coef, t32)], t32)
        acc = v if acc is None else b.create1(Op.ADDI, [acc, v], t32)
    if win.low:
        acc = b.create1(Op.SUBI, [acc, b.constant(win.low, t32)], t32)
    acc = b.create1(Op.MAXSI, [acc, b.constant(0, t32)], t32)
    acc = b.create1(Op.MINSI, [acc, b.constant(win.width - 1, t32)], t32)
    if common != tuple(shape):
        acc = b.create1(Op.BROADCAST, [acc], _offs_type(i32, shape))
    return acc


def _lower_store(op: Operation, lm: LowerMemory) -> None:
    ptr, value, mask = op.ptr, op.value, op.mask
    if not ptr.type.is_block():
        return
    b = Builder()
    b.set_insertion_point_before(op)
    b.loc = op.loc
    aff, box = _box_form(ptr, mask, lm)
    if aff is not None and aff.root is not None and box is not None:
        p, strides, valid = _box_operands(b, aff, box, tuple(ptr.type.shape))
        isz = ptr.type.scalar.element_ty.itemsize
        remap, remap_attrs = _remap_operands(b, aff)
        b.create(mtia.STORE_BOX, [p, value, *strides, *valid, *remap], [],
                 {"rank": len(ptr.type.shape), "unaligned": not _box_aligned(aff, isz, lm.align_bytes), **remap_attrs})
    else:
        root, offs = split_pointer(b, ptr)
        b.create(mtia.SCATTER, [root, offs, value] + ([mask] if mask is not None else []), [])
    op.erase()


# tt.atomic_rmw's operation -> the DMA's atomic kind (shared with materialize-pointers' scatters)
RMW_KINDS = {"add": "add", "fadd": "add", "max": "max", "umax": "max", "min": "min", "umin": "min",
             "xchg": "xchg", "and": "and", "or": "or", "xor": "xor"}


def _scalar_to_block(b: Builder, v: Value) -> Value:
    return v if v.type.is_block() else b.create1(Op.SPLAT, [v], v.type.with_shape((1,)))


def _lower_atomic(op: Operation, lm: LowerMemory) -> None:
    b = Builder()
    b.set_insertion_point_before(op)
    b.loc = op.loc
    scalar = not op.ptr.type.is_block()
    used = bool(op.result.uses)           # an unused result gets no tile: the DMA writes back no old values
    ptr = _scalar_to_block(b, op.ptr)
    if op.name == Op.ATOMIC_CAS:
        cmp, val = _scalar_to_block(b, op.cmp), _scalar_to_block(b, op.val)
        root, offs = split_pointer(b, ptr)
        res = b.create1(mtia.CAS, [root, offs, cmp, val], cmp.type)
    else:
        val = _scalar_to_block(b, op.val)
        mask = op.mask
        kind = RMW_KINDS[op.attrs["atomic_rmw_op"]]
        aff, box = _box_form(ptr, mask, lm) if not scalar else (None, None)
        results = [val.type] if used else []
        if aff is not None and aff.root is not None and box is not None and aff.remap is None:
            # an affine block of pointers under a box mask: a box of addresses, like tl.store's, with no
            # tile of offsets or mask in the local store (the elements still update one by one at memory)
            p, strides, valid = _box_operands(b, aff, box, tuple(ptr.type.shape))
            isz = ptr.type.scalar.element_ty.itemsize
            res = b.create(mtia.ATOMIC_BOX, [p, val, *strides, *valid], results,
                           {"kind": kind, "rank": len(strides), "unaligned": not _box_aligned(aff, isz, lm.align_bytes)})
        else:
            if mask is not None:
                mask = _scalar_to_block(b, mask)
            root, offs = split_pointer(b, ptr)
            res = b.create(mtia.ATOMIC, [root, offs, val] + ([mask] if mask is not None else []), results,
                           {"kind": kind})
        if not used:
            op.erase()
            return
        res = res.results[0]
    if scalar:
        res = b.create1(mtia.TO_SCALAR, [res], op.result.type)
    op.result.replace_all_uses_with(res)
    op.erase()


# ---- tensor descriptors --------------------------------------------------------------------------

def _desc_parts(desc: Value):
    op = desc.owner
    if not hasattr(op, "name") or op.name != Op.MAKE_TENSOR_DESCRIPTOR:
        raise error_at(op if hasattr(op, "loc") else None,
                       "a tensor descriptor must come from tl.make_tensor_descriptor in the same kernel")
    rank = len(op.shape_and_strides) // 2
    return op.base, op.shape_and_strides[:rank], op.shape_and_strides[rank:]


def _obviously_nonnegative(v: Value) -> bool:
    """Whether v >= 0 follows from how it is made: constants, program ids, sums and products of such, and
    the induction variable of a loop counting up from such (kernels' usual tile corners)."""
    op = v.owner
    if not hasattr(op, "name"):                            # a block argument: a loop's induction variable?
        loop = v.owner.parent.parent if v.owner.parent is not None else None
        return (v.index == 0 and loop is not None and getattr(loop, "name", None) == Op.FOR
                and _obviously_nonnegative(loop.lower) and (constant_value(loop.step) or 0) > 0)
    c = constant_value(v)
    if c is not None:
        return c >= 0
    if op.name in (Op.GET_PROGRAM_ID, Op.GET_NUM_PROGRAMS, Op.EXTUI):
        return True
    if op.name in (Op.ADDI, Op.MULI):
        return all(_obviously_nonnegative(x) for x in op.operands)
    if op.name == Op.EXTSI:
        return _obviously_nonnegative(op.operands[0])
    return False


def _skips(b: Builder, offsets) -> list:
    """The indices before the tensor's start that a block at these offsets has along each dimension,
    max(0, -offset) (the box's `skip` operands; none when every offset is known to be >= 0): Triton pads
    them on load and drops them on store."""
    if all(_obviously_nonnegative(o) for o in offsets):
        return []
    zero = b.constant(0, i64)
    return [zero if _obviously_nonnegative(o) else b.create1(Op.MAXSI, [zero, b.create1(Op.SUBI, [zero, _i64(b, o)], i64)],
                                                             i64) for o in offsets]


def _desc_box(b: Builder, desc: Value, offsets) -> tuple[Value, list, list]:
    base, sizes, strides = _desc_parts(desc)
    addr = None
    for o, s in zip(offsets, strides):
        t = b.create1(Op.MULI, [_i64(b, o), _i64(b, s)], i64)
        addr = t if addr is None else b.create1(Op.ADDI, [addr, t], i64)
    ptr = b.create1(Op.ADDPTR, [base, addr], base.type)
    valid = [b.create1(Op.SUBI, [_i64(b, n), _i64(b, o)], i64) for n, o in zip(sizes, offsets)]
    return ptr, [_i64(b, s) for s in strides], valid


def _lower_desc_load(op: Operation) -> None:
    b = Builder()
    b.set_insertion_point_before(op)
    b.loc = op.loc
    ptr, strides, valid = _desc_box(b, op.desc, op.offsets)
    skip = _skips(b, op.offsets)
    val = b.create1(mtia.LOAD_BOX, [ptr, *strides, *valid, *skip], op.result.type,
                    {"rank": len(strides), "unaligned": True, **({"skip_args": len(skip)} if skip else {}),
                     "pad": float("nan") if op.attrs.get("padding") == "nan" else 0})
    op.result.replace_all_uses_with(val)
    op.erase()


def _lower_desc_store(op: Operation) -> None:
    b = Builder()
    b.set_insertion_point_before(op)
    b.loc = op.loc
    ptr, strides, valid = _desc_box(b, op.desc, op.offsets)
    skip = _skips(b, op.offsets)
    b.create(mtia.STORE_BOX, [ptr, op.value, *strides, *valid, *skip], [],
             {"rank": len(strides), "unaligned": True, **({"skip_args": len(skip)} if skip else {})})
    op.erase()


# ---- pointer blocks as (root, offsets) -----------------------------------------------------------

def _offs_type(t, shape):
    return BlockType(tuple(shape), t)


class NotSplit(Exception):
    """The pointer block is not a scalar root plus offsets: materialize-pointers handles it."""


def split_pointer(b: Builder, ptr: Value) -> tuple[Value, Value]:
    """(scalar root pointer, integer block of element offsets from it) with ptr == root + offsets."""
    r = _split(b, ptr)
    if r is None:
        raise NotSplit()
    root, offs = r
    if offs is None:
        offs = b.constant(0, _offs_type(i32, ptr.type.shape))
    return root, offs


def _split(b: Builder, p: Value):
    op = p.owner
    if not hasattr(op, "name"):
        return None
    name = op.name
    if name == Op.SPLAT:
        return op.src, None
    if name == Op.ADDPTR:
        r = _split(b, op.ptr)
        if r is None:
            return None
        root, offs = r
        o = op.offset
        if offs is None:
            return root, o
        if offs.type.scalar != o.type.scalar:
            offs, o = _widen(b, offs), _widen(b, o)
        return root, b.create1(Op.ADDI, [offs, o], offs.type)
    if name in (Op.BROADCAST, Op.EXPAND_DIMS, Op.RESHAPE, Op.TRANS):
        r = _split(b, op.src)
        if r is None:
            return None
        root, offs = r
        if offs is None:
            return root, None
        return root, b.create1(name, [offs], _offs_type(offs.type.scalar, p.type.shape), dict(op.attrs))
    if name == Op.SELECT:
        x, y = _split(b, op.true_value), _split(b, op.false_value)
        if x is None or y is None or x[0] is not y[0]:
            return None
        shape = p.type.shape
        ox = x[1] if x[1] is not None else b.constant(0, _offs_type(i32, shape))
        oy = y[1] if y[1] is not None else b.constant(0, _offs_type(i32, shape))
        if ox.type != oy.type:
            ox, oy = _widen(b, ox), _widen(b, oy)
        return x[0], b.create1(Op.SELECT, [op.cond, ox, oy], ox.type)
    if name == Op.INT_TO_PTR:           # absolute addresses: offsets from address 0
        isz = p.type.scalar.element_ty.itemsize
        addr = _widen(b, op.x)
        offs = b.create1(Op.DIVSI, [addr, b.constant(isz, addr.type)], addr.type)
        null = b.create1(Op.INT_TO_PTR, [b.constant(0, i64)], p.type.scalar)
        return null, offs
    return None


def _widen(b: Builder, v: Value) -> Value:
    t = v.type
    if t.scalar == i64:
        return v
    return b.create1(Op.EXTUI if t.scalar.is_int_unsigned() else Op.EXTSI, [v], _offs_type(i64, t.shape))


_BOX_HANDLERS = {Op.LOAD: _lower_load, Op.STORE: _lower_store, Op.ATOMIC_RMW: _lower_atomic,
                 Op.ATOMIC_CAS: _lower_atomic}
_HANDLERS = {Op.DESCRIPTOR_LOAD: _lower_desc_load,
             Op.DESCRIPTOR_STORE: _lower_desc_store}
