"""Row-wise softmax, fused: each program loads whole rows once, keeps them in the local store
through max, exp, sum and divide, and writes them once (Triton tutorial 02's idea)."""
from __future__ import annotations

import numpy as np

import compiler as triton
import compiler.language as tl

from . import LibraryKernel


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols, BLOCK_SIZE: tl.constexpr,
                   ROWS_PER_PROGRAM: tl.constexpr):
    first = tl.program_id(0) * ROWS_PER_PROGRAM
    cols = tl.arange(0, BLOCK_SIZE)
    for r in range(first, tl.minimum(first + ROWS_PER_PROGRAM, n_rows)):
        row = tl.load(in_ptr + r * in_row_stride + cols, mask=cols < n_cols, other=-float("inf"))
        shifted = row - tl.max(row, axis=0)
        num = tl.exp(shifted)
        den = tl.sum(num, axis=0)
        tl.store(out_ptr + r * out_row_stride + cols, num / den, mask=cols < n_cols)


def softmax(x: np.ndarray, ROWS_PER_PROGRAM: int | None = None, **launch):
    n_rows, n_cols = x.shape
    out = np.full_like(x, np.nan)          # poisoned: an element the kernel misses stays NaN
    block = triton.next_power_of_2(n_cols)
    rows = ROWS_PER_PROGRAM or max(1, triton.cdiv(n_rows, 64))
    run = softmax_kernel[(triton.cdiv(n_rows, rows),)](out, x, x.strides[0] // 4, out.strides[0] // 4, n_rows,
                                                      n_cols, BLOCK_SIZE=block, ROWS_PER_PROGRAM=rows, **launch)
    return (out,), [run]


def reference(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True),)


def make_inputs(shape, rng):
    return (rng.standard_normal(shape).astype(np.float32),)


LIBRARY = [LibraryKernel("softmax", "row softmax, f32, rows kept in the local store", softmax, reference,
                         make_inputs, (4096, 1024), ((1, 7), (37, 130), (128, 1000)), rtol=1e-5, atol=1e-6,
                         dims=("rows", "cols"), blocks=("ROWS_PER_PROGRAM",))]
