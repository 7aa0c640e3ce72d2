"""The autograd formula of `mtiasim::flash_attention`: its backward as the library's flash-attention
backward kernels (compiler/kernels/attention_backward.py) on the simulator.

`mtiasim::flash_attention_backward(grad, q, k, v, out, is_causal, scale) -> (dq, dk, dv)` is a custom
op as the forward is: AOTAutograd traces the forward's formula into the backward graph as one call
of it, Inductor keeps that call in its wrapper code, and the op launches the dq kernel (which leaves
each row's log-sum-exp and delta) and the dk/dv kernel through `Launcher`s: each launch a row of the
report with its cycles, in the backward phase, on the graph's device-resident tensors.
"""
from __future__ import annotations

import torch

from ..kernels import attention_backward as kernels
from . import session
from .flash_attention import PlannedLauncher, flash_attention

_DQ = PlannedLauncher(kernels.attention_bwd_dq_kernel, "flash_attention_backward_dq",
                       ["in_ptr0", "in_ptr1", "in_ptr2", "in_ptr3", "in_ptr4", "out_ptr0", "out_ptr1", "out_ptr2",
                        "sm_scale", "seq_q", "seq_k", "heads", *(f"s{t}_{a}" for t in "qkvod" for a in "zhm")])
_DKDV = PlannedLauncher(kernels.attention_bwd_dkdv_kernel, "flash_attention_backward_dkdv",
                         ["in_ptr0", "in_ptr1", "in_ptr2", "in_ptr3", "out_ptr0", "out_ptr1", "in_ptr4", "in_ptr5",
                          "sm_scale", "seq_q", "seq_k", "heads", "kv_heads",
                          *(f"s{t}_{a}" for t in "qkvd" for a in "zhm")])


def _grads(query, key, value):
    """dq, dk, dv: contiguous, shaped as q, k and v (the fake and the real op agree on strides)."""
    return query.new_empty(query.shape), key.new_empty(key.shape), value.new_empty(value.shape)


@torch.library.custom_op("mtiasim::flash_attention_backward", mutates_args=())
def flash_attention_backward(grad: torch.Tensor, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                             out: torch.Tensor, is_causal: bool, scale: float) -> tuple[torch.Tensor, torch.Tensor,
                                                                                       torch.Tensor]:
    """dq, dk, dv of `mtiasim::flash_attention(query, key, value, is_causal, scale)` = out, given d out."""
    dq, dk, dv = _grads(query, key, value)
    call = kernels.arrange_backward(tuple(query.shape), tuple(key.shape), is_causal, query.element_size(),
                                    session.target().ls_bytes)
    lse, delta = (query.new_empty(call.row_shape(), dtype=torch.float32) for _ in range(2))
    strides = {"q": query.stride()[:3], "k": key.stride()[:3], "v": value.stride()[:3], "o": out.stride()[:3],
               "do": grad.stride()[:3]}
    for launcher, (_, grid, args, constants) in zip((_DQ, _DKDV), call.launches(
            query, key, value, out, grad, dq, dk, dv, lse, delta, scale, strides)):
        if is_causal:               # the causal programs' unequal work, balanced over the PEs
            constants = {**constants, "pe_mapping": "zigzag"}
        launcher.launch_planned(args, grid, constants)
    return dq, dk, dv


@flash_attention_backward.register_fake
def _(grad, query, key, value, out, is_causal, scale):
    return _grads(query, key, value)


def _setup_context(ctx, inputs, output):
    query, key, value, is_causal, scale = inputs
    ctx.save_for_backward(query, key, value, output)
    ctx.is_causal, ctx.scale = is_causal, scale


def _backward(ctx, grad):
    query, key, value, out = ctx.saved_tensors
    if grad.stride(-1) != 1:        # the kernels read rows of head_dim with a unit stride (traced: a copy kernel)
        grad = grad.contiguous()
    dq, dk, dv = torch.ops.mtiasim.flash_attention_backward(grad, query, key, value, out, ctx.is_causal, ctx.scale)
    return dq, dk, dv, None, None


flash_attention.register_autograd(_backward, setup_context=_setup_context)
