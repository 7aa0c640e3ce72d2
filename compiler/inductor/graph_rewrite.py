"""The one loop the graph rewrites share (decode_linear.py, flash_attention.py): each call in a Dynamo
graph to one of some functions is offered to a replacement, which inserts the nodes that compute it
instead (before the call) and returns the last, or returns None to keep the call."""
from __future__ import annotations

import torch


def replace_calls(gm: torch.fx.GraphModule, targets: tuple, replacement) -> torch.fx.GraphModule:
    """`gm` with each `call_function` node of a target in `targets` that `replacement(gm, node)` replaced
    (its uses pointed at the returned node, the call erased); recompiled if anything changed."""
    changed = False
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target not in targets:
            continue
        with gm.graph.inserting_before(node):
            new = replacement(gm, node)
        if new is None:
            continue
        node.replace_all_uses_with(new)
        gm.graph.erase_node(node)
        changed = True
    if changed:
        gm.recompile()
    return gm
