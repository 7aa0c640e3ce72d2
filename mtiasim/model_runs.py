"""What `mtiasim model` needs around `compiler.inductor.simulate`: Inductor kept quiet, and a model's
whole run remembered across processes.

Quiet: Inductor prints each GEMM's autotuning (the choices, their times, "Autotune Choices Stats")
to stderr, about ten lines per matmul, and warns from inside its own code; a user of `mtiasim model`
wants the per-kernel table. `quiet_inductor()` turns those off for the run; `-v` leaves them on.

Remembered: a run is a pure function of the script's model (its parameters and buffers), its inputs,
the hardware config and the sources of the compiler, simulator and ISA (`compiler.runtime.disk_cache`
hashes them). A second `mtiasim model` of the same script then loads the outputs and the report from
the disk cache ($MTIASIM_CACHE_DIR) instead of tracing, lowering, tuning and simulating again: it
compiles, tunes and simulates nothing. Any change to one of those parts is a new key. A model that is
not an nn.Module (a plain function) is not remembered: its state cannot be hashed.
"""
from __future__ import annotations

import contextlib
import hashlib
import logging
import warnings
from pathlib import Path

KIND = "model_runs"


def _tensor_bytes(t) -> bytes:
    import torch
    t = t.detach().to("cpu").contiguous()
    head = f"{t.dtype}{tuple(t.shape)}".encode()
    if t.device.type == "meta" or not t.numel():
        return head
    return head + t.reshape(-1).view(torch.uint8).numpy().tobytes()


def run_key(script: str | Path, model, inputs: tuple, config) -> str | None:
    """The disk-cache key of one run: the script, the model's state, the inputs, the config, the sources
    and torch's version; None where the model's state cannot be hashed (not an nn.Module)."""
    import torch

    from compiler.runtime import disk_cache
    if not isinstance(model, torch.nn.Module):
        return None
    digest = hashlib.sha256(Path(script).read_bytes())
    for name, t in model.state_dict(keep_vars=False).items():
        digest.update(name.encode())
        digest.update(_tensor_bytes(t))
    for leaf in torch.utils._pytree.tree_leaves(inputs):
        digest.update(_tensor_bytes(leaf) if isinstance(leaf, torch.Tensor) else repr(leaf).encode())
    digest.update(repr(model).encode())          # the module tree (a changed forward shows in the script)
    return disk_cache.entry_key("model run v2", digest.hexdigest(), config.model_dump_json(), torch.__version__)


def recorded(outputs, report) -> dict:
    """What `mtiasim model` shows of a run, as plain data: the outputs, the table, the report's dict and
    the chart's runs (label, simulator Report). Loading it back needs neither Inductor nor the
    ModelReport class (importing compiler.inductor alone takes seconds)."""
    return {"outputs": outputs, "table": report.table(), "dict": report.to_dict(), "config": report.config,
            "runs": [(label, k.report) for label, k in zip(report.launch_labels(), report.kernels)],
            "charts": {}}        # chart_key -> the saved chart's bytes (a second run writes them: no matplotlib)


def chart_key(path: str | Path) -> str:
    """What a saved chart's bytes depend on beyond the run: its format and the charting code."""
    return Path(path).suffix.lower() + ":" + hashlib.sha256((Path(__file__).parent / "plots.py").read_bytes()).hexdigest()


def load_run(key: str | None) -> dict | None:
    """The `recorded` run stored under `key`, or None."""
    from compiler.runtime import disk_cache
    return None if key is None else disk_cache.load(KIND, key)


def store_run(key: str | None, run: dict) -> None:
    from compiler.runtime import disk_cache
    if key is not None:
        disk_cache.store(KIND, key, run)


@contextlib.contextmanager
def quiet_inductor():
    """Inductor's autotuning printout and its log records below errors off (see the module docstring)."""
    import torch._inductor.config as inductor_config
    loggers = [logging.getLogger(name) for name in ("torch._inductor", "torch._dynamo")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        with inductor_config.patch(autotune_num_choices_displayed=0, max_autotune_report_choices_stats=False), \
                warnings.catch_warnings():
            warnings.filterwarnings("ignore", module=r"torch\.")     # torch's warnings about its own internals
            yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)
