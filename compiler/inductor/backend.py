"""`torch.compile(model, backend="mtiasim")`: Inductor with Triton code for CPU tensors, run by us.

Registered through the `torch_dynamo_backends` entry point. Each graph Dynamo captures goes
through Inductor with the hooks of `hooks.py` installed and the options below; the callable it
returns runs Inductor's wrapper code, whose kernel launches go to the simulator and whose remaining
ATen calls run on the host, and reports the graph's op counts to the active recordings.

Training: AOTAutograd splits a graph that needs gradients into a forward and a backward graph and
compiles the backward when `loss.backward()` first reaches it, outside this call; `_inner_compile`
installs the hooks around that compile too, and the backward graph runs like a forward one (its
tensors device-resident, its launches recorded, `phase` "backward"). A graph Dynamo captured from an
optimizer's `step()` (its code lies in torch/optim) runs with `phase` "optimizer".
"""
from __future__ import annotations

from collections import Counter

import torch
from torch._inductor.compile_fx import compile_fx, compile_fx_inner

from . import decode_linear, decomposed_attention, fixed_bags, flash_attention, hooks, math_attention, session
from .decompositions import decomposition_table
from .gradient_layout import contiguous_gradients

# Inductor options for MTIA (see torch/_inductor/config.py for each)
INDUCTOR_OPTIONS = {
    "cpu_backend": "triton",                  # Triton kernels for CPU tensors, not C++
    "max_autotune_gemm": True,                # mm/bmm/addmm as Triton templates ...
    "max_autotune_gemm_backends": "TRITON",   # ... and never ATen's host matmul
    "max_autotune_conv_backends": "TRITON",   # convolutions as Triton templates, never ATen's host one
    "max_autotune_conv_bwd_weight_backends": "TRITON",   # ... their backward too (torch's default on CUDA: ATen)
    "max_autotune_conv_bwd_input_backends": "TRITON",
    "benchmark_epilogue_fusion": False,       # epilogues fuse into templates without benchmarking GPU code
    "compile_threads": 1,                     # kernels load in this process, where our hooks are
    "fx_graph_cache": False,                  # a cached graph from another backend or config must not be reused
    "autotune_local_cache": False,            # template timings depend on the simulated hardware config
    "pattern_matcher": False,
    # point-wise kernels over strided layouts (a slice of a cat buffer, a transpose) as [YBLOCK, XBLOCK] tiles
    # with one arange per axis, not one flat index split by % and //: their loads and stores become DMA
    # boxes, not gathers (a relu into every 64th row's 16 columns: 72% -> 82% of its DRAM roofline)
    "triton.prefer_nd_tiling": True,
    # a foreach op (an optimizer's `foreach=True` step) is one combo kernel over many tensors; each tensor's
    # pointer is an argument in the control core's registers, which hold a few dozen (250, Inductor's
    # default, fails: "too many kernel arguments"): more, smaller combo kernels
    "combo_kernel_max_num_args": 16,
}


def _scheduled_since(before: int) -> tuple:
    """(simulated op count, host op Counter, kernel call sites) of the graphs Inductor scheduled since
    `before` (an index into hooks.SCHEDULED_GRAPHS), taken off the list."""
    graphs = hooks.SCHEDULED_GRAPHS[before:]
    del hooks.SCHEDULED_GRAPHS[before:]
    host = Counter()
    for _, ops, _ in graphs:
        host.update(ops)
    return sum(n for n, _, _ in graphs), host, [site for _, _, calls in graphs for site in calls]


def is_optimizer_step(gm) -> bool:
    """Whether Dynamo captured `gm` from an optimizer's step(): its nodes' code lies in torch/optim."""
    return any("torch/optim/" in (node.meta.get("stack_trace") or "").replace("\\", "/")
               for node in gm.graph.nodes)


def needs_gradients(example_inputs) -> bool:
    """Whether AOTAutograd will split the graph into a forward and a backward (a training graph)."""
    return torch.is_grad_enabled() and any(isinstance(t, torch.Tensor) and t.requires_grad for t in example_inputs)


def options_for(example_inputs) -> dict:
    """INDUCTOR_OPTIONS, and for a training graph no channels-last layouts: Inductor lays a convolution's
    tensors out channels-last, its weight gradient too, and the autograd engine then copies each such
    gradient into its parameter's (contiguous) layout on the host, an op the simulator never sees."""
    return {**INDUCTOR_OPTIONS, "layout_optimization": False} if needs_gradients(example_inputs) else INDUCTOR_OPTIONS


def mtiasim(gm, example_inputs, **kwargs):
    """The Dynamo backend: compile `gm` with Inductor for the simulator."""
    phase = "optimizer" if is_optimizer_step(gm) else "forward"
    before = len(hooks.SCHEDULED_GRAPHS)
    with hooks.installed():
        graph = decomposed_attention.rewrite(flash_attention.rewrite(fixed_bags.rewrite(gm)))
        graph = decode_linear.rewrite(graph)          # decode-sized linears: the GEMV kernel
        graph = math_attention.rewrite(graph)          # training attention the flash kernels do not take
        compiled = compile_fx(graph, example_inputs, inner_compile=_inner_compile, config_patches=options_for(example_inputs),
                              decompositions=decomposition_table())
    simulated, host, sites = _scheduled_since(before)
    session.record_graph_compile()

    def run(*args):
        session.record_graph_run(simulated, host)
        with session.graph_running(args, sites, phase) as outputs:
            outputs.append(compiled(*args))
        return outputs[0]
    return run


def _inner_compile(gm, example_inputs, **kwargs):
    """Inductor's compile of one AOTAutograd graph. A forward graph runs inside `mtiasim`'s `run`, as
    `_ForwardRun`; a backward graph (compiled lazily, at the first `backward()`, outside `mtiasim`) is
    compiled with the hooks installed and runs as `_BackwardRun`."""
    if not kwargs.get("is_backward"):
        return _ForwardRun(compile_fx_inner(gm, example_inputs, **kwargs))
    before = len(hooks.SCHEDULED_GRAPHS)
    with hooks.installed():
        code = compile_fx_inner(contiguous_gradients(gm), example_inputs, **kwargs)
    session.record_graph_compile()
    return _BackwardRun(code, *_scheduled_since(before))


class _GraphRun:
    """A compiled AOTAutograd graph as AOTAutograd calls it: boxed (one list of arguments, which the
    call empties), the rest of Inductor's OutputCode (post_compile, ...) passed through."""

    def __init__(self, code):
        self.code = code
        self._boxed_call = True          # an instance attribute: Dynamo's disable() wrapper copies __dict__

    def __getattr__(self, name):
        return getattr(self.code, name)


class _ForwardRun(_GraphRun):
    """A forward graph: AOTAutograd keeps the activations it saves for the backward from its raw outputs,
    which the user never sees, and passes it tensors the user never passed (the parameters Dynamo
    lifted: an optimizer step updates them in place): both come back from simulated DRAM with the
    graph's outputs."""

    def __call__(self, args):
        inputs = list(args)              # the call empties `args`
        outputs = self.code(args)
        running = session.resident()
        if running is not None:
            running.host_visible.append((inputs, outputs))
        return outputs


class _BackwardRun(_GraphRun):
    """A backward graph, run with its tensors device-resident and its launches and op counts recorded."""

    def __init__(self, code, simulated: int, host: Counter, sites: list):
        super().__init__(code)
        self.simulated, self.host, self.sites = simulated, host, sites

    def __call__(self, args):
        inputs = list(args)              # the call empties `args`; what the host sees comes back at the end
        session.record_graph_run(self.simulated, self.host)
        with session.graph_running(inputs, self.sites, "backward") as outputs:
            outputs.append(self.code(args))
        return outputs[0]
