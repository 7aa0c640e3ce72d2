"""Attention that needs gradients and that the flash-attention kernels do not take (a mask, dropout,
a head dim they refuse), as the math it is, so that its backward is generated kernels too.

Inductor's path for such a call on a CPU tensor is torch's CPU flash attention, whose backward
(`aten._scaled_dot_product_flash_attention_for_cpu_backward`) has no decomposition: AOTAutograd picks
it before any decomposition applies, and it would run on the host. `rewrite(gm)` points those calls
of a graph that trains at `math_attention`: matmuls, masking and a softmax that autograd
differentiates op by op, each op's backward lowered by Inductor like any other. Calls under no_grad
keep torch's decomposition of the forward (`decompositions.py`).
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def math_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    """F.scaled_dot_product_attention's result, written as its definition."""
    scale = scale if scale is not None else 1 / math.sqrt(query.shape[-1])
    if enable_gqa and key.shape[-3] != query.shape[-3]:
        group = query.shape[-3] // key.shape[-3]
        key, value = key.repeat_interleave(group, -3), value.repeat_interleave(group, -3)
    scores = query @ key.transpose(-2, -1) * scale
    if is_causal:
        seen = torch.ones(query.shape[-2], key.shape[-2], dtype=torch.bool, device=query.device).tril()
        scores = scores.masked_fill(~seen, float("-inf"))
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool \
            else scores + attn_mask
    probs = torch.softmax(scores, -1)
    if dropout_p:
        probs = F.dropout(probs, dropout_p)
    return probs @ value


def rewrite(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """Dynamo's graph with its remaining F.scaled_dot_product_attention calls whose output needs a
    gradient pointed at `math_attention` (same arguments)."""
    changed = False
    for node in gm.graph.nodes:
        out = node.meta.get("example_value")
        if node.op == "call_function" and node.target is F.scaled_dot_product_attention and \
                isinstance(out, torch.Tensor) and out.requires_grad:
            node.target = math_attention
            changed = True
    if changed:
        gm.recompile()
    return gm
