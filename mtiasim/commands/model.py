"""`mtiasim model SCRIPT.py`: a PyTorch model of a script, simulated through Inductor.

The script defines `model` (an nn.Module or any callable torch.compile takes) and `inputs` (a
tuple of its arguments). The command runs it once with every generated kernel on the simulator,
checks the outputs against eager PyTorch, prints the per-kernel table and saves a roofline chart
of the kernels. torch is imported when the command runs (it is the `inductor` extra's), so that
listing the commands does not need it.
"""
from __future__ import annotations

import json
import runpy
from pathlib import Path

from ..cli import UsageError, command, config_arg, config_from_args, json_arg, output_path, set_arg


def load_script(path: str) -> tuple[object, tuple]:
    scope = runpy.run_path(path, run_name="__mtiasim_model__")
    if "model" not in scope or "inputs" not in scope:
        raise UsageError(f"{path} must define `model` and `inputs` (a tuple of the model's arguments); "
                         f"it defines {', '.join(sorted(k for k in scope if not k.startswith('_'))) or 'nothing'}")
    inputs = scope["inputs"]
    return scope["model"], tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)


def max_error(out, expected) -> float:
    import torch
    flat_out, flat_exp = torch.utils._pytree.tree_leaves(out), torch.utils._pytree.tree_leaves(expected)
    errors = [(a.double() - b.double()).abs().max().item() for a, b in zip(flat_out, flat_exp)
              if isinstance(a, torch.Tensor) and a.numel()]
    return max(errors, default=0.0)


def _model_args(p) -> None:
    p.add_argument("script", help="a Python file defining `model` and `inputs`")
    p.add_argument("-o", "--chart", help="where to save the kernels' roofline chart (default: SCRIPT_roofline.png)")
    config_arg(p)
    set_arg(p)
    json_arg(p)


@command("model", "simulate a PyTorch model through Inductor: per-kernel table, roofline chart", _model_args)
def cmd_model(a) -> int:
    import torch

    from compiler.inductor import simulate
    from simulator.config import use_config

    from ..plots import SAVE_FORMATS, model_roofline_chart
    path = output_path(a.chart or f"{Path(a.script).stem}_roofline.png", "roofline chart", "roofline.png",
                       SAVE_FORMATS)
    cfg = config_from_args(a.config, a.set)
    model, inputs = load_script(a.script)
    with use_config(cfg):
        out, report = simulate(model, *inputs)
    with torch.no_grad():
        error = max_error(out, model(*inputs))
    model_roofline_chart(report, cfg).save(path)
    if a.json:
        print(json.dumps({**report.to_dict(), "max_error": error, "chart": path}, default=str, indent=2))
        return 0
    print(report.table())
    print(f"check max |out - eager| = {error:.3g}; roofline chart of the kernels: {path}")
    return 0
