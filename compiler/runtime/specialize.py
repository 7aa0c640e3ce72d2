"""Argument specialisation, as Triton does it: what part of a launch's arguments is compiled in.

- constexpr parameters, None, strings, dtypes and functions are compile-time values;
- ints equal to 1 become constexpr 1 (unless in do_not_specialize); other ints are i32 if they fit,
  else i64 (u64 past 2^63); ints divisible by 16 get `tt.divisibility = 16`;
- floats are f32, bools i1, numpy scalars keep their dtype (np.int64(10) is i64, np.float32 f32, np.bool_
  i1; np.float64 is a Python float, so f32). Triton refuses numpy scalars other than np.float64 ("failed
  to specialize argument of type: numpy.int64"); they are taken here because numpy hosts make them
  everywhere (np.prod(shape), a.sum()), and their dtype says what the user meant;
- numpy arrays (and CPU torch tensors, seen as numpy views) and device arrays are pointers to their
  dtype, `tt.divisibility = 16` when 16-byte aligned, `mtia.align` (its address's alignment) when an
  array starts inside its buffer (overlapping views of one array: the backend then uses the DMA's
  unaligned-address mode where the config's alignment is not met).
The cache key holds, per parameter, either the constexpr value or (type, divisible-by-16).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulator.memory.global_memory import ALLOC_ALIGN  # every device buffer starts on this boundary

from ..ir import types as T
from ..language.core import constexpr
from .device import DeviceArray


@dataclass(frozen=True)
class RuntimeArg:
    """A parameter passed at run time: its IR type, whether it is known divisible by 16, and for a pointer
    that starts inside its buffer (a view: x[1:] beside x[:-1]) the power of two its address is
    aligned to (0: the buffer's own 256-byte alignment)."""
    type: T.DType
    divisible_by_16: bool = False
    align: int = 0


@dataclass(frozen=True)
class ConstArg:
    value: object


def _hashable(v):
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, tuple):
        return tuple(_hashable(x) for x in v)
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


def key_part(spec) -> tuple:
    if isinstance(spec, ConstArg):
        return ("c", type(spec.value).__name__, _hashable(spec.value))
    return ("r", spec.type.ir, spec.divisible_by_16) + (("align", spec.align) if spec.align else ())


def int_type(v: int, name: str | None = None) -> T.ScalarType:
    """i32, i64 or u64 as Triton picks them; outside [-2**63, 2**64) Triton raises OverflowError (a value
    below -2**63 must not fall through to u64 and wrap)."""
    if -2**31 <= v < 2**31:
        return T.i32
    if -2**63 <= v < 2**63:
        return T.i64
    if 0 <= v < 2**64:
        return T.u64
    what = f"argument '{name}'" if name else "integer argument"
    raise OverflowError(f"{what} = {v} does not fit in 64 bits: an int argument must lie in [-2**63, 2**64)")


def specialize(param, value, byte_offset: int | None = None, do_not_specialize: bool = False,
               no_align: bool = False):
    """The specialisation of one argument. `byte_offset`: an array's offset in its device buffer."""
    if isinstance(value, constexpr):
        return ConstArg(value.value)
    if param.is_constexpr:
        return ConstArg(value)
    if value is None or isinstance(value, (str, T.Type)) or callable(value) and not isinstance(value, np.ndarray):
        return ConstArg(value)
    if param.annotation is not None:
        t = param.annotation
        if not isinstance(value, (int, float, bool, np.generic)):
            raise TypeError(f"argument '{param.name}' is annotated {t} but got {type(value).__name__}")
        return RuntimeArg(t, t.is_int() and not do_not_specialize and int(value) % 16 == 0)
    if isinstance(value, (bool, np.bool_)):
        return RuntimeArg(T.i1)
    if isinstance(value, int):
        if value == 1 and not do_not_specialize:
            return ConstArg(1)
        return RuntimeArg(int_type(value, param.name), (not do_not_specialize) and value % 16 == 0)
    if isinstance(value, float):
        return RuntimeArg(T.f32)
    if isinstance(value, np.integer):
        return RuntimeArg(T.from_numpy(value.dtype), (not do_not_specialize) and int(value) % 16 == 0)
    if isinstance(value, np.floating):
        return RuntimeArg(T.from_numpy(value.dtype))
    if isinstance(value, np.ndarray):
        elem = T.from_numpy(value.dtype)
        aligned = byte_offset is not None and byte_offset % 16 == 0 and not no_align
        inside = byte_offset is not None and byte_offset % ALLOC_ALIGN != 0
        return RuntimeArg(T.PointerType(elem), aligned, byte_offset & -byte_offset if inside else 0)
    if isinstance(value, DeviceArray):
        inside = value.address % ALLOC_ALIGN != 0           # a view into the middle of a device array
        return RuntimeArg(T.PointerType(T.from_numpy(value.dtype)), value.address % 16 == 0 and not no_align,
                          value.address & -value.address if inside else 0)
    raise TypeError(f"unsupported argument type {type(value).__name__} for parameter '{param.name}' "
                    "(pass numpy arrays, CPU torch tensors or device arrays for pointers, Python numbers for scalars)")
