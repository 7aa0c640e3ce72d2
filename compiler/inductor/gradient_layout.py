"""Backward graphs whose gradients come out in their parameters' layout.

A convolution's weight gradient takes its input's memory format: channels-last where the input is a
permuted tensor (ConvNeXt's downsampling convolution reads the NHWC output of a block). Eager PyTorch
makes the same gradient, and the autograd engine then copies it into the parameter's contiguous layout
(`new_empty_strided` + `copy_`: AccumulateGrad's layout contract), on the host here, where the simulator
never sees it. `contiguous_gradients(gm)` makes each such output of a backward graph a contiguous clone
inside the graph, so that the copy is a kernel (or the producing kernel writes it so directly) and the
engine takes the gradient as it is. Parameters are contiguous; a gradient of a non-contiguous leaf would
still be copied by the engine, as before.
"""
from __future__ import annotations

import torch
from torch._prims_common import is_non_overlapping_and_dense_or_false as is_non_overlapping_and_dense
from torch.utils._python_dispatch import _disable_current_modes

aten = torch.ops.aten


def _needs_contiguous(node) -> bool:
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return isinstance(val, torch.Tensor) and not val.is_contiguous() and is_non_overlapping_and_dense(val)


def contiguous_gradients(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """`gm` (a backward graph) with each dense, non-contiguous output replaced by a contiguous clone."""
    output = next(n for n in gm.graph.nodes if n.op == "output")
    results = output.args[0]
    if not any(_needs_contiguous(r) for r in results):
        return gm
    changed = []
    for r in results:
        if _needs_contiguous(r):
            with gm.graph.inserting_before(output):
                c = gm.graph.call_function(aten.clone.default, (r,), {"memory_format": torch.contiguous_format})
            with _disable_current_modes():       # a fake tensor's clone: no op a recording should count
                val = r.meta["val"].clone(memory_format=torch.contiguous_format)
            c.meta.update(r.meta, val=val)
            r = c
        changed.append(r)
    output.args = (type(results)(changed),)
    gm.recompile()
    return gm
