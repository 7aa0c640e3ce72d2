"""`F.scaled_dot_product_attention` in a compiled model as the library's flash-attention kernels.

Inductor's own path for attention on a CPU tensor is torch's decomposition: a bmm writes the
[seq_q, seq_k] scores of every head to memory, a softmax reads and writes them again, a second bmm
reads them, and head-transposed operands each take a copy kernel first. Ours is one kernel
(compiler/kernels/attention.py) that reads q, k and v where they lie, whatever their batch, head and
sequence strides (a head transpose or a slice of a packed projection is no copy), and never writes
the scores; decode runs split-K with a combine kernel, so that the KV cache streams through every PE.

`rewrite(gm)` points Dynamo's attention calls that the kernel computes (no mask, no dropout, equal
head dims, k and v alike, kv heads dividing q heads) at the custom op `mtiasim::flash_attention`.
Inductor keeps a custom op as a call in its wrapper code, with its operands' strides as traced; the
op launches the kernels through `Launcher`s, so each launch is a row of the run's report with its
cycles, and reads and writes the graph's device-resident tensors (`resident.py`) like any other
kernel. Every other form of attention keeps torch's decomposition (`decompositions.py`).
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ..kernels import attention as kernels
from . import session
from .graph_rewrite import replace_calls
from .launchers import Launcher

# the ATen op the report names for the kernels' rows
_ORIGIN = ("aten.scaled_dot_product_attention",)
_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


class PlannedLauncher(Launcher):
    """A library kernel whose host code chose its grid and constexprs (`kernels.Call`): no tuning."""

    def __init__(self, fn, name: str, arg_names: list[str], origin: tuple = _ORIGIN, kind: str = "flash_attention"):
        super().__init__(fn, kind, {"signature": {n: "*" if "ptr" in n else "i32" for n in arg_names}},
                         {"kernel_name": name})
        session.KERNEL_ORIGINS[name] = origin
        self._planned: tuple = ((), {})

    def launch_planned(self, args, grid: tuple, constants: dict):
        """Launch as Inductor's wrapper launches a kernel (`run`: numerics or not, as the recording says)."""
        self._planned = (grid, constants)
        return self.run(*args)

    def _tuned(self, bound, values, shapes, hw) -> dict:
        return self._planned[1]

    def grid(self, bound, cfg) -> tuple:
        return self._planned[0]


# Inductor's argument names: `in_ptr` ones are read (copied to the device if they are not there yet),
# `out_ptr` ones written (allocated on the device)
_SCALARS = ("sm_scale", "seq_q", "seq_k", "heads", "chunk", "sq_z", "sq_h", "sq_m", "sk_z", "sk_h", "sk_n",
            "sv_z", "sv_h", "sv_n", "so_z", "so_h", "so_m")
_FORWARD = PlannedLauncher(kernels.attention_fwd_kernel, "flash_attention",
                            ["in_ptr0", "in_ptr1", "in_ptr2", "out_ptr0", "out_ptr1", "out_ptr2", *_SCALARS])
_FORWARD_SPLIT = PlannedLauncher(kernels.attention_fwd_kernel, "flash_attention_split",
                                  ["in_ptr0", "in_ptr1", "in_ptr2", "out_ptr0", "out_ptr1", "out_ptr2", *_SCALARS])
_COMBINE = PlannedLauncher(kernels.attention_combine_kernel, "flash_attention_combine",
                            ["in_ptr0", "in_ptr1", "in_ptr2", "out_ptr0", "seq_q", "heads", "so_z", "so_h", "so_m"])


def _output(query: torch.Tensor) -> torch.Tensor:
    """The output, in memory as [batch, seq_q, heads, dim] as torch's flash attention leaves it: the usual
    `transpose(1, 2).reshape(batch, seq, d)` after it is then a view."""
    b, h, s, d = query.shape
    return query.new_empty(b, s, h, d).transpose(1, 2)


@torch.library.custom_op("mtiasim::flash_attention", mutates_args=())
def flash_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, is_causal: bool,
                    scale: float) -> torch.Tensor:
    """softmax(q k^T * scale [causal: query i sees keys 0..i]) v on the simulator; q [batch, heads, seq_q,
    dim], k and v [batch, kv_heads, seq_k, dim], each with a unit stride on dim."""
    out = _output(query)
    batch, heads, seq_q, dim = query.shape
    hw = session.target()
    call = kernels.arrange(batch, heads, key.shape[1], seq_q, key.shape[2], dim, is_causal, query.stride()[:3],
                           out.stride()[:3], hw.num_pes, hw.ls_bytes)
    part_shape, row_shape = call.part_shapes()
    split = call.plan.splits > 1
    part = query.new_empty(part_shape if split else (0,), dtype=torch.float32)
    m_part, l_part = (query.new_empty(row_shape if split else (0,), dtype=torch.float32) for _ in range(2))
    launches = call.launches(query, key, value, out, part, m_part, l_part, scale, key.stride()[:3], value.stride()[:3])
    launchers = [_FORWARD_SPLIT, _COMBINE] if split else [_FORWARD]
    for launcher, (_, grid, args, constants) in zip(launchers, launches):
        if is_causal:               # the causal programs' unequal work, balanced over the PEs
            constants = {**constants, "pe_mapping": "zigzag"}
        launcher.launch_planned(args, grid, constants)
    return out


@flash_attention.register_fake
def _(query, key, value, is_causal, scale):
    return _output(query)


def takes(q, k, v, attn_mask, dropout_p, enable_gqa) -> bool:
    """Whether the kernels compute this attention call (its operands are the traced example values)."""
    if attn_mask is not None or dropout_p or not all(isinstance(t, torch.Tensor) for t in (q, k, v)):
        return False
    if not (q.dim() == k.dim() == v.dim() == 4 and k.shape == v.shape and q.dtype == k.dtype == v.dtype):
        return False
    dim = q.shape[-1]
    return (q.dtype in _DTYPES and k.shape[-1] == dim and dim >= 16 and dim & (dim - 1) == 0 and
            q.shape[0] == k.shape[0] and q.shape[1] % k.shape[1] == 0 and (enable_gqa or q.shape[1] == k.shape[1])
            and all(t.stride(-1) == 1 for t in (q, k, v)))


_PARAMETERS = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa")
_DEFAULTS = (None, None, None, None, 0.0, False, None, False)


def rewrite(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """Dynamo's graph with the attention calls the kernels compute pointed at `mtiasim::flash_attention`."""
    return replace_calls(gm, (F.scaled_dot_product_attention,), _attention_call)


def _attention_call(gm: torch.fx.GraphModule, node: torch.fx.Node):
    bound = dict(zip(_PARAMETERS, _DEFAULTS))
    bound.update(zip(_PARAMETERS, node.args))
    bound.update(node.kwargs)
    q, k, v = (bound[n].meta.get("example_value") if isinstance(bound[n], torch.fx.Node) else None
               for n in ("query", "key", "value"))
    if isinstance(bound["is_causal"], torch.fx.Node) or isinstance(bound["scale"], torch.fx.Node) or \
            not takes(q, k, v, bound["attn_mask"], bound["dropout_p"], bound["enable_gqa"]):
        return None
    scale = bound["scale"] if bound["scale"] is not None else 1 / math.sqrt(q.shape[-1])
    if scale <= 0:          # the kernel folds the scale into exp2 after the row max: it must be positive
        return None
    call = gm.graph.call_function(torch.ops.mtiasim.flash_attention.default,
                                  (bound["query"], bound["key"], bound["value"], bool(bound["is_causal"]),
                                   float(scale)))
    call.meta = dict(node.meta)
    return call


from . import flash_attention_backward  # noqa: E402,F401  (registers the op's autograd formula)
