"""A decode step's linear layers (a few rows of x times a weight) as the library's GEMV kernel.

Inductor lowers `F.linear` of one row as a mul-and-sum reduction fused with whatever comes before it
(the RMSNorm, the embedding): tiles of [XBLOCK, R0_BLOCK] products whose block sizes are tuned by
trial runs. At decode size that kernel streams the weight in short runs (one layer of Llama-2-7B: 100K
to 430K commands per projection, five trials each) and stays well below the DRAM floor. The weight
of a decode linear is read once and each element is used once per row of x: the work is streaming
it, which the GEMV kernel (compiler/kernels/gemv.py) does in long contiguous runs at 97-98% of the
floor on MTIA 2i (77-85% on MTIA 300, whose 6-15 us GEMVs each carry the 0.8 us launch), with block
sizes from a rule for the target config (`gemv.pick_blocks`), never from trials.

`rewrite(gm)` points Dynamo's `F.linear` calls of at most `MAX_ROWS` rows of fp16 x, whose weight is
[N, K] with K contiguous, at the custom op `mtiasim::gemv`; a bias becomes an add after it. Inductor
keeps the op as a call in its wrapper code; the op launches the kernel through a `PlannedLauncher`, so
each launch is a row of the run's report (class matmul). Its autograd formula is two matmuls, which
Inductor compiles as usual. Every other linear keeps Inductor's lowering.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ..kernels import gemv as kernels
from . import session
from .flash_attention import PlannedLauncher
from .graph_rewrite import replace_calls

# rows of x up to which the GEMV runs: the SE's work grows with the rows (the kernel's docstring: 1 row at
# 97% of the floor, 4 at 75%); past that a skinny GEMM wants the DPE, which Inductor's mm template uses
MAX_ROWS = 4
_ORIGIN = ("aten.mm",)
_LAUNCHER = PlannedLauncher(kernels.gemv_kernel, "gemv",
                            ["in_ptr0", "in_ptr1", "out_ptr0", "M", "N", "K", "stride_xm", "stride_wn", "stride_ym"],
                            _ORIGIN, "gemv")


@torch.library.custom_op("mtiasim::gemv", mutates_args=())
def gemv(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """x @ weight.T on the simulator: x [..., K] contiguous, weight [N, K] with K contiguous, both fp16."""
    k = x.shape[-1]
    n = weight.shape[0]
    rows = x.reshape(-1, k)
    m = rows.shape[0]
    out = x.new_empty(*x.shape[:-1], n)
    y = out.view(m, n)
    hw = session.target()
    blocks = kernels.pick_blocks(m, n, k, hw)
    grid = (math.ceil(n / blocks["BLOCK_N"]) * m,)
    _LAUNCHER.launch_planned([rows, weight, y, m, n, k, rows.stride(0), weight.stride(0), y.stride(0)], grid, blocks)
    return out


@gemv.register_fake
def _(x, weight):
    return x.new_empty(*x.shape[:-1], weight.shape[0])


def _setup(ctx, inputs, output):
    ctx.save_for_backward(*inputs)


def _backward(ctx, grad):
    x, weight = ctx.saved_tensors
    k = x.shape[-1]
    grad_x = grad @ weight
    grad_w = grad.reshape(-1, weight.shape[0]).t() @ x.reshape(-1, k)
    return grad_x, grad_w


gemv.register_autograd(_backward, setup_context=_setup)


def takes(x, weight) -> bool:
    """Whether the GEMV kernel computes `F.linear(x, weight)` (the traced example values)."""
    if not (isinstance(x, torch.Tensor) and isinstance(weight, torch.Tensor)):
        return False
    if x.dtype != torch.float16 or weight.dtype != torch.float16 or weight.dim() != 2 or x.dim() < 1:
        return False
    if x.shape[-1] != weight.shape[1] or x.shape[-1] < 16 or weight.shape[0] < 1:
        return False
    rows = math.prod(x.shape[:-1])
    return 1 <= rows <= MAX_ROWS and x.is_contiguous() and weight.stride(1) == 1


def rewrite(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """Dynamo's graph with the decode-sized `F.linear` calls pointed at `mtiasim::gemv` (module docstring)."""
    return replace_calls(gm, (F.linear, torch._C._nn.linear), _gemv_call)


def _gemv_call(gm: torch.fx.GraphModule, node: torch.fx.Node):
    args = list(node.args) + [None] * (3 - len(node.args))
    x, weight, bias = args[0], node.kwargs.get("weight", args[1]), node.kwargs.get("bias", args[2])
    values = [a.meta.get("example_value") if isinstance(a, torch.fx.Node) else a for a in (x, weight)]
    if not takes(*values):
        return None
    call = gm.graph.call_function(torch.ops.mtiasim.gemv.default, (x, weight))
    call.meta = dict(node.meta)
    if bias is not None:
        call = gm.graph.call_function(torch.add, (call, bias))
        call.meta = dict(node.meta)
    return call
