"""Reductions and scans: tl.sum/max/min/argmax/argmin/xor_sum, cumsum/cumprod, tl.reduce, tl.associative_scan.

All lower to `tt.reduce` / `tt.scan` with a combine region. Dtype rules follow Triton:
sum/cumsum accumulate ints narrower than 32 bits in (u)int32; max/min (without indices) compute
sub-32-bit types in int32/fp32; bf16 is promoted to fp32 for max/min and for cumsum/cumprod
(as it is for the element-wise tl.minimum / tl.maximum / tl.clamp: semantic.promote_bf16_to_f32).
"""
from __future__ import annotations

from ..ir import types as T
from .core import builtin, tensor, unwrap
from .semantic import current


def _sum_dtype(dt: T.ScalarType):
    if dt.is_int() and dt.bitwidth < 32:
        return T.i32 if dt.is_int_signed() else T.u32
    return None


def _prep_sum(input, dtype, promote_bf16=False):
    s = current()
    x = s.promote_bf16_to_f32(input) if promote_bf16 else s.to_tensor(input)
    dtype = unwrap(dtype)
    if dtype is None:
        dtype = _sum_dtype(x.type.scalar)
    return s.cast(x, dtype) if dtype is not None else x


@builtin
def sum(input, axis=None, keep_dims=False, dtype=None):
    s = current()
    x = _prep_sum(input, dtype)
    return s.reduce([x], axis, lambda a, b: [s.add(a[0], b[0])], unwrap(keep_dims))[0]


@builtin
def xor_sum(input, axis=None, keep_dims=False):
    s = current()
    x = s.to_tensor(input)
    if not x.type.scalar.is_int():
        raise TypeError("xor_sum only supported for integers")
    return s.reduce([x], axis, lambda a, b: [s.xor_(a[0], b[0])], unwrap(keep_dims))[0]


@builtin
def reduce_or(input, axis, keep_dims=False):
    """Bitwise or of the elements along `axis` (integers and booleans)."""
    s = current()
    x = s.to_tensor(input)
    if not x.type.scalar.is_int():
        raise TypeError("reduce_or only supported for integers")
    return s.reduce([x], axis, lambda a, b: [s.or_(a[0], b[0])], unwrap(keep_dims))[0]


def _promote_for_minmax(x: tensor) -> tensor:
    s = current()
    x = s.promote_bf16_to_f32(x)
    st = x.type.scalar
    if st.bitwidth < 32:
        return s.cast(x, T.f32 if st.is_floating() else T.i32)
    return x


def _index_block(x: tensor, axis: int) -> tensor:
    s = current()
    shape = list(x.type.shape)
    idx = s.arange(0, shape[axis])
    for _ in range(axis):
        idx = s.expand_dims(idx, 0)
    for _ in range(axis + 1, len(shape)):
        idx = s.expand_dims(idx, len(idx.type.shape))
    return s.broadcast_to(idx, shape)


def _reduce_with_indices(x, axis, is_max: bool, tie_break_left: bool, keep_dims: bool):
    s = current()
    x = s.promote_bf16_to_f32(x)
    axis = unwrap(axis)
    if axis is None:
        x = s.reshape(x, (x.type.numel,)) if len(x.type.shape) != 1 else x
        axis = 0
    if axis < 0:
        axis += len(x.type.shape)
    idx = _index_block(x, axis)

    def combine(a, b):
        (v1, i1), (v2, i2) = a, b
        better = s.greater_than(v1, v2) if is_max else s.less_than(v1, v2)
        if tie_break_left:
            tie = s.logical_and(s.equal(v1, v2), s.less_than(i1, i2))
            better = s.logical_or(better, tie)
        return [s.where(better, v1, v2), s.where(better, i1, i2)]

    return s.reduce([x, idx], axis, combine, keep_dims)


def _minmax(input, axis, return_indices, tie_break_left, keep_dims, is_max):
    s = current()
    if unwrap(return_indices):
        v, i = _reduce_with_indices(input, axis, is_max, unwrap(tie_break_left), unwrap(keep_dims))
        return v, i
    x = _promote_for_minmax(s.to_tensor(input))
    pick = s.maximum if is_max else s.minimum
    return s.reduce([x], axis, lambda a, b: [pick(a[0], b[0])], unwrap(keep_dims))[0]


@builtin
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    return _minmax(input, axis, return_indices, return_indices_tie_break_left, keep_dims, True)


@builtin
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    return _minmax(input, axis, return_indices, return_indices_tie_break_left, keep_dims, False)


@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    return _reduce_with_indices(input, axis, True, unwrap(tie_break_left), unwrap(keep_dims))[1]


@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    return _reduce_with_indices(input, axis, False, unwrap(tie_break_left), unwrap(keep_dims))[1]


@builtin
def cumsum(input, axis=0, reverse=False, dtype=None):
    s = current()
    x = _prep_sum(input, dtype, promote_bf16=True)
    return s.scan([x], unwrap(axis), lambda a, b: [s.add(a[0], b[0])], unwrap(reverse))[0]


@builtin
def cumprod(input, axis=0, reverse=False):
    s = current()
    x = s.promote_bf16_to_f32(input)
    return s.scan([x], unwrap(axis), lambda a, b: [s.mul(a[0], b[0])], unwrap(reverse))[0]


def _combine_with(fn, n):
    """Adapt a @jit combine function (lhs..., rhs...) -> value(s) to the semantic layer's callback."""
    s = current()

    def combine(a, b):
        out = s.ast_to_ir.call_function(fn, list(a) + list(b), {})
        out = unwrap(out)
        return list(out) if isinstance(out, tuple) else [out]
    return combine


@builtin
def reduce(input, axis, combine_fn, keep_dims=False):
    """Reduce a tensor (or a tuple of tensors reduced together) with a @jit combine function."""
    s = current()
    inputs = list(unwrap(input)) if isinstance(unwrap(input), tuple) else [input]
    out = s.reduce(inputs, axis, _combine_with(unwrap(combine_fn), len(inputs)), unwrap(keep_dims))
    return tuple(out) if isinstance(unwrap(input), tuple) else out[0]


@builtin
def associative_scan(input, axis, combine_fn, reverse=False):
    s = current()
    inputs = list(unwrap(input)) if isinstance(unwrap(input), tuple) else [input]
    out = s.scan(inputs, axis, _combine_with(unwrap(combine_fn), len(inputs)), unwrap(reverse))
    return tuple(out) if isinstance(unwrap(input), tuple) else out[0]


@builtin
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    from .math import exp, fdiv
    s = current()
    x = s.to_tensor(x)
    axis = unwrap(dim) if unwrap(dim) is not None else len(x.type.shape) - 1
    z = s.sub(x, max(x, axis, keep_dims=True))
    num = exp(z)
    den = sum(num, axis, keep_dims=True)
    return fdiv(num, den, ieee_rounding)
