"""`torch.compile(model, backend="mtiasim")`: Inductor with Triton code for CPU tensors, run by us.

Registered through the `torch_dynamo_backends` entry point. Each graph Dynamo captures goes
through Inductor with the hooks of `hooks.py` installed and the options below; the callable it
returns runs Inductor's wrapper code, whose kernel launches go to the simulator and whose remaining
ATen calls run on the host, and reports the graph's op counts to the active recordings.
"""
from __future__ import annotations

from collections import Counter

from torch._inductor.compile_fx import compile_fx

from . import decomposed_attention, fixed_bags, flash_attention, hooks, session
from .decompositions import decomposition_table

# Inductor options for MTIA (see torch/_inductor/config.py for each)
INDUCTOR_OPTIONS = {
    "cpu_backend": "triton",                  # Triton kernels for CPU tensors, not C++
    "max_autotune_gemm": True,                # mm/bmm/addmm as Triton templates ...
    "max_autotune_gemm_backends": "TRITON",   # ... and never ATen's host matmul
    "max_autotune_conv_backends": "TRITON",   # convolutions as Triton templates, never ATen's host one
    "benchmark_epilogue_fusion": False,       # epilogues fuse into templates without benchmarking GPU code
    "compile_threads": 1,                     # kernels load in this process, where our hooks are
    "fx_graph_cache": False,                  # a cached graph from another backend or config must not be reused
    "autotune_local_cache": False,            # template timings depend on the simulated hardware config
    "pattern_matcher": False,
    # point-wise kernels over strided layouts (a slice of a cat buffer, a transpose) as [YBLOCK, XBLOCK] tiles
    # with one arange per axis, not one flat index split by % and //: their loads and stores become DMA
    # boxes, not gathers (a relu into every 64th row's 16 columns: 72% -> 82% of its DRAM roofline)
    "triton.prefer_nd_tiling": True,
}


def mtiasim(gm, example_inputs, **kwargs):
    """The Dynamo backend: compile `gm` with Inductor for the simulator."""
    before = len(hooks.SCHEDULED_GRAPHS)
    with hooks.installed():
        graph = decomposed_attention.rewrite(flash_attention.rewrite(fixed_bags.rewrite(gm)))
        compiled = compile_fx(graph, example_inputs, config_patches=INDUCTOR_OPTIONS,
                              decompositions=decomposition_table())
    graphs = hooks.SCHEDULED_GRAPHS[before:]
    del hooks.SCHEDULED_GRAPHS[before:]
    simulated = sum(n for n, _, _ in graphs)
    host = Counter()
    for _, ops, _ in graphs:
        host.update(ops)
    sites = [site for _, _, calls in graphs for site in calls]
    session.record_graph_compile()

    def run(*args):
        session.record_graph_run(simulated, host)
        with session.graph_running(args, sites) as outputs:
            outputs.append(compiled(*args))
        return outputs[0]
    return run
