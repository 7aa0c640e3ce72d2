"""What `mtiasim model` needs around `compiler.inductor.simulate`: Inductor kept quiet, and a model's
whole run remembered across processes.

Quiet: Inductor prints each GEMM's autotuning (the choices, their times, "Autotune Choices Stats")
to stderr, about ten lines per matmul, and warns from inside its own code; a user of `mtiasim model`
wants the per-kernel table. `quiet_inductor()` turns those off for the run; `-v` leaves them on.

Remembered: a run is a pure function of the script's model (its parameters and buffers), its inputs,
the hardware config and the sources of the compiler, simulator and ISA (`compiler.runtime.disk_cache`
hashes them). A second `mtiasim model` of the same script then loads the outputs and the report from
the disk cache ($MTIASIM_CACHE_DIR) instead of tracing, lowering, tuning and simulating again: it
compiles, tunes and simulates nothing. Any change to one of those parts is a new key, or (the
config's YAML files) an entry that no longer matches. A model that is not an nn.Module (a plain
function) is not remembered: its state cannot be hashed.

A cached run is fast because it imports none of our packages: `import isa` alone takes longer than
`import torch` (ml_dtypes registers its NumPy casts at import, about a second), and `import compiler`
imports the language and the runtime. So the key names the config as the command line does (`--config`
and `--set`), not by the loaded config, and the entry keeps the YAML files the config was read from
with their hashes (`config_read`): a cached run checks those bytes instead of loading the config.
The disk cache's module is loaded without the compiler package (`disk_cache()`).
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import logging
import os
import pickle
import sys
import warnings
from pathlib import Path

KIND = "model_runs"
VERSION = "model run v3"        # what an entry holds and how its key is made: a new value orphans older entries


_STANDALONE: list = []                # disk_cache.py loaded on its own, once per process


def disk_cache():
    """`compiler.runtime.disk_cache`: the imported module where the compiler is loaded already, else the same
    file loaded on its own, without the compiler package. The module imports only the standard library,
    while `import compiler` takes seconds (the language, the runtime, the ISA). Both compute the same keys
    in the same folder, so which one a run uses does not matter."""
    imported = sys.modules.get("compiler.runtime.disk_cache")
    if imported is not None:
        return imported
    if not _STANDALONE:
        top = importlib.util.find_spec("compiler").submodule_search_locations[0]   # finds, imports nothing
        spec = importlib.util.spec_from_file_location("mtiasim.model_runs.disk_cache",
                                                      Path(top) / "runtime" / "disk_cache.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _STANDALONE.append(module)
    return _STANDALONE[0]


def _tensor_bytes(t) -> bytes:
    import torch
    t = t.detach().to("cpu").contiguous()
    head = f"{t.dtype}{tuple(t.shape)}".encode()
    if t.device.type == "meta" or not t.numel():
        return head
    return head + t.reshape(-1).view(torch.uint8).numpy().tobytes()


def run_key(script: str | Path, model, inputs: tuple, config: str, sets: list[str]) -> str | None:
    """The disk-cache key of one run: the script, the model's state, the inputs, the config as the command
    line names it (`--config`, `--set`), the sources and torch's version; None where the model's state
    cannot be hashed (not an nn.Module). What the config's files hold is checked by `load_run`."""
    import torch
    if not isinstance(model, torch.nn.Module):
        return None
    digest = hashlib.sha256(Path(script).read_bytes())
    for name, t in model.state_dict(keep_vars=False).items():
        digest.update(name.encode())
        digest.update(_tensor_bytes(t))
    for leaf in torch.utils._pytree.tree_leaves(inputs):
        digest.update(_tensor_bytes(leaf) if isinstance(leaf, torch.Tensor) else repr(leaf).encode())
    digest.update(repr(model).encode())          # the module tree (a changed forward shows in the script)
    return disk_cache().entry_key(VERSION, digest.hexdigest(), config, tuple(sets), torch.__version__)


# ---- the files a config was read from ----------------------------------------------------------

_RECORDING: list[list[str]] = []      # the lists `files_opened` blocks are filling, innermost last
_HOOKED: list[bool] = []              # an audit hook cannot be removed: added once per process, it then costs a
                                      # call per audit event (tens of ms over a whole first run through Inductor)


def _note_open(event: str, args: tuple) -> None:
    if event == "open" and _RECORDING and isinstance(args[0], (str, bytes, os.PathLike)):
        _RECORDING[-1].append(os.fsdecode(args[0]))


@contextlib.contextmanager
def files_opened():
    """The paths of the files opened inside the block, as they were opened (Python's "open" audit event)."""
    if not _HOOKED:
        sys.addaudithook(_note_open)
        _HOOKED.append(True)
    opened: list[str] = []
    _RECORDING.append(opened)
    try:
        yield opened
    finally:
        _RECORDING.pop()


def _file_hash(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def config_read(load):
    """`load()`'s config and the files it read, [(path, sha256)]: a preset, the presets it `extends`, a
    user's YAML. Watching the reads, rather than following `extends` here, lists exactly the files the
    config loader chose. Paths stay as opened, so a relative one is checked again where the next run is."""
    import simulator.config  # noqa: F401  (imported before watching: only the config's own files are read)
    with files_opened() as opened:
        config = load()
    return config, [(path, _file_hash(path)) for path in dict.fromkeys(opened)]


# ---- the record --------------------------------------------------------------------------------

def recorded(outputs, report, config_files: list[tuple[str, str | None]]) -> dict:
    """What `mtiasim model` shows of a run, as plain data: the outputs, the table, the report's dict,
    the chart's runs (`chart_runs`) and the config's files (`config_read`). Loading it back
    needs neither Inductor nor the ModelReport class (importing compiler.inductor alone takes seconds)."""
    return {"outputs": outputs, "table": report.table(), "dict": report.to_dict(), "config": report.config,
            "runs": [(label, k.report) for label, k in zip(report.launch_labels(), report.kernels)],
            "config_files": config_files,
            "charts": {}}        # chart_key -> the saved chart's bytes (a second run writes them: no matplotlib)


def chart_runs(run: dict) -> list[tuple[str, object]]:
    """The (label, simulator Report) of each launch of a `recorded` run: what its chart plots. An entry
    keeps them pickled apart (`store_run`), so that loading it imports no simulator."""
    runs = run["runs"]
    return pickle.loads(runs) if isinstance(runs, bytes) else runs


def chart_key(path: str | Path) -> str:
    """What a saved chart's bytes depend on beyond the run: its format and the charting code."""
    return Path(path).suffix.lower() + ":" + hashlib.sha256((Path(__file__).parent / "plots.py").read_bytes()).hexdigest()


def load_run(key: str | None) -> dict | None:
    """The `recorded` run stored under `key`, or None; None too where one of the config's files now holds
    other bytes (or is gone): that config is another one."""
    run = None if key is None else disk_cache().load(KIND, key)
    if run is None or any(_file_hash(path) != digest for path, digest in run["config_files"]):
        return None
    return run


def store_run(key: str | None, run: dict) -> None:
    """Store a `recorded` run under `key` (None: not stored), its chart's runs pickled apart."""
    if key is None:
        return
    try:
        runs = run["runs"] if isinstance(run["runs"], bytes) else pickle.dumps(run["runs"], pickle.HIGHEST_PROTOCOL)
    except Exception:              # a report that does not pickle: not cached, as disk_cache.store does
        return
    disk_cache().store(KIND, key, {**run, "runs": runs})


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
