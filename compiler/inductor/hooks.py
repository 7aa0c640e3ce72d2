"""The places where Inductor meets our compiler, patched only while `installed()` is active.

- `torch.utils._triton.triton_hash_with_backend`: Inductor hashes the active triton backend into its
  kernels' metadata; with no GPU there is none ("0 active drivers"), so it returns a fixed string
  (torch's own test_triton_extension_backend.py mocks it the same way).
- `AsyncCompile.triton(kernel_name, source_code)`: loads each generated kernel module with its
  header swapped for ours (`header.py`) and returns our `Launcher` instead of triton's autotuner.
- `TritonBenchmarkRequest.benchmark/precompile`: Inductor's mm/bmm template autotuning times each
  candidate; ours simulates it (timing only) and returns the simulated milliseconds, so the chosen
  template is the fastest on the simulated chip. A candidate our compiler refuses times as inf.
- `CPUConfigHeuristic.preprocess_mm_configs`: the template block sizes tried are ours (`gemm_configs.py`).
- `TritonScheduling.define_kernel`: remembers which ATen ops each kernel came from.
- `GraphLowering.codegen`: after Inductor scheduled a graph, counts its ATen compute ops that run in
  kernels and those left to ATen on the host (extern and fallback kernels).
"""
from __future__ import annotations

import logging
import math
from collections import Counter
from contextlib import ExitStack, contextmanager
from unittest import mock

import torch
import torch.utils._triton
from torch._inductor import ir
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.autotune_process import TritonBenchmarkRequest
from torch._inductor.codegen.triton import TritonScheduling
from torch._inductor.graph import GraphLowering
from torch._inductor.template_heuristics.triton import CPUConfigHeuristic

from ..errors import CompilationError, KernelRuntimeError
from . import gemm_configs, session
from .header import check_torch_version, check_triton_package, swap_header
from .loader import load_module

log = logging.getLogger(__name__)
BACKEND_HASH = "mtiasim"

# graphs scheduled since the backend last looked: (simulated op count, Counter of host ops, kernel call
# sites: [(kernel name, module path)] in the order the graph's code calls them)
SCHEDULED_GRAPHS: list = []
# the mm/bmm template candidates our compiler refused while autotuning: (kernel, reason)
REFUSED_TEMPLATES: list = []
_ORIGINS_OF_GRAPH: list = []     # fx nodes of the kernels defined for the graph being generated
_SITES_OF_GRAPH: list = []       # (kernel name, module path) of each kernel call of that graph, in order


def load_kernel(kernel_name: str, source_code: str):
    """The Launcher of kernel `kernel_name` in a generated module."""
    module = load_module(kernel_name, swap_header(source_code, kernel_name))
    return getattr(module, kernel_name)


def _triton(self, kernel_name: str, source_code: str, device_str: str = "cuda"):
    return load_kernel(kernel_name, source_code)


def _benchmark(self, *input_tensors, out=None):
    with open(self.module_path) as f:
        launcher = load_kernel(self.kernel_name, f.read())
    try:
        record = launcher.launch((*input_tensors, out, *self.extra_args), numerics=False)
    except (CompilationError, KernelRuntimeError) as e:
        REFUSED_TEMPLATES.append((self.kernel_name, str(e).splitlines()[0]))
        log.info("autotuning: %s refused: %s", self.module_path, e)
        return math.inf
    return record.seconds * 1e3


def _no_precompile(self):
    """Our kernels compile at their first launch, for the block sizes they launch with."""


def _is_compute(node) -> bool:
    """An fx node that computes (not a view, a getitem or a placeholder)."""
    return (node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload)
            and not node.target.is_view)


def _decomposed_from(nodes) -> set:
    """The ATen ops a kernel's nodes were decomposed from (`original_aten`): a one-row mm that became a
    multiply and a sum (decompositions.py) is still the model's mm, and its kernel a matmul's."""
    out = set()
    for n in nodes:
        orig = n.meta.get("original_aten") if hasattr(n, "meta") else None
        # the sum over K is the mm's own work; a pointwise kernel reading the mm's output (a view, RoPE's
        # negate) may carry the same original_aten and stays what it is
        if isinstance(orig, torch._ops.OpOverload) and str(orig.overloadpacket) in _MATMULS and \
                _is_compute(n) and str(n.target.overloadpacket) == "aten.sum":
            out.add(str(orig.overloadpacket))
    return out


_MATMULS = {"aten.mm", "aten.addmm", "aten.bmm", "aten.baddbmm"}


def _define_kernel(original):
    def define_kernel(self, src_code, node_schedule, kernel):
        name = original(self, src_code, node_schedule, kernel)
        nodes = set()
        for item in node_schedule:
            for sched in item.get_nodes() if hasattr(item, "get_nodes") else ():
                nodes |= set(getattr(sched.node, "origins", ()) or ())
        ops = sorted({str(n.target.overloadpacket) for n in nodes if _is_compute(n)} | _decomposed_from(nodes))
        session.KERNEL_ORIGINS[name] = tuple(sorted(set(session.KERNEL_ORIGINS.get(name, ())) | set(ops)))
        path = session.KERNEL_MODULES[name] = session.module_path(n for n in nodes if _is_compute(n))
        if _SITES_OF_GRAPH:         # a kernel shared by several layers is defined once per call
            _SITES_OF_GRAPH[-1].append((name, path))
        if _ORIGINS_OF_GRAPH:
            _ORIGINS_OF_GRAPH[-1] |= nodes
        return name
    return define_kernel


def _codegen(original):
    def codegen(self):
        _ORIGINS_OF_GRAPH.append(set())
        _SITES_OF_GRAPH.append([])
        try:
            result = original(self)
            in_kernels = _ORIGINS_OF_GRAPH[-1]
            sites = _SITES_OF_GRAPH[-1]
        finally:
            _ORIGINS_OF_GRAPH.pop()
            _SITES_OF_GRAPH.pop()
        simulated = {n for n in in_kernels if _is_compute(n)}
        on_host = set()
        for op in self.operations:
            if isinstance(op, ir.ExternKernel):     # its origins name the ops of its inputs too: those ran in kernels
                own = getattr(op, "op_overload", None)
                # ... but its own op ran on the host, even where a kernel names it too (one that lays out
                # its input: ATen's convolution_backward reads a gradient a kernel made channels-last)
                on_host |= {n for n in op.origins if _is_compute(n) and (n not in simulated or n.target == own)}
        simulated -= on_host
        ours = {n for n in on_host if n.target.namespace == "mtiasim"}    # custom ops that launch our kernels
        simulated, on_host = simulated | ours, on_host - ours
        host = Counter(str(n.target.overloadpacket) for n in on_host)
        SCHEDULED_GRAPHS.append((len(simulated), host, sites))
        return result
    return codegen


@contextmanager
def installed():
    """Inductor generates code for our compiler inside this block (nestable)."""
    check_torch_version()
    check_triton_package()
    with ExitStack() as stack:
        patch = stack.enter_context
        patch(mock.patch.object(torch.utils._triton, "triton_hash_with_backend", lambda: BACKEND_HASH))
        patch(mock.patch.object(AsyncCompile, "triton", _triton))
        patch(mock.patch.object(TritonBenchmarkRequest, "benchmark", _benchmark))
        patch(mock.patch.object(TritonBenchmarkRequest, "precompile", _no_precompile))
        patch(mock.patch.object(CPUConfigHeuristic, "preprocess_mm_configs", gemm_configs.preprocess_mm_configs))
        patch(mock.patch.object(TritonScheduling, "define_kernel", _define_kernel(TritonScheduling.define_kernel)))
        patch(mock.patch.object(GraphLowering, "codegen", _codegen(GraphLowering.codegen)))
        yield
