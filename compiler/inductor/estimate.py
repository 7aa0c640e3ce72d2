"""`estimate(model, *args)`: a model's simulated time at any size, timing only, its weights on the meta device.

    with torch.device("meta"):
        model = Llama(config)                          # no memory for 7B parameters
    report = compiler.inductor.estimate(model, tokens, index_distribution=("zipf", 1.05))

The same compile and the same kernels as `simulate`, launched with `numerics=False`: nothing is
computed, and a kernel whose values cannot reach its timing (`simulator/pe/timing_only.py`) takes the
cycles it takes in a full run. What stands for each meta tensor is a CPU tensor over storage that is
allocated and never touched (`tensors.lazy_cpu`: the OS gives it pages only when written), so Inductor
compiles for CPU tensors as in `simulate`; on the simulator that storage is an address range with no
bytes behind it (`resident.py`, `compiler.runtime.device.lazy_device_array`). The model's own
parameters and buffers are swapped for those stand-ins during the call and put back after.

Index tensors are the exception: a gather's addresses are its values. Integer meta tensors (inputs,
parameters, buffers) that index a table get values from `index_distribution` (`index_values.py`);
other integer meta tensors are zeros. Integer CPU tensors (real indices) are used as they are.
Known limit: an index computed inside the graph (offsets turned into bag ids) is computed by nothing
in a timing-only run and reads as zeros.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import torch
from torch.utils._pytree import tree_flatten, tree_unflatten

from . import index_values, tensors
from .report import ModelReport
from .session import DEFAULT_MEMORY_STATE


class _StandIns:
    """The CPU stand-in of each meta tensor of one run: lazy storage (`tensors.lazy_cpu`), or for an
    integer tensor, index values (`rows`: how many rows it indexes) or zeros. `bases` keeps the lazy
    storages alive until the run ends; `index_inputs` says which integer tensor got what."""

    def __init__(self, rows: dict, dist, rng):
        self.rows, self.dist, self.rng = rows, dist, rng
        self.bases: dict = {}
        self.index_inputs: dict = {}

    def __call__(self, t, name: str):
        if not isinstance(t, torch.Tensor) or not t.is_meta:
            return t
        if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == torch.bool:
            return tensors.lazy_cpu(t, self.bases)
        high = self.rows.get(t.untyped_storage()._cdata, 0)
        self.index_inputs[f"{name} {list(t.shape)} {str(t.dtype).removeprefix('torch.')}"] = high
        values = self.dist.draw(tuple(t.shape), high, self.rng) if high else np.zeros(tuple(t.shape), np.int64)
        out = torch.from_numpy(values).to(t.dtype)
        return torch.nn.Parameter(out, requires_grad=False) if isinstance(t, torch.nn.Parameter) else out


@contextmanager
def _parameters_on_cpu(model: torch.nn.Module, stand_in: _StandIns):
    """Inside, the model's meta parameters and buffers are CPU stand-ins (tied ones stay tied)."""
    swapped = []
    made: dict[int, torch.Tensor] = {}
    for prefix, module in model.named_modules():
        for table in (module._parameters, module._buffers):
            for name, t in table.items():
                if isinstance(t, torch.Tensor) and t.is_meta:
                    if id(t) not in made:
                        made[id(t)] = stand_in(t, f"{prefix}.{name}".lstrip("."))
                    swapped.append((table, name, t))
                    table[name] = made[id(t)]
    try:
        yield
    finally:
        for table, name, t in swapped:
            table[name] = t


def _inputs_on_cpu(tree, stand_in: _StandIns):
    """The call's arguments with each meta tensor replaced by its stand-in, named by its leaf position."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([stand_in(t, f"input {i}") for i, t in enumerate(leaves)], spec)


def estimate(model, *args, index_distribution=None, seed: int = 0, memory_state: str = DEFAULT_MEMORY_STATE,
             **kwargs) -> ModelReport:
    """One timing-only run of `model(*args, **kwargs)` whose parameters and inputs may be meta tensors
    (module docstring); returns its `ModelReport` (cycles, per-kernel rows, coverage, `by_op_class()`,
    `by_layer()`, `llc_by_op_class()`, `memory_moves()`), which names the index distribution. `seed` seeds
    the index values. `memory_state`: "carried" (the LLC handed from kernel to kernel, the dirty lines left
    at the end written back) or "isolated" (each kernel on a cold chip), as for `simulate`."""
    from . import run_model  # the package's run loop, shared with simulate
    with on_cpu(model, args, kwargs, index_distribution, seed) as (cpu_args, cpu_kwargs, finish):
        _, report = run_model(model, cpu_args, cpu_kwargs, timing_only=True, memory_state=memory_state)
    return finish(report)


@contextmanager
def on_cpu(model, args: tuple, kwargs: dict, index_distribution=None, seed: int = 0):
    """Inside, `model`'s meta parameters and buffers are CPU stand-ins (module docstring); yields the
    call's arguments with theirs, and `finish(report)`, which names the index values in a report of the
    run and returns it. What runs the model inside is the caller's (`estimate`; `training.estimate_step`
    builds its optimizer over the stand-ins)."""
    dist = index_values.distribution(index_distribution)
    watched = index_values.integer_meta_tensors((args, kwargs, list(model.parameters()), list(model.buffers())))
    rows = index_values.rows_indexed(model, args, kwargs, watched) if watched else {}
    stand_in = _StandIns(rows, dist, np.random.default_rng(seed))

    def finish(report: ModelReport) -> ModelReport:
        report.index_distribution = dist.name if any(stand_in.index_inputs.values()) else ""
        report.index_inputs = stand_in.index_inputs
        return report
    try:
        with _parameters_on_cpu(model, stand_in):
            cpu_args, cpu_kwargs = _inputs_on_cpu((args, kwargs), stand_in)
            yield cpu_args, cpu_kwargs, finish
    finally:
        tensors.LAZY_STORAGES.difference_update(s.data_ptr() for s in stand_in.bases.values())
