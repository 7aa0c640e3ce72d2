"""Values that cross structured control flow, flattened into IR leaves and rebuilt afterwards.

A loop-carried or if-merged name may hold a tensor, a tuple of tensors (and compile-time values),
a block pointer (`tl.make_block_ptr`), a tensor descriptor (its base, extents and strides) or an
instance of an @aggregate class (`tl.aggregate`). `flatten` splits such a value into its runtime leaves
(the scf iter_args / yields) plus a signature of everything else (structure, compile-time parts,
leaf types); two values merge only when their signatures are equal.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..language import aggregate as agg
from ..language.core import block_ptr, constexpr, tensor, tensor_descriptor, unwrap


@dataclass
class Flat:
    leaves: list                       # runtime tensors, in order
    rebuild: Callable                  # list of IR values (one per leaf) -> a value like the original
    signature: tuple                   # equal signatures <=> the values can be merged
    describe: str                      # the value's type, for error messages


def _hashable(v):
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


def flatten(value) -> Flat | None:
    """The runtime leaves of `value`; None for a purely compile-time value."""
    u = unwrap(value)
    if isinstance(u, tensor):
        return Flat([u], lambda vals: tensor(vals[0], vals[0].type), ("tensor", u.type), str(u.type))
    if isinstance(u, tensor_descriptor):
        parts = [u.base, *u.shape, *u.strides]
        r = len(u.shape)

        def rebuild_desc(vals, r=r, block=u.block_type, padding=u.padding):
            ts = [tensor(v, v.type) for v in vals]
            return tensor_descriptor(ts[0], ts[1:1 + r], ts[1 + r:], block, padding)
        sig = ("tensor_descriptor", u.block_type, u.padding, tuple(p.type for p in parts))
        return Flat(parts, rebuild_desc, sig, str(u))
    if isinstance(u, block_ptr):
        parts = [u.base] + list(u.shape) + list(u.strides) + list(u.offsets)
        r = len(u.block_shape)

        def rebuild_bp(vals, r=r, bs=u.block_shape, order=u.order):
            ts = [tensor(v, v.type) for v in vals]
            return block_ptr(ts[0], ts[1:1 + r], ts[1 + r:1 + 2 * r], ts[1 + 2 * r:], bs, order)
        sig = ("block_ptr", u.block_shape, u.order, tuple(p.type for p in parts))
        return Flat(parts, rebuild_bp, sig, str(u))
    if agg.is_aggregate(u):
        return _flatten_aggregate(u)
    if isinstance(u, (tuple, list)):
        subs = [flatten(x) for x in u]
        if all(s is None for s in subs):
            return None
        leaves, sig, desc = [], [], []
        for x, s in zip(u, subs):
            if s is None:
                sig.append(("static", type(unwrap(x)).__name__, _hashable(unwrap(x))))
                desc.append(repr(unwrap(x)))
            else:
                leaves.extend(s.leaves)
                sig.append(s.signature)
                desc.append(s.describe)

        def rebuild_tuple(vals, u=u, subs=subs):
            out, i = [], 0
            for x, s in zip(u, subs):
                if s is None:
                    out.append(x)
                else:
                    out.append(s.rebuild(vals[i:i + len(s.leaves)]))
                    i += len(s.leaves)
            return type(u)(*out) if hasattr(type(u), "_fields") else tuple(out)     # a namedtuple keeps its class
        kind = type(u) if hasattr(type(u), "_fields") else "tuple"
        return Flat(leaves, rebuild_tuple, (kind, tuple(sig)), "(" + ", ".join(desc) + ")")
    return None


def _flatten_aggregate(u) -> Flat | None:
    """An aggregate's leaves are its fields' leaves, in field order; its class and compile-time
    fields are part of the signature (two instances of one class merge only if those agree)."""
    cls = type(u)
    names = cls.__aggregate_fields__
    values = [u.__dict__[n] for n in names]
    subs = [flatten(v) for v in values]
    leaves, sig = [], [cls]
    for n, v, s in zip(names, values, subs):
        if s is None:
            sig.append((n, "static", type(unwrap(v)).__name__, _hashable(unwrap(v))))
        else:
            leaves.extend(s.leaves)
            sig.append((n, s.signature))

    def rebuild_aggregate(vals):
        out, i = {}, 0
        for n, v, s in zip(names, values, subs):
            if s is None:
                out[n] = v
            else:
                out[n] = s.rebuild(vals[i:i + len(s.leaves)])
                i += len(s.leaves)
        return agg.rebuild(cls, out)
    desc = ", ".join(f"{n}: {s.describe if s is not None else repr(unwrap(v))}" for n, v, s in zip(names, values, subs))
    if not leaves:
        return None
    return Flat(leaves, rebuild_aggregate, ("aggregate", tuple(sig)), f"{cls.__name__}({desc})")


def leaf_names(name: str, flat: Flat) -> list:
    """Readable IR names for a value's leaves: `acc`, or `ptr_0`, `ptr_1`, ... for aggregates."""
    if len(flat.leaves) == 1 and flat.signature[0] == "tensor":
        return [name]
    return [f"{name}_{i}" for i in range(len(flat.leaves))]


def as_value(v):
    """Python numbers become constexprs (then tensors on assignment) - helper for callers."""
    return constexpr(v) if isinstance(v, (bool, int, float)) else v


@dataclass(frozen=True)
class BoundJitMethod:
    """`agg.apply` for a @jit method of an aggregate: calling it inlines the method with `self` = agg."""
    fn: object
    instance: object

    def __repr__(self) -> str:
        return f"<bound @jit method {type(self.instance).__name__}.{self.fn.__name__}>"
