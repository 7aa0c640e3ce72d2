"""Tuples as kernel arguments, as Triton takes them (`kernel[grid](x, (a_ptr, b_ptr), (2.5, None))`):
each runtime element becomes a parameter of its own (`ptrs.0`), specialised like any argument, the
tuple's shape and compile-time elements join the cache key (compiler/frontend/aggregate_params.py).
Also namedtuples built in kernels and returned by helpers, comprehensions over compile-time tuples,
and a compile-time value's `.type`. Each kernel runs on both executors against numpy, outputs
poisoned with NaN first.
"""
from typing import NamedTuple

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def scaled_sum(outs, ins, scales, N: tl.constexpr):
    # outs[i] = ins[i] * scales[i] for every pair; a None scale leaves the input as it is
    offs = tl.arange(0, N)
    for i in tl.static_range(len(ins)):
        x = tl.load(ins[i] + offs)
        if scales[i] is not None:
            x = x * scales[i]
        tl.store(outs[i] + offs, x)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("count", [1, 3])
def test_tuples_of_arrays_and_scalars(executor, count):
    rng = np.random.default_rng(count)
    ins = tuple(rng.standard_normal(16).astype(np.float32) for _ in range(count))
    outs = tuple(np.full(16, np.nan, np.float32) for _ in range(count))
    scales = (1.5, None, 1)[:count]
    launch(scaled_sum, (1,), outs, ins, scales, N=16, executor=executor)
    for o, x, s in zip(outs, ins, scales):
        np.testing.assert_array_equal(o, x * np.float32(1 if s is None else s))


@triton.jit
def nested(out, pair, N: tl.constexpr):
    # pair = (x_ptr, (bias, y_ptr)): out = x + bias * y
    offs = tl.arange(0, N)
    x_ptr, (bias, y_ptr) = pair
    tl.store(out + offs, tl.load(x_ptr + offs) + bias * tl.load(y_ptr + offs))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_nested_tuples_unpack(executor):
    rng = np.random.default_rng(5)
    x, y = (rng.standard_normal(8).astype(np.float32) for _ in range(2))
    out = np.full(8, np.nan, np.float32)
    launch(nested, (1,), out, (x, (0.25, y)), N=8, executor=executor)
    np.testing.assert_array_equal(out, x + np.float32(0.25) * y)


def test_a_tuple_is_specialised_element_by_element():
    """A new array in the same place reuses the compiled kernel; another length, or an element that
    changes from runtime to compile time (None), compiles anew."""
    scaled_sum.cache.clear()
    a, b = np.ones(16, np.float32), np.ones(16, np.float32)
    scaled_sum[(1,)]((np.zeros(16, np.float32),), (a,), (2.0,), N=16)
    scaled_sum[(1,)]((np.zeros(16, np.float32),), (b,), (3.0,), N=16)
    assert len(scaled_sum.cache) == 1
    scaled_sum[(1,)]((np.zeros(16, np.float32),), (b,), (None,), N=16)
    assert len(scaled_sum.cache) == 2
    scaled_sum[(1,)]((np.zeros(16, np.float32),) * 2, (a, b), (2.0, 2.0), N=16)
    assert len(scaled_sum.cache) == 3


@triton.jit
def constexpr_shape(out, shape: tl.constexpr, strides):
    # shape is one compile-time value; strides are runtime elements
    r = tl.arange(0, shape[0])[:, None]
    c = tl.arange(0, shape[1])[None, :]
    tl.store(out + r * strides[0] + c * strides[1], (r * 10 + c).to(tl.float32))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_constexpr_tuple_and_runtime_strides(executor):
    out = np.full((4, 8), np.nan, np.float32)
    launch(constexpr_shape, (1,), out, (4, 8), (8, 1), executor=executor)
    np.testing.assert_array_equal(out, np.arange(4)[:, None] * 10 + np.arange(8)[None, :])


class View(NamedTuple):
    ptr: object
    n: object
    scale: object


@triton.jit
def make_view(ptr, n, scale):
    return View(ptr, n, scale=scale)


@triton.jit
def view_kernel(out, src, N: tl.constexpr):
    v = make_view(src.ptr, src.n, src.scale * 2)          # a namedtuple out of a helper keeps its fields
    offs = tl.arange(0, N)
    keep = offs < v.n
    tl.store(out + offs, tl.load(v.ptr + offs, mask=keep, other=0.0) * v.scale, mask=keep)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_namedtuples_passed_built_and_returned(executor):
    x = np.random.default_rng(2).standard_normal(16).astype(np.float32)
    out = np.full(16, np.nan, np.float32)
    launch(view_kernel, (1,), out, View(x, 11, 0.5), N=16, executor=executor)
    np.testing.assert_array_equal(out[:11], x[:11])
    assert np.isnan(out[11:]).all()


@triton.jit
def comprehension(out, ptrs, N: tl.constexpr):
    offs = tl.arange(0, N)
    loaded = [tl.load(p + offs) for p in ptrs]
    doubled = tl.tuple([2 * v for v in loaded])
    odd = [doubled[k] for k in tl.static_range(len(ptrs)) if k % 2 == 1]
    total = tl.zeros((N,), tl.float32)
    for v in odd:
        total += v
    tl.store(out + offs, total)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_comprehensions_over_compile_time_tuples(executor):
    rng = np.random.default_rng(9)
    xs = tuple(rng.standard_normal(8).astype(np.float32) for _ in range(4))
    out = np.full(8, np.nan, np.float32)
    launch(comprehension, (1,), out, xs, N=8, executor=executor)
    np.testing.assert_array_equal(out, 2 * xs[1] + 2 * xs[3])


@triton.jit
def runtime_comprehension(out, n):
    vals = [k for k in range(n)]
    tl.store(out, vals[0])


def test_a_comprehension_over_a_runtime_range_is_refused_at_its_line():
    with pytest.raises(triton.CompilationError, match="compile-time bounds") as e:
        runtime_comprehension[(1,)](np.zeros(1, np.int32), 4)
    assert "vals = [k for k in range(n)]" in str(e.value)


@triton.jit
def constexpr_types(out, pair):
    tl.static_assert(pair[1].type == tl.constexpr_type(3))
    tl.static_assert(pair[1].type != tl.constexpr_type(4))
    tl.store(out, tl.load(pair[0]) + pair[1])


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_compile_time_elements_type_is_its_value(executor):
    x = np.array([8], np.int32)
    out = np.full(1, -1, np.int32)
    launch(constexpr_types, (1,), out, (x, tl.constexpr(3)), executor=executor)
    assert out[0] == 11


def test_an_element_that_cannot_be_passed_names_its_place():
    with pytest.raises(TypeError, match="element 1 of the tuple passed as 'ins' holds a dict"):
        scaled_sum[(1,)]((np.zeros(16, np.float32),) * 2, (np.ones(16, np.float32), {}), (1.0, 1.0), N=16)
