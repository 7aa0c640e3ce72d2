"""Attention over q, k, v that are slices of one packed projection (`qkv(x).split(d, -1)`, each viewed as
heads and transposed): one copy of the packed tensor into [3, batch, heads, seq, head_dim], not three.

Inductor's bmm takes 3-D operands; a head-transposed slice of a [batch, seq, 3 * d] tensor is not one
(its batch and head strides do not merge), so every operand becomes its own copy kernel, each reading
one third of every packed row. On MTIA such a kernel is held back by the DRAM channels, not by its
code: with a decoder's 768-byte rows, each copy reads one 256-byte channel-interleave granule of every
three, and those fall unevenly on the 16 channels (the busiest carries up to 1.29x the mean, a ceiling
of 77% of the DRAM roofline whatever the tiles). One copy of the packed rows reads every granule: the
channels share it evenly, and two launches go.

`rewrite(gm)` points Dynamo's `F.scaled_dot_product_attention` calls whose q, k, v are provably such
slices (views of one tensor the graph computes, equal shapes and strides, offsets one step apart) at
`packed_attention`, which makes the packed copy and computes attention as softmax(q k^T * scale) v on
its slices. The scale multiplies the scores, not q and k: a point-wise op on q or k would need its own
copy again. Every other form (a mask, dropout, grouped heads, other layouts) keeps torch's call.
"""
from __future__ import annotations

import math
import operator

import torch
import torch.nn.functional as F

# ops through which a value stays a view of its input: slices of one tensor keep one storage
_VIEW_METHODS = {"view", "transpose", "permute", "split", "chunk", "unflatten", "narrow", "unbind"}
_VIEW_FUNCTIONS = {torch.transpose, torch.permute, torch.split, torch.chunk, torch.narrow, torch.unbind}
_SPLITS = {"split", "chunk", "unbind", torch.split, torch.chunk, torch.unbind}     # tuples of views


def packed_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                     enable_gqa=False):
    """F.scaled_dot_product_attention of q, k, v that `rewrite` proved to be slices of one storage,
    equally shaped and strided, at storage offsets one step apart."""
    step = key.storage_offset() - query.storage_offset()
    packed = query.as_strided((3, *query.shape), (step, *query.stride()), query.storage_offset())
    q, k, v = packed.contiguous().unbind(0)
    scores = q @ k.transpose(-2, -1) * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if is_causal:
        seq_q, seq_k = scores.shape[-2:]
        keep = torch.ones(seq_q, seq_k, dtype=torch.bool, device=scores.device).tril()
        scores = scores.masked_fill(~keep, float("-inf"))
    out = torch.softmax(scores, -1) @ v
    # in memory as [batch, seq, heads, dim], as torch's flash attention leaves it (its decomposition too):
    # the usual `transpose(1, 2).reshape(batch, seq, d)` after it is then a view, and the matmul's
    # epilogue writes that layout
    return out.permute(2, 0, 1, 3).contiguous().permute(1, 2, 0, 3)


def _is_view(node) -> bool:
    if node.op == "call_method":
        return node.target in _VIEW_METHODS
    if node.op == "call_function":
        if node.target is operator.getitem:         # an element of a split's tuple (not x[index]: a copy)
            src = node.args[0]
            return isinstance(src, torch.fx.Node) and src.op in ("call_method", "call_function") and \
                src.target in _SPLITS
        return node.target in _VIEW_FUNCTIONS
    return False


def _root(node):
    """The first node up the chain of views from `node` that is not a view (None for a graph input:
    inputs may alias one another in ways the graph does not show)."""
    while _is_view(node):
        node = node.args[0]
        if not isinstance(node, torch.fx.Node):
            return None
    return None if node.op == "placeholder" else node


def _packed(q, k, v) -> bool:
    """Whether q, k, v are views of one computed tensor, equally shaped and strided, one step apart."""
    roots = {_root(n) if isinstance(n, torch.fx.Node) else None for n in (q, k, v)}
    if len(roots) != 1 or None in roots:
        return False
    ts = [n.meta.get("example_value") for n in (q, k, v)]
    if not all(isinstance(t, torch.Tensor) for t in ts):
        return False
    tq, tk, tv = ts
    if not (tq.shape == tk.shape == tv.shape and tq.stride() == tk.stride() == tv.stride() and
            tq.dtype == tk.dtype == tv.dtype and tq.dim() == 4):
        return False
    step = tk.storage_offset() - tq.storage_offset()
    return step > 0 and tv.storage_offset() - tk.storage_offset() == step


def rewrite(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """Dynamo's graph with its attention calls over packed q, k, v pointed at `packed_attention`."""
    changed = False
    for node in gm.graph.nodes:
        if node.op != "call_function" or node.target is not F.scaled_dot_product_attention:
            continue
        args = list(node.args) + [None] * (3 - len(node.args))
        q, k, v = (node.kwargs.get(n, a) for n, a in zip(("query", "key", "value"), args[:3]))
        plain = node.kwargs.get("attn_mask") is None and not node.kwargs.get("dropout_p") and \
            not node.kwargs.get("enable_gqa") and len(node.args) <= 3
        if plain and _packed(q, k, v):
            node.target = packed_attention
            changed = True
    if changed:
        gm.recompile()
    return gm
