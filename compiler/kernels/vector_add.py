"""out = x + y, one BLOCK of elements per program (Triton tutorial 01's kernel shape)."""
from __future__ import annotations

import numpy as np

import compiler as triton
import compiler.language as tl

from . import LibraryKernel


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: np.ndarray, y: np.ndarray, BLOCK_SIZE: int = 1024, **launch):
    out = np.full_like(x, np.nan)          # poisoned: an element the kernel misses stays NaN
    n = x.size
    run = add_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE, **launch)
    return (out,), [run]


def reference(x, y):
    return (x + y,)


def make_inputs(shape, rng):
    (n,) = shape
    return rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)


LIBRARY = [LibraryKernel("vector_add", "out = x + y on f32 vectors", add, reference, make_inputs,
                         (1 << 20,), ((1000,), (4096,), (98_432,)), dims=("n",))]
