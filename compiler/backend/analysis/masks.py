"""Masks as boxes: which Triton masks are "the first n elements along each dimension".

A mask such as `(rm[:, None] < M) & (rn[None, :] < N)` keeps, along each dimension d, the indices
i_d < valid_d. `analyze_mask` finds those bounds (`i_d * coef < limit`, limit a Poly) so that a load
or store becomes one clipped DMA box instead of per-element predication (the "effective shape").
Conditions that do not depend on any index (`pid < n`) keep everything or nothing. Masks of any
other shape (a lower bound, a triangle) return None and the access falls back to a gather.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...ir import Op
from ...ir.core import Value
from .affine import Poly, analyze


@dataclass(frozen=True)
class Bound:
    """i_dim * coef < limit along `dim`; dim None: a condition on no index (0 < limit)."""
    dim: int | None
    limit: Poly
    coef: int = 1


@dataclass
class BoxMask:
    shape: tuple[int, ...]
    bounds: list[Bound] = field(default_factory=list)


_LESS = {"slt": False, "ult": False, "sle": True, "ule": True}       # strict or not, for a OP b
_GREATER = {"sgt": False, "ugt": False, "sge": True, "uge": True}


def analyze_mask(m: Value) -> BoxMask | None:
    shape = tuple(m.type.shape)
    op = m.owner
    if not hasattr(op, "name"):
        return None
    name = op.name
    if name == Op.CONSTANT:
        return BoxMask(shape) if op.attrs.get("value") else BoxMask(shape, [Bound(None, Poly.const(0))])
    if name == Op.SPLAT:                 # a scalar condition for the whole block
        return _scalar_condition(op.src, shape)
    if name == Op.ANDI:
        a, b = analyze_mask(op.lhs), analyze_mask(op.rhs)
        if a is None or b is None:
            return None
        return BoxMask(shape, a.bounds + b.bounds)
    if name == Op.BROADCAST:
        s = analyze_mask(op.src)
        if s is None:
            return None
        src = op.src.type.shape
        out = []
        for b in s.bounds:
            if b.dim is not None and src[b.dim] == 1 and shape[b.dim] != 1:
                out.append(Bound(None, b.limit, b.coef))      # index 0 decides for every index
            else:
                out.append(b)
        return BoxMask(shape, out)
    if name == Op.EXPAND_DIMS:
        s = analyze_mask(op.src)
        if s is None:
            return None
        ax = op.attrs["axis"]
        return BoxMask(shape, [b if b.dim is None or b.dim < ax else Bound(b.dim + 1, b.limit, b.coef)
                               for b in s.bounds])
    if name == Op.CMPI:
        return _compare(op, shape)
    return None


def _scalar_condition(c: Value, shape) -> BoxMask | None:
    op = c.owner
    if hasattr(op, "name") and op.name == Op.CMPI:
        return _compare(op, shape)
    return None


def _compare(op, shape) -> BoxMask | None:
    pred = op.attrs["predicate"]
    a, b = analyze(op.lhs), analyze(op.rhs)
    if a is None or b is None or a.root is not None or b.root is not None or a.remap or b.remap:
        return None                     # a remapped (wrapped, clamped) index is not a bound on i
    if pred in _LESS:
        d, inclusive = (a, b), _LESS[pred]
    elif pred in _GREATER:
        d, inclusive = (b, a), _GREATER[pred]
    else:
        return None
    lo, hi = d                         # lo < hi (or <=): (lo - hi) < 0
    base = lo.base - hi.base
    strides = [x - y for x, y in zip(lo.strides, hi.strides)] if lo.strides else []
    live = [(i, s) for i, s in enumerate(strides) if s]
    limit = -base + (Poly.const(1) if inclusive else Poly.const(0))
    if not live:
        return BoxMask(shape, [Bound(None, limit)])
    if len(live) != 1:
        return None                     # depends on two indices: a triangle, not a box
    dim, s = live[0]
    if not s.is_const or s.value <= 0:
        return None                     # a lower bound or a runtime coefficient
    return BoxMask(shape, [Bound(dim, limit, s.value)])
