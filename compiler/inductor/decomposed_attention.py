"""Attention a model writes out itself, `softmax(q @ k.transpose(-2, -1) * scale, -1) @ v`, as the
flash-attention kernels (`flash_attention.py`), as if it had called `F.scaled_dot_product_attention`.

Dynamo keeps the model's own ops: two matmuls, a scale and a softmax, which Inductor would run as a
bmm writing every head's [seq_q, seq_k] scores to memory, a softmax kernel reading and writing them,
and a second bmm reading them. `rewrite(gm)` finds that chain (the scale a number multiplying or
dividing the scores, or none; the softmax over the last axis, perhaps in float32 and cast back) whose
scores and probabilities nothing else uses, and points the final matmul at `mtiasim::flash_attention`;
the chain is then dead code. A mask, dropout or anything else between the ops keeps the model's ops.
"""
from __future__ import annotations

import operator

import torch
import torch.nn.functional as F

from .flash_attention import takes

_MATMULS = {operator.matmul, torch.matmul, "matmul"}
_SOFTMAXES = {torch.softmax, F.softmax, "softmax"}
_TRANSPOSES = {torch.transpose, "transpose"}


def _is(node, targets) -> bool:
    return isinstance(node, torch.fx.Node) and node.op in ("call_function", "call_method") and node.target in targets


def _only_use(node, user) -> bool:
    return list(node.users) == [user]


def _example(node):
    return node.meta.get("example_value") if isinstance(node, torch.fx.Node) else None


def _scores(node):
    """(the q @ k^T node, the scale) of scores `node`: the matmul itself, or it times or over a number."""
    if _is(node, _MATMULS):
        return node, 1.0
    if _is(node, {operator.mul, torch.mul, "mul", operator.truediv, torch.div, "div"}) and len(node.args) == 2:
        a, b = node.args
        if isinstance(a, (int, float)):
            a, b = b, a
        if _is(a, _MATMULS) and isinstance(b, (int, float)) and b > 0 and _only_use(a, node):
            return a, (1.0 / b if node.target in (operator.truediv, torch.div, "div") else float(b))
    return None, None


def _last_axis(node, value) -> bool:
    args = dict(zip(("input", "dim"), node.args))
    args.update(node.kwargs)
    dim = args.get("dim")
    return isinstance(dim, int) and dim in (-1, value.dim() - 1)


def _softmax_input(node):
    """The scores a softmax over the last axis turns into `node` (a cast back to their dtype allowed)."""
    if _is(node, {"to", "type_as"}) and _is(node.args[0], _SOFTMAXES) and _only_use(node.args[0], node):
        node = node.args[0]
    if not _is(node, _SOFTMAXES) or not isinstance(node.args[0], torch.fx.Node):
        return None
    scores = node.args[0]
    value = _example(scores)
    return scores if isinstance(value, torch.Tensor) and _last_axis(node, value) and _only_use(scores, node) else None


def _transposed_key(node):
    """k of `node` = k.transpose(-2, -1) (either order of the two last axes)."""
    if not _is(node, _TRANSPOSES) or len(node.args) != 3:
        return None
    value = _example(node.args[0])
    if not isinstance(value, torch.Tensor):
        return None
    axes = {a % value.dim() for a in node.args[1:] if isinstance(a, int)}
    return node.args[0] if axes == {value.dim() - 2, value.dim() - 1} else None


def _match(out):
    """(q, k, v, scale) if `out` = softmax(q @ k^T * scale) @ v, else None."""
    if not _is(out, _MATMULS) or len(out.args) != 2:
        return None
    probs, v = out.args
    if not isinstance(probs, torch.fx.Node) or not _only_use(probs, out):
        return None
    scores = _softmax_input(probs)
    if scores is None:
        return None
    qk, scale = _scores(scores)
    if qk is None or len(qk.args) != 2:
        return None
    q, kt = qk.args
    k = _transposed_key(kt)
    if k is None or not _only_use(kt, qk):
        return None
    return q, k, v, scale


def rewrite(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """Dynamo's graph with its written-out attention chains pointed at `mtiasim::flash_attention`."""
    changed = False
    for node in list(gm.graph.nodes):
        found = _match(node)
        if found is None:
            continue
        q, k, v, scale = found
        ex = [_example(n) for n in (q, k, v)]
        if not takes(*ex, None, 0.0, True) or ex[1].shape[1] not in (1, ex[0].shape[1]) or \
                _example(node) is None or _example(node).dtype != ex[0].dtype:
            continue
        with gm.graph.inserting_before(node):
            call = gm.graph.call_function(torch.ops.mtiasim.flash_attention.default, (q, k, v, False, scale))
        call.meta = dict(node.meta)
        node.replace_all_uses_with(call)
        gm.graph.erase_node(node)
        changed = True
    if changed:
        gm.graph.eliminate_dead_code()
        gm.recompile()
    return gm
