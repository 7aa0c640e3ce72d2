"""`mtiasim model SCRIPT.py`: a PyTorch model of a script, simulated through Inductor.

The script defines `model` (an nn.Module or any callable torch.compile takes) and `inputs` (a
tuple of its arguments). The command runs it once with every generated kernel on the simulator,
checks the outputs against eager PyTorch, prints the per-kernel table and saves a roofline chart
of the kernels. torch is imported when the command runs (it is the `inductor` extra's), so that
listing the commands does not need it.
"""
from __future__ import annotations

import contextlib
import json
import runpy
from pathlib import Path

from ..cli import UsageError, command, config_arg, config_from_args, json_arg, output_path, set_arg

CHART_FORMATS = (".png", ".svg", ".pdf")     # mtiasim.plots.SAVE_FORMATS, named without importing matplotlib


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
    p.add_argument("-v", "--verbose", action="store_true", help="show Inductor's own logs (its autotuning of each GEMM)")
    p.add_argument("--no-cache", action="store_true",
                   help="simulate again even if this script, model, inputs and config ran before (MTIASIM_CACHE_DIR)")
    config_arg(p)
    set_arg(p)
    json_arg(p)


@command("model", "simulate a PyTorch model through Inductor: per-kernel table, roofline chart", _model_args)
def cmd_model(a) -> int:
    import torch

    from .. import model_runs
    path = output_path(a.chart or f"{Path(a.script).stem}_roofline.png", "roofline chart", "roofline.png",
                       CHART_FORMATS)
    model, inputs = load_script(a.script)
    key = None if a.no_cache else model_runs.run_key(a.script, model, inputs, a.config, a.set)
    run = model_runs.load_run(key)      # a cached run loads no config and imports none of our packages
    cached = run is not None
    cfg = None
    if not cached:
        cfg, config_files = model_runs.config_read(lambda: config_from_args(a.config, a.set))
        from compiler.inductor import simulate  # (seconds to import: not on a cached run)
        from simulator.config import use_config
        with use_config(cfg), (contextlib.nullcontext() if a.verbose else model_runs.quiet_inductor()):
            out, report = simulate(model, *inputs)
        run = model_runs.recorded(out, report, config_files)
        model_runs.store_run(key, run)
    with torch.no_grad():
        error = max_error(run["outputs"], model(*inputs))
    _save_chart(run, lambda: cfg or config_from_args(a.config, a.set), path, key)
    if a.json:
        print(json.dumps({**run["dict"], "max_error": error, "chart": path, "from_cache": cached},
                         default=str, indent=2))
        return 0
    table = run["table"]
    if cached:          # the host time is the first run's: say so where it is printed
        table = table.replace(" s of host time", " s of host time, in the run that filled the cache")
    print(table)
    if cached:
        print(f"(the outputs and report of an earlier run of this model, inputs and config, from the cache in "
              f"{model_runs.disk_cache().root()}: nothing compiled, tuned or simulated; --no-cache runs it again)")
    print(f"check max |out - eager| = {error:.3g}; roofline chart of the kernels: {path}")
    return 0


def _save_chart(run: dict, config, path: str, key: str | None) -> None:
    """The kernels' roofline chart, numbered as the table's `#` column (point i is row i); a chart this
    run already saved in this format is written from the cache (drawing one takes seconds). `config()`
    is the run's config (loaded only to draw)."""
    from ..model_runs import chart_key, chart_runs, store_run
    from .common import written
    which = chart_key(path)
    saved = run.setdefault("charts", {}).get(which)
    if saved is not None:
        written(path, lambda: Path(path).write_bytes(saved))
        return
    from ..plots import roofline_chart
    runs = chart_runs(run)
    roofline_chart(runs, configs=[config()], numbers=range(1, len(runs) + 1)).save(path)
    run["charts"][which] = Path(path).read_bytes()
    store_run(key, run)
