"""Kernel parameters that receive a host-built @aggregate (Triton's composable-kernel launches), a
tuple (Triton's tuple arguments: `kernel[grid](x, (ptr_a, ptr_b), (1.5, None))`) or a host-built
`TensorDescriptor` (compiler/tools/tensor_descriptor.py).

At launch the runtime splits such an argument: every runtime field (an array or a number; nested
aggregates depth-first, in field order) becomes a runtime parameter of its own, named by its path
(`epilogue.bias`, `epilogue.inner.scale`; a tuple's elements by their index, `ptrs.0`; a host
tensor descriptor's base, extents and strides, `desc.shape.0`) and
specialised like any argument (an integer 1 becomes a constant, as a parameter's does); the parameter
itself specialises to an `AggregateParam`, the class and the compile-time fields, which is part of the
cache key (a new bias array reuses the compiled kernel; another class or `n_cols` compiles anew).
The frontend rebuilds the instance from the parameter's leaves, so the IR never sees an aggregate.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..ir.types import Type
from ..language.aggregate import is_aggregate, is_aggregate_class, is_host_runtime_value, rebuild
from ..language.builtins import make_tensor_descriptor
from ..language.core import constexpr
from ..tools.tensor_descriptor import TensorDescriptor

LEAF = "leaf"           # a runtime field: a parameter of its own
CONST = "const"         # a tl.constexpr field: its value
RAW = "raw"             # a compile-time field stored as it is (None, a dtype, a function)
NESTED = "nested"       # an aggregate field: its own AggregateParam


@dataclass(frozen=True, eq=False)
class AggregateParam:
    """What a parameter holding a host-built aggregate or tuple is specialised to: its class (an
    aggregate's, `tuple` or a namedtuple's) and, per field or element, (name, kind, payload) with kind
    LEAF, CONST (payload: the value), RAW or NESTED; a tuple's elements are named by their index."""
    cls: type
    fields: tuple

    def key(self) -> tuple:
        return (self.cls,) + tuple((n, kind, _hashable(p.key() if kind == NESTED else p))
                                   for n, kind, p in self.fields)

    def __eq__(self, other) -> bool:
        return isinstance(other, AggregateParam) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        parts = [n if kind == LEAF else f"{n}={p!r}" for n, kind, p in self.fields]
        return f"{self.cls.__qualname__}({', '.join(parts)})"

    def leaf_names(self, prefix: str) -> list:
        out = []
        for n, kind, p in self.fields:
            if kind == LEAF:
                out.append(f"{prefix}.{n}")
            elif kind == NESTED:
                out.extend(p.leaf_names(f"{prefix}.{n}"))
        return out

    def rebuild(self, prefix: str, leaf_value: Callable):
        """The instance a kernel sees: `leaf_value(name)` gives each runtime field's kernel value."""
        values = {}
        for n, kind, p in self.fields:
            path = f"{prefix}.{n}"
            values[n] = (leaf_value(path) if kind == LEAF else constexpr(p) if kind == CONST else
                         p.rebuild(path, leaf_value) if kind == NESTED else p)
        if is_aggregate_class(self.cls):
            return rebuild(self.cls, values)
        if self.cls is TensorDescriptor:        # (built inside the kernel's semantic: generate_ir)
            return make_tensor_descriptor(values["base"], values["shape"], values["strides"], values["block_shape"],
                                          values["padding"])
        items = list(values.values())
        return self.cls(*items) if hasattr(self.cls, "_fields") else tuple(items)   # a namedtuple keeps its class


def lift(agg, prefix: str) -> tuple[AggregateParam, list]:
    """The specialisation of a host-built aggregate passed as parameter `prefix`, and its runtime
    fields as (parameter name, host value) in parameter order."""
    fields, leaves = [], []
    if isinstance(agg, tuple):
        named = [(str(i), v) for i, v in enumerate(agg)]
        kind = "tuple"
    elif isinstance(agg, TensorDescriptor):       # the array and its extents and strides at run time
        named = [("base", agg.base), ("shape", agg.shape), ("strides", agg.strides),
                 ("block_shape", constexpr(agg.block_shape)), ("padding", agg.padding)]
        kind = "TensorDescriptor"
    else:
        named = [(n, agg.__dict__[n]) for n in type(agg).__aggregate_fields__]
        kind = type(agg).__name__
    for n, v in named:
        path = f"{prefix}.{n}"
        if isinstance(v, constexpr):
            fields.append((n, CONST, v.value))
        elif lifts(v):
            sub, sub_leaves = lift(v, path)
            fields.append((n, NESTED, sub))
            leaves.extend(sub_leaves)
        elif is_host_runtime_value(v):
            fields.append((n, LEAF, None))
            leaves.append((path, v))
        elif v is None or isinstance(v, (str, Type)) or callable(v):
            fields.append((n, RAW, v))
        else:
            where = f"element {n}" if kind == "tuple" else f"field '{n}'"
            raise TypeError(f"{where} of the {kind} passed as '{prefix}' holds a {type(v).__name__}, which "
                            f"cannot be passed to a kernel (an array, a number, None, a tuple or a tl.constexpr can)")
    return AggregateParam(type(agg), tuple(fields)), leaves


def lifts(value) -> bool:
    """Whether an argument is split into parameters: a host-built aggregate or a tuple (a namedtuple too)."""
    return is_aggregate(value) or isinstance(value, (tuple, TensorDescriptor))


def expand_aggregate_args(params, bound: dict) -> dict:
    """`bound` (parameter -> value) with each host-built aggregate or tuple followed by its runtime
    fields; a tl.constexpr parameter's tuple stays one compile-time value."""
    out = {}
    for p in params:
        v = out[p.name] = bound[p.name]
        if lifts(v) and not p.is_constexpr:
            out.update(lift(v, p.name)[1])
    return out


def kernel_arg_names(params, arg_types: dict, constexprs: dict) -> list:
    """The kernel's runtime parameters in IR order: each parameter, or an aggregate's runtime fields."""
    out = []
    for p in params:
        if p.name in arg_types:
            out.append(p.name)
        elif isinstance(constexprs.get(p.name), AggregateParam):
            out.extend(n for n in constexprs[p.name].leaf_names(p.name) if n in arg_types)
    return out


def _hashable(v):
    if isinstance(v, (list, tuple)):
        return tuple(_hashable(x) for x in v)
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)
