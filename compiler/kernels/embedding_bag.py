"""EmbeddingBag (sum or mean): bag b sums the rows weight[indices[offsets[b]:offsets[b+1]]].

The indices are read at run time by the control core, one scalar load each, and every row is then
one DMA from the table: the shape of recommendation-model lookups, where (as on MTIA) the issue
rate and the DRAM latency of scattered rows set the speed, not arithmetic.
"""
from __future__ import annotations

import numpy as np

import compiler as triton
import compiler.language as tl

from . import LibraryKernel


@triton.jit
def embedding_bag_kernel(weight, indices, offsets, out, dim, MEAN: tl.constexpr, BLOCK_D: tl.constexpr):
    bag = tl.program_id(0)
    start = tl.load(offsets + bag)
    end = tl.load(offsets + bag + 1)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < dim
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for i in range(start, end):
        row = tl.load(indices + i)
        acc += tl.load(weight + row * dim + cols, mask=mask, other=0.0)
    if MEAN:
        acc = acc / tl.maximum(end - start, 1).to(tl.float32)
    tl.store(out + bag * dim + cols, acc, mask=mask)


def embedding_bag(weight, indices, offsets, mode: str = "sum", **launch):
    bags = offsets.size - 1
    dim = weight.shape[1]
    out = np.full((bags, dim), np.nan, np.float32)
    run = embedding_bag_kernel[(bags,)](weight, indices, offsets, out, dim, MEAN=(mode == "mean"),
                                        BLOCK_D=triton.next_power_of_2(dim), **launch)
    return (out,), [run]


def embedding_bag_mean(weight, indices, offsets, **launch):
    return embedding_bag(weight, indices, offsets, mode="mean", **launch)


def reference(weight, indices, offsets, mode: str = "sum"):
    out = np.zeros((offsets.size - 1, weight.shape[1]), np.float64)
    for b in range(offsets.size - 1):
        rows = weight[indices[offsets[b]:offsets[b + 1]]].astype(np.float64)
        out[b] = rows.sum(0)
        if mode == "mean":
            out[b] /= max(len(rows), 1)
    return (out.astype(np.float32),)


def reference_mean(weight, indices, offsets):
    return reference(weight, indices, offsets, mode="mean")


def make_inputs(shape, rng):
    """shape = (rows in the table, embedding dim, bags, mean bag size)."""
    rows, dim, bags, mean_len = shape
    lengths = rng.integers(0, 2 * mean_len + 1, bags)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    indices = rng.integers(0, rows, int(offsets[-1])).astype(np.int64)
    return rng.standard_normal((rows, dim)).astype(np.float32), indices, offsets


LIBRARY = [
    LibraryKernel("embedding_bag", "EmbeddingBag sum, indices read at run time", embedding_bag, reference,
                  make_inputs, (100_000, 128, 512, 20), ((50, 16, 8, 3), (1000, 100, 20, 10)), rtol=1e-5, atol=1e-5,
                  dims=("rows", "dim", "bags", "bag_len")),
    LibraryKernel("embedding_bag_mean", "EmbeddingBag mean", embedding_bag_mean, reference_mean, make_inputs,
                  (100_000, 128, 512, 20), ((50, 16, 8, 3), (1000, 100, 20, 10)), rtol=1e-5, atol=1e-5,
                  dims=("rows", "dim", "bags", "bag_len")),
]
