"""`@triton.aggregate`: a class whose instances bundle kernel values (Triton's composable kernels).

A class decorated with `@aggregate` declares typed fields (`bias: tl.tensor`, `n: tl.constexpr`,
another aggregate, ...). Its `__init__` (or the generated one, taking the fields in order) runs at
compile time when a kernel builds an instance, and on the host when host code does. Instances are
immutable once built (`aggregate_replace` makes a modified copy). Methods may be `@triton.jit`
functions (called with `self` inlined), `@triton.constexpr_function`s or plain Python (run at compile
time). A parent aggregate's fields come first in a derived one.

Aggregates never reach the IR: the frontend keeps an instance as a Python object whose fields are
tensors and constexprs, flattens it into its runtime leaves where loops and ifs carry it
(`frontend/aggregates.py`), and a host-built instance passed to a kernel is split by the runtime into
one runtime parameter per runtime field, its class and compile-time fields specialising the kernel
(`HostLayout` below; `runtime/jit.py`).
"""
from __future__ import annotations

import inspect
import typing

import numpy as np

from .core import block_ptr, builtin, constexpr, tensor


def is_aggregate(obj) -> bool:
    """Whether `obj` is an instance of an @aggregate class."""
    return getattr(type(obj), "__triton_aggregate__", False) and not isinstance(obj, type)


def is_aggregate_class(cls) -> bool:
    """Whether `cls` is an @aggregate class."""
    return isinstance(cls, type) and getattr(cls, "__triton_aggregate__", False)


def aggregate(cls):
    """Make `cls` an aggregate: its annotated names are its fields (inherited aggregates' first)."""
    if not isinstance(cls, type):
        raise TypeError(f"@aggregate decorates a class, not {type(cls).__name__}")
    for base in cls.__mro__[1:-1]:
        if not getattr(base, "__triton_aggregate__", False):
            raise TypeError(f"Aggregates can only inherit from other aggregates, but {cls.__name__} inherits "
                            f"from {base.__qualname__}")
    annotations, defaults = {}, {}
    for base in cls.__mro__[1:-1][::-1]:
        annotations.update(base.__aggregate_annotations__)
        defaults.update(base.__aggregate_defaults__)
    own = _own_annotations(cls)
    annotations.update(own)
    for name in own:                       # `n: tl.constexpr = 4`: a default for the generated __init__
        if name in cls.__dict__ and (isinstance(cls.__dict__[name], constexpr) or not callable(cls.__dict__[name])):
            defaults[name] = cls.__dict__[name]
    init = cls.__dict__.get("__init__")
    if getattr(init, "__triton_jit__", False):
        raise TypeError(f"{cls.__name__}.__init__ cannot be a @triton.jit function: an aggregate's constructor "
                        f"runs at compile time (write a plain __init__, or a @triton.constexpr_function one)")
    cls.__triton_aggregate__ = True
    cls.__aggregate_annotations__ = annotations
    cls.__aggregate_fields__ = tuple(annotations)
    cls.__aggregate_defaults__ = defaults
    cls.__aggregate_init__ = getattr(init, "__aggregate_user_init__", init) or _generated_init(cls)
    cls.__new__ = staticmethod(_new)
    cls.__init__ = _constructor(cls.__aggregate_init__)
    cls.__setattr__ = _setattr
    if "__repr__" not in cls.__dict__:
        cls.__repr__ = _repr
    for name, member in list(cls.__dict__.items()):   # plain methods run at compile time in kernels
        fn = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
        if inspect.isfunction(fn) and not name.startswith("__"):
            fn.__triton_aggregate_method__ = True
    return cls


@builtin
def aggregate_replace(instance, **changes):
    """A copy of the aggregate `instance` with the named fields replaced (like dataclasses.replace)."""
    if not is_aggregate(instance):
        raise TypeError(f"aggregate_replace() expects an aggregate instance, got {type(instance).__name__}")
    cls = type(instance)
    for name in changes:
        if name not in cls.__aggregate_fields__:
            raise TypeError(f"{cls.__name__} has no field '{name}' (its fields: {_field_list(cls)})")
    values = {name: getattr(instance, name) for name in cls.__aggregate_fields__}
    for name, value in changes.items():
        values[name] = _field_value(cls, name, value)
    for name, value in values.items():
        _check_field(cls, name, value)
    return rebuild(cls, values)


def rebuild(cls, values: dict):
    """An instance of `cls` holding `values` (one per field) without running its constructor: the
    frontend rebuilds aggregates this way after loops and ifs and from a kernel's parameters."""
    instance = object.__new__(cls)
    for name in cls.__aggregate_fields__:
        object.__setattr__(instance, name, values[name])
    object.__setattr__(instance, "_aggregate_built", True)
    return instance


def _new(cls, *args, **kwargs):
    instance = object.__new__(cls)
    object.__setattr__(instance, "_aggregate_built", False)
    return instance


def _constructor(init):
    """The class's __init__: runs the user's (or the generated) constructor, which may call a parent
    aggregate's through super().__init__; once the outermost one returns, every field must be set and
    the instance becomes immutable. `_semantic` reaches a constructor that asks for it (Triton's do)."""
    params = inspect.signature(init).parameters

    def __init__(self, *args, _semantic=None, _generator=None, **kwargs):
        if self.__dict__.get("_aggregate_built", True):
            raise AttributeError(f"{type(self).__name__} is already built: an aggregate is immutable")
        depth = self.__dict__.get("_aggregate_depth", 0)
        object.__setattr__(self, "_aggregate_depth", depth + 1)
        extra = {k: v for k, v in (("_semantic", _semantic), ("_generator", _generator)) if k in params}
        init(self, *args, **extra, **kwargs)
        object.__setattr__(self, "_aggregate_depth", depth)
        if depth == 0:
            del self.__dict__["_aggregate_depth"]
            cls = type(self)
            missing = [n for n in cls.__aggregate_fields__ if n not in self.__dict__]
            if missing:
                raise AttributeError(f"constructor for {cls.__name__} did not initialize field '{missing[0]}'")
            object.__setattr__(self, "_aggregate_built", True)
    __init__.__aggregate_user_init__ = init
    return __init__


def _generated_init(cls):
    """The constructor of an aggregate that defines none: the fields, in order, by position or name."""
    return lambda self, *args, **kwargs: _init_fields(cls, self, args, kwargs)


def _init_fields(cls, self, args, kwargs):
    names = cls.__aggregate_fields__
    if len(args) > len(names):
        raise TypeError(f"{cls.__name__}() takes {len(names)} arguments (its fields: {_field_list(cls)}) but "
                        f"{len(args)} were given")
    for k in kwargs:
        if k not in names:
            raise TypeError(f"{cls.__name__}() got an unexpected keyword argument '{k}' (its fields: "
                            f"{_field_list(cls)})")
    for i, name in enumerate(names):
        if i < len(args):
            if name in kwargs:
                raise TypeError(f"{cls.__name__}() got multiple values for field '{name}'")
            value = args[i]
        elif name in kwargs:
            value = kwargs[name]
        elif name in cls.__aggregate_defaults__:
            value = cls.__aggregate_defaults__[name]
        else:
            raise TypeError(f"{cls.__name__}() missing required argument: '{name}'")
        setattr(self, name, _field_value(cls, name, value))


def _field_value(cls, name, value):
    """A Python value given for a constexpr field, wrapped (a runtime one is left to be refused)."""
    if cls.__aggregate_annotations__[name] is constexpr and not isinstance(value, (constexpr, tensor, block_ptr)) \
            and not is_aggregate(value):
        return constexpr(value)
    return value


def _setattr(self, name, value):
    cls = type(self)
    if name not in cls.__aggregate_annotations__:
        raise AttributeError(f"{cls.__name__} has no field '{name}' (its fields: {_field_list(cls)})")
    if self.__dict__.get("_aggregate_built", True):
        raise AttributeError(f"cannot assign to field '{name}' of {cls.__name__}: an aggregate is immutable once "
                             f"built; make a modified copy with tl.aggregate_replace(value, {name}=...)")
    _check_field(cls, name, value)
    object.__setattr__(self, name, value)


def _repr(self) -> str:
    cls = type(self)
    parts = ", ".join(f"{n}={self.__dict__.get(n, '?')!r}" for n in cls.__aggregate_fields__)
    return f"{cls.__name__}({parts})"


def _check_field(cls, name, value) -> None:
    ann = cls.__aggregate_annotations__[name]
    if _fits(ann, value):
        return
    hint = " (wrap it: tl.constexpr(value))" if ann is constexpr and not isinstance(value, tensor) else ""
    raise TypeError(f"field '{name}' of {cls.__name__} is declared {_type_name(ann)}, got {_value_name(value)}"
                    f"{hint}")


def _fits(ann, value) -> bool:
    if ann is tensor:
        return isinstance(value, (tensor, block_ptr)) or is_host_runtime_value(value)
    if ann is constexpr:
        return isinstance(value, constexpr)
    if isinstance(ann, type):
        return isinstance(value, ann)
    return True       # a typing construct or an unresolved name: not checked


def is_host_runtime_value(value) -> bool:
    """A value host code may put in a `tl.tensor` field: an array (numpy, CPU torch, device array,
    reinterpreted tensor) or a number, passed to the kernel as a runtime parameter."""
    if isinstance(value, (bool, int, float, np.generic, np.ndarray)):
        return True
    if hasattr(value, "data_ptr") and hasattr(value, "dtype"):          # a torch tensor
        return True
    from ..runtime.device import DeviceArray
    from ..runtime.memory import TensorWrapper
    return isinstance(value, (DeviceArray, TensorWrapper))


def _own_annotations(cls) -> dict:
    raw = dict(cls.__dict__.get("__annotations__", {}))
    try:
        hints = typing.get_type_hints(cls)
    except Exception:            # a forward reference that does not resolve: keep the text
        hints = {}
    out = {}
    for name, ann in raw.items():
        ann = hints.get(name, ann)
        if isinstance(ann, str):          # `from __future__ import annotations` with an unresolvable name
            ann = {"constexpr": constexpr, "tensor": tensor}.get(ann.split(".")[-1], ann)
        out[name] = ann
    return out


def _field_list(cls) -> str:
    return ", ".join(cls.__aggregate_fields__) or "none"


def _type_name(ann) -> str:
    if ann is tensor:
        return "tl.tensor"
    if ann is constexpr:
        return "tl.constexpr"
    return getattr(ann, "__name__", repr(ann))


def _value_name(value) -> str:
    if isinstance(value, constexpr):
        return f"a compile-time value {value!r}"
    if isinstance(value, tensor):
        return f"a runtime tensor of type {value.type}"
    return f"a value of type {type(value).__name__}"
