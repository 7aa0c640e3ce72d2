"""Embedding bags of one size (a 2-D index tensor, one row per bag) as gathered rows summed in place.

`F.embedding_bag` turns a [bags, L] index tensor into a flat index list with offsets 0, L, 2L, ...
before ATen sees it, and the general lowering (`decompositions.embedding_bag`) then searches every
index's bag among the offsets, zero-fills the output and adds each row into its bag with atomics:
three kernels, one of them a binary search of gathers. With one size per bag none of that is needed:
bag b is rows indices[b, 0..L-1]. Dynamo keeps `F.embedding_bag` as one call in its graph, so
`rewrite(gm)` points those calls at `embedding_bag`, which sums the L gathered rows of each bag
(one point-wise kernel tiled [bags, dim], each term a gather of whole rows) and hands every other
form (offsets given, max mode, padding_idx, max_norm) to `F.embedding_bag` unchanged.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

# up to this many rows per bag are added as separate terms: one kernel whose tile is [bags, dim]. Past
# it a reduction over the bag (its flattened [bags * dim] index is split by // dim: gathers)
UNROLLED_BAG = 32


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """F.embedding_bag, with 2-D `input` (fixed-size bags) in sum or mean mode as a sum of gathered rows."""
    if input.dim() != 2 or offsets is not None or max_norm is not None or padding_idx is not None or \
            mode not in ("sum", "mean") or input.shape[1] == 0:
        return F.embedding_bag(input, weight, offsets, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                               per_sample_weights, include_last_offset, padding_idx)
    size = input.shape[1]
    if size <= UNROLLED_BAG:
        out = None
        for j in range(size):             # in the bag's order, as ATen adds them
            row = F.embedding(input[:, j], weight)
            if per_sample_weights is not None:
                row = row * per_sample_weights[:, j, None]
            out = row if out is None else out + row
    else:
        rows = F.embedding(input, weight)
        if per_sample_weights is not None:
            rows = rows * per_sample_weights[..., None]
        out = rows.sum(1)
    return out / size if mode == "mean" else out


def rewrite(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """Dynamo's graph with its F.embedding_bag calls pointed at `embedding_bag` (same arguments)."""
    changed = False
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target is F.embedding_bag:
            node.target = embedding_bag
            changed = True
    if changed:
        gm.recompile()
    return gm
