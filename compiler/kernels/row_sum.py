"""out[m] = sum of row m (torch.sum(x, dim=1)): one row per program, walking the row in BLOCK
chunks with an f32 accumulator. A loop that is nothing but a DRAM stream, so `num_stages` decides
its speed: with one stage each chunk's load waits for the previous chunk's add (the loop runs at
the DMA's round-trip latency); with more, loads run ahead and the DRAM channels stay busy. The
kernel benchmark measures both (python -m mtiasim.bench.kernels --only row_sum)."""
from __future__ import annotations

import numpy as np

import compiler as triton
import compiler.language as tl

from . import LibraryKernel


@triton.jit
def row_sum_kernel(X, Out, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + row * stride + cols, mask=cols < N, other=0.0).to(tl.float32)
    tl.store(Out + row, tl.sum(acc, axis=0))


def row_sum(x: np.ndarray, BLOCK: int = 1024, **launch):
    M, N = x.shape
    out = np.full(M, np.nan, np.float32)
    run = row_sum_kernel[(M,)](x, out, N, x.strides[0] // x.itemsize, BLOCK=BLOCK, **launch)
    return (out,), [run]


def reference(x):
    return (x.astype(np.float32).sum(axis=1, dtype=np.float32),)


def make_inputs(shape, rng):
    return (rng.standard_normal(shape).astype(np.float32),)


LIBRARY = [LibraryKernel("row_sum", "out[m] = sum of row m (f32), one row per program in BLOCK chunks", row_sum,
                         reference, make_inputs, (64, 32768), ((3, 1000), (64, 4096), (5, 2500)),
                         rtol=1e-4, atol=1e-3, dims=("M", "N"))]
