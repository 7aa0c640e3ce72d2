"""A dtype annotation forces its argument's type also when it is text, as `from __future__ import
annotations` makes every annotation (and as Triton's test_annotations.py::test_int_annotation writes
them): `v: tl.uint8` is a u8 argument whose arithmetic wraps at 8 bits, `n: tl.int64` one that does not
overflow at 32. The text was ignored before, so these kernels gave i32 answers on both executors."""
from __future__ import annotations

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def annotated(out_ptr, f_ptr, v: tl.uint8, w: tl.int16, n: tl.int64, h: tl.float16, x: torch.Tensor):  # noqa: F821
    tl.store(out_ptr + 0, (v + 250).to(tl.int64))       # u8: wraps
    tl.store(out_ptr + 1, (w * 3000).to(tl.int64))      # i16: wraps
    tl.store(out_ptr + 2, n * 5)                        # i64: does not wrap at 32 bits
    tl.store(f_ptr, h.to(tl.float32))                   # f16: the argument is rounded to half


@triton.jit
def typed(v: tl.uint8, h: tl.float16, s: int8):  # noqa: F821  (the text "int8" names a dtype)
    tl.static_assert(v.dtype == tl.uint8)
    tl.static_assert(h.dtype == tl.float16)
    tl.static_assert(s.dtype == tl.int8)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_text_dtype_annotations_type_the_arguments(executor):
    rng = np.random.default_rng(2)
    v, w = int(rng.integers(10, 200)), int(rng.integers(20, 100))
    n, h = int(rng.integers(2 ** 30, 2 ** 31 - 1)), float(rng.uniform(0.1, 0.9))
    out = np.full(3, -1, np.int64)
    f = np.full(1, np.nan, np.float32)
    launch(annotated, (1,), out, f, v, w, n, h, 0, executor=executor)
    np.testing.assert_array_equal(out, [(v + 250) % 256, np.int16(np.int64(w * 3000) - 65536 * ((w * 3000 + 32768) // 65536)), n * 5])
    assert f[0] == np.float32(np.float16(h))
    assert annotated.source.params[6].annotation is None      # text naming no dtype forces nothing


def test_text_dtype_annotations_are_the_arguments_types_in_the_kernel():
    typed[(1,)](3, 0.5, -2, executor="interpreter")
