"""Whole models as workloads, so that sweeps run model x config grids (locally or on Dask):

    llm            a named decoder LLM (`mtiasim.models.llama.SHAPES`) for one serving step:
                   model=llama-2-7b, phase=prefill|decode, batch, tokens (prompt, or decode context)
    model_script   a Python file defining `model` and `inputs`, as `mtiasim model` runs it

    workloads:                                   # in a sweep file
      - {name: llm, model: llama-3-8b, phase: decode, batch: 1, tokens: 2048}
      - {name: model_script, script: examples/mlp.py}

Timing only (numerics: false, the sweeps' default) is `compiler.inductor.estimate` on the meta device;
with numerics the model is built on the CPU with random weights (or the script's own), simulated, and
checked against eager PyTorch. The row is a `ModelRow`: the run's cycles and seconds, and for `llm` the
step's floors (mtiasim/serving.py). torch is imported only when a model workload runs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .serving import RECOMPILE_LIMIT
from .workloads import WorkloadError, register_workload


@dataclass
class ModelRow:
    """What a model workload reports: a sweep row (`row()`), like the simulator's `Report`."""
    kernel: str
    config: str
    cycles: int
    seconds: float
    kernels: int
    extra: dict = field(default_factory=dict)
    report: object = field(default=None, repr=False)        # the compiler.inductor.ModelReport

    def row(self) -> dict:
        return {"kernel": self.kernel, "config": self.config, "cycles": self.cycles, "seconds": self.seconds,
                "kernels": self.kernels, **self.extra}


def _config(machine_or_config):
    from simulator.config import load_config
    cfg = getattr(machine_or_config, "cfg", machine_or_config)
    return load_config(cfg)


def _max_error(out, expected) -> float:
    import torch
    pairs = zip(torch.utils._pytree.tree_leaves(out), torch.utils._pytree.tree_leaves(expected))
    return max(((a.double() - b.double()).abs().max().item() for a, b in pairs
                if isinstance(a, torch.Tensor) and a.numel()), default=0.0)


def _simulate_checked(model, inputs, cfg):
    """A full simulated run and its largest difference from eager PyTorch."""
    import torch

    from compiler.inductor import simulate
    from simulator.config import use_config
    with use_config(cfg), torch._dynamo.config.patch(recompile_limit=RECOMPILE_LIMIT):
        out, report = simulate(model, *inputs)
    with torch.no_grad():
        return report, {"max |out - eager|": _max_error(out, model(*inputs))}


def llm(machine_or_config, shape, numerics):
    from . import serving
    from .models.llama import build
    from .models.shapes import shape_named
    try:
        s = shape_named(shape["model"])
    except ValueError as e:
        raise WorkloadError(str(e)) from None
    if shape["phase"] not in serving.PHASES:
        raise WorkloadError(f"llm: phase is prefill or decode, not {shape['phase']!r}")
    cfg = _config(machine_or_config)
    phase, batch, tokens = shape["phase"], shape["batch"], shape["tokens"]
    checks = {}
    if numerics:
        import torch
        model, inputs = build(s, phase, batch, tokens, device="cpu", dtype=torch.float32)
        report, checks = _simulate_checked(model, inputs, cfg)
        seconds, cycles, kernels = report.seconds, report.cycles, len(report.kernels)
    else:
        est = serving.estimate_step(s, cfg, phase, batch, tokens)
        seconds, cycles, kernels, report = est.seconds, est.cycles, est.kernels, None
    _, compute, memory = serving.floors(s, cfg, phase, batch, tokens)
    floor = max(compute, memory)
    extra = {"ms": seconds * 1e3, "floor_ms": floor * 1e3, "compute_floor_ms": compute * 1e3,
             "memory_floor_ms": memory * 1e3, "over_floor": seconds / floor,
             "tokens_per_s": batch * (tokens if phase == "prefill" else 1) / seconds}
    return ModelRow(f"{s.name} {phase}", cfg.name, cycles, seconds, kernels, extra, report), checks


def model_script(machine_or_config, shape, numerics):
    from compiler.inductor import estimate
    from simulator.config import use_config

    from .commands.model import load_script
    if not shape["script"]:
        raise WorkloadError("model_script: give script=PATH, a Python file defining `model` and `inputs`")
    cfg = _config(machine_or_config)
    model, inputs = load_script(shape["script"])
    if numerics:
        report, checks = _simulate_checked(model, inputs, cfg)
    else:
        import torch
        with use_config(cfg), torch._dynamo.config.patch(recompile_limit=RECOMPILE_LIMIT):
            report = estimate(model, *inputs)
        checks = {}
    return ModelRow(shape["script"], cfg.name, report.cycles, report.seconds, len(report.kernels),
                    {"ms": report.seconds * 1e3, "coverage": report.coverage}, report), checks


register_workload("llm", llm, shape={"batch": 1, "tokens": 2048, "model": "llama-2-7b", "phase": "decode"},
                  dims=("batch", "tokens"),
                  quick_shape={"batch": 1, "tokens": 64, "model": "llama-tiny", "phase": "decode"},
                  description="a decoder LLM's serving step: model=llama-2-7b|llama-3-8b|llama-tiny, "
                              "phase=prefill|decode, tokens = prompt or context")
register_workload("model_script", model_script, shape={"script": ""}, dims=(),
                  description="a PyTorch model from a script defining `model` and `inputs` (through Inductor)")
