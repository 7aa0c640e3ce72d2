"""PyTorch models on the simulator, through the Triton code TorchInductor generates.

    import torch, compiler.inductor
    outputs, report = compiler.inductor.simulate(model, x)     # one simulated run of model(x)
    print(report)          # a row per kernel: ATen ops, grid, cycles, roofline; totals, coverage
    report = compiler.inductor.estimate(meta_model, x)         # timing only, weights on the meta device
    fast = torch.compile(model, backend="mtiasim")             # the same path as a Dynamo backend
    step = compiler.inductor.training_step(model, loss_fn, opt)  # forward, backward, optimizer step
    loss, report = compiler.inductor.simulate(step, x, y)      # report.by_phase(): the step's split

Inductor lowers the model to Triton kernels for CPU tensors (`backend.py`); each kernel module is
loaded with its triton imports pointing at our compiler (`header.py`, `helpers.py`), and its
decorator becomes a `Launcher` (`launchers.py`) that picks MTIA block sizes and runs it on the
simulated chip. Matmuls go through Inductor's Triton templates, attention and embedding bags through
decompositions (`decompositions.py`), so no compute op is left on the host unless Inductor has no
kernel for it; `report.not_simulated` lists those. This package needs the `inductor` extra (torch,
and the triton package whose code generation Inductor imports: no kernel runs on it).
"""
from __future__ import annotations

import contextlib
import time
import weakref

import torch
from torch._dynamo.exc import FailOnRecompileLimitHit

from ..errors import NotSimulatedError
from . import header, session
from .backend import mtiasim
from .estimate import estimate
from .report import KernelRun, ModelReport
from .training import estimate_step, training_step

_COMPILED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def compiled(model):
    """`torch.compile(model, backend="mtiasim")`, made once per model (later runs reuse its cache)."""
    fn = _COMPILED.get(model)
    if fn is None:
        fn = _COMPILED[model] = torch.compile(model, backend=mtiasim, dynamic=False)   # static shapes: block sizes per shape
    return fn


def simulate(model, *inputs, memory_state: str = session.DEFAULT_MEMORY_STATE, **kwargs) -> tuple[object, ModelReport]:
    """Run `model(*inputs, **kwargs)` once with every generated kernel on the simulator; returns the
    outputs and the run's `ModelReport`. An `nn.Module` runs under `torch.no_grad()` (inference); any
    other callable (a training step, `training.training_step`) with gradients as the caller has them.
    `memory_state`: "carried" (the default: each kernel finds what the previous ones left in the LLC; the
    dirty lines left at the end are written back, `report.drain`) or "isolated" (each kernel on a cold
    chip), `session.py` says why.

    What Dynamo leaves to plain PyTorch (the code around a graph break) is in the report's
    `not_simulated` and `eager_ops`; a run of which Dynamo compiled nothing (it hit its recompile
    limit, or skipped the model's frames) raises `NotSimulatedError`."""
    return run_model(model, inputs, kwargs, timing_only=False, memory_state=memory_state)


def run_model(model, inputs: tuple, kwargs: dict, timing_only: bool,
              memory_state: str = session.DEFAULT_MEMORY_STATE) -> tuple[object, ModelReport]:
    """One recorded run of the compiled model (`simulate`; `estimate` with `timing_only`)."""
    header.check_triton_package()        # before Dynamo, which would wrap the error in its own
    session.check_memory_state(memory_state)
    fn = compiled(model)
    start = time.perf_counter()
    grad = torch.no_grad() if isinstance(model, torch.nn.Module) else contextlib.nullcontext()
    with session.recording(timing_only, memory_state) as report, grad, \
            torch._dynamo.config.patch(fail_on_recompile_limit_hit=True):
        try:
            outputs = fn(*inputs, **kwargs)
        except FailOnRecompileLimitHit as e:
            cause = str(e.__cause__ or e).strip().splitlines()[0]
            raise NotSimulatedError(
                f"Dynamo hit its recompile limit (torch._dynamo.config.recompile_limit = "
                f"{torch._dynamo.config.recompile_limit}) and would run the model as plain PyTorch: {cause}. "
                "Call torch._dynamo.reset() between models that share code, or raise the limit") from None
    report.wall_seconds = time.perf_counter() - start
    if not report.graphs_run and report.eager_ops:
        ops = ", ".join(f"{op} x{n}" for op, n in report.eager_ops.most_common(5))
        raise NotSimulatedError(f"Dynamo compiled no graph of {type(model).__name__}: it ran as plain PyTorch "
                                f"({report.host_ops} ATen ops: {ops}{', ...' if len(report.eager_ops) > 5 else ''}) "
                                "and nothing ran on the simulator")
    return outputs, report


__all__ = ["simulate", "estimate", "training_step", "estimate_step", "compiled", "mtiasim", "ModelReport", "KernelRun",
           "NotSimulatedError"]
