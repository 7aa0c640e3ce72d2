"""Config sweeps: run workloads over a grid of config overrides and collect one table.

A sweep file (configs/sweeps/*.yaml):

    name: dram-x-ls
    base: mtia-2i                        # a config name or path, or a list of them (the grid runs on each);
                                         # `overrides:` fixes more keys
    grid:                                # every combination of these dotted keys is one point
      dram.bandwidth_gbps: [102.4, 204.8, 409.6]
      pe.local_store_kib: [128, 256, 384, 512]
      # config: [mtia-2i, mtia-300]      # whole configs as one more axis (each replaces `base`)
    workloads:                           # each point runs each of these
      - {name: gemm, shape: [2048, 2048, 2048], region: dram}
      - {name: softmax, shape: {R: 4096, C: 1024}}
    numerics: false                      # timing only (the default): same cycles, faster
    imports: [my_kernels]                # modules that register more workloads (optional; the sweep
                                         # file's folder is on the import path, so my_kernels.py beside it)

Each run is one row: the point id, workload, shape, every swept knob, then every field of
`Report.row()`, any numerics checks, and `error` (empty when the run worked). A run that fails (CBs
that do not fit the local store, a value the config rejects) records its message there and the
sweep goes on. Rows are written as they complete (the file is rewritten atomically), so an
interrupted sweep keeps what finished, and running it again skips the rows already in the file.

Runs go to local processes (`workers`, default: every core; 1 runs in this process) or, given a
scheduler address, to a Dask cluster. Every run builds its machine from scratch and seeds its
inputs, so the table does not depend on where or in which order runs execute (wall-time columns
aside).
"""
from __future__ import annotations

import csv
import glob
import hashlib
import itertools
import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from isa.errors import bounded_repr, bounded_text
from simulator.config import apply_overrides, load_config, read_text, read_yaml, resolve_path
from simulator.errors import ConfigError, SimError
from simulator.user_yaml import load_yaml

from .output_lock import OutputLock
from .workloads import format_shape, get_workload, import_modules

WALL_COLUMNS = ("wall_seconds", "run_seconds")   # differ between runs of the same point
META_COLUMNS = ("point", "workload", "shape")
TEXT_COLUMNS = frozenset(META_COLUMNS + ("error", "kernel", "config", "bound", "compute_roof"))
CONFIG_KEY = "config"          # a grid key naming whole configs (mtia-2i, mtia-300, a path), not a dotted knob
SPEC_KEYS = {"name", "description", "base", "overrides", "grid", "workloads", "numerics", "imports"}


class SweepError(SimError, ValueError):
    """A sweep file that cannot be run (bad YAML, unknown keys, an empty grid, unknown workloads), or
    an output it cannot write."""

    one_line = True


@dataclass
class Sweep:
    name: str
    base: str
    grid: dict[str, list]                       # dotted key -> values
    workloads: list[dict]                        # {"name", "shape": full shape dict}
    overrides: dict[str, Any] = field(default_factory=dict)
    numerics: bool = False
    imports: list[str] = field(default_factory=list)
    description: str = ""
    bases: list[str] = field(default_factory=list)     # every base config the grid runs on (default: [base])
    import_paths: list[str] = field(default_factory=list)   # folders put on sys.path for `imports` (the file's)

    def __post_init__(self):
        self.bases = list(self.bases) or [self.base]

    def points(self) -> list[dict]:
        """Every run of the sweep: each grid combination times each workload, in a fixed order. The grid
        key `config` (CONFIG_KEY) names whole configs: each is the point's base instead of `base`."""
        keys = list(self.grid)
        out = []
        for listed in self.bases:
            for values in itertools.product(*(self.grid[k] for k in keys)):
                knobs = dict(zip(keys, values))
                base = knobs.get(CONFIG_KEY, listed)
                dotted = {k: v for k, v in knobs.items() if k != CONFIG_KEY}
                for wl in self.workloads:
                    p = {"base": base, "overrides": {**self.overrides, **dotted}, "knobs": knobs,
                         "workload": wl["name"], "shape": wl["shape"], "numerics": self.numerics,
                         "imports": self.imports + [get_workload(wl["name"]).module],
                         "import_paths": list(self.import_paths)}
                    p["id"] = point_id(p)
                    out.append(p)
        return out


def point_id(p: dict) -> str:
    """A stable id of what a run computes (config, overrides, workload, shape, numerics)."""
    key = json.dumps([str(p["base"]), p["overrides"], p["workload"], p["shape"], p["numerics"]],
                     sort_keys=True, default=str)
    return hashlib.sha1(key.encode()).hexdigest()[:12]


# ---- reading sweep files ----------------------------------------------------------------------------

def load_sweep(source: str | Path | dict) -> Sweep:
    """A sweep from a YAML path (or a dict of the same shape), checked before anything runs."""
    if isinstance(source, dict):
        data, where = dict(source), "<sweep>"
    else:
        path = Path(source)
        if not path.exists():
            raise SweepError(f"no sweep file {bounded_repr(str(path))}")
        if not path.is_file():
            raise SweepError(f"{path} is not a file: a sweep is a YAML file (see configs/sweeps/)")
        data = load_yaml(read_text(path, SweepError), str(path), SweepError)
        where = str(path)
        if not isinstance(data, dict):
            raise SweepError(f"{where}: a sweep is a mapping with base, grid and workloads")
    unknown = sorted(map(str, set(data) - SPEC_KEYS))
    if unknown:
        raise SweepError(f"{where}: unknown key(s) {bounded_text(', '.join(unknown))} "
                         f"(known: {', '.join(sorted(SPEC_KEYS))})")
    _check_types(where, data)
    imports = list(data.get("imports") or [])
    import_paths = [] if isinstance(source, dict) else [str(Path(source).resolve().parent)]
    with_import_paths(import_paths)                     # my_kernels.py beside the sweep file imports as my_kernels
    import_modules(imports)
    raw = data.get("base", "mtia-2i")
    bases = []
    for base in (raw if isinstance(raw, list) else [raw]):
        base = str(base)
        if not isinstance(source, dict) and not Path(base).is_absolute() and (Path(source).parent / base).exists():
            base = str(Path(source).parent / base)      # a base config next to the sweep file
        bases.append(base)
    if not bases:
        raise SweepError(f"{where}: base is a config name or path, or a non-empty list of them")
    base = bases[0]
    overrides = dict(data.get("overrides") or {})
    grid = data.get("grid") or {}
    if not isinstance(grid, dict) or not grid:
        raise SweepError(f"{where}: 'grid' maps dotted config keys to lists of values, e.g. "
                         f"dram.bandwidth_gbps: [102.4, 204.8]")
    grid = {str(k): (list(v) if isinstance(v, (list, tuple)) else [v]) for k, v in grid.items()}
    empty = [k for k, v in grid.items() if not v]
    if empty:
        raise SweepError(f"{where}: grid key(s) {', '.join(empty)} have no values")
    if len(bases) > 1 and CONFIG_KEY in grid:
        raise SweepError(f"{where}: 'base' lists {len(bases)} configs and the grid has a '{CONFIG_KEY}' key: "
                         "name the configs in one of the two")
    for b in bases:
        for config in grid.get(CONFIG_KEY, [b]):
            _check_keys(where, str(config), overrides, {k: v for k, v in grid.items() if k != CONFIG_KEY})
    wls = data.get("workloads")
    if not isinstance(wls, list) or not wls:
        raise SweepError(f"{where}: 'workloads' is a list like [{{name: gemm, shape: [1024, 1024, 1024]}}]")
    workloads = [_workload_entry(where, i, w) for i, w in enumerate(wls)]
    return Sweep(name=str(data.get("name") or (Path(where).stem if where != "<sweep>" else "sweep")),
                 base=base, grid=grid, workloads=workloads, overrides=overrides,
                 numerics=bool(data.get("numerics", False)), imports=imports,
                 description=str(data.get("description", "")), bases=bases, import_paths=import_paths)


def with_import_paths(paths: Iterable[str]) -> None:
    """Put these folders on sys.path (once each), so a sweep's `imports` find modules beside its file,
    in this process and in each worker."""
    for p in paths:
        if p not in sys.path:
            sys.path.insert(0, p)


# what each key of a sweep file holds: a wrong type is refused rather than converted (`numerics: "no"`
# would be true, `imports: my_mod` the modules m, y, ...)
SPEC_TYPES = {
    "name": (str, "a string"),
    "description": (str, "a string"),
    "base": ((str, Path, list), "a config name or path, or a list of them"),
    "overrides": (dict, "a mapping of dotted keys to values"),
    "grid": (dict, "a mapping of dotted keys to lists of values"),
    "workloads": (list, "a list of {name, shape}"),
    "numerics": (bool, "true or false"),
    "imports": (list, "a list of module names"),
}


def _check_types(where: str, data: dict) -> None:
    for key, (typ, what) in SPEC_TYPES.items():
        value = data.get(key)
        if value is not None and (not isinstance(value, typ) or (typ is not bool and isinstance(value, bool))):
            raise SweepError(f"{where}: {key} = {bounded_repr(value)}: {key} is {what}")
    if isinstance(data.get("base"), list) and not all(isinstance(b, (str, Path)) for b in data["base"]):
        raise SweepError(f"{where}: base = {bounded_repr(data['base'])}: base is a config name or path, or a list "
                         f"of them")
    bad = [m for m in data.get("imports") or [] if not isinstance(m, str)]
    if bad:
        raise SweepError(f"{where}: imports = {bounded_repr(data['imports'])}: imports is a list of module names")


def _check_keys(where: str, base: str, overrides: dict, grid: dict) -> None:
    """Unknown dotted keys fail here, once; bad values fail per point (they become error rows)."""
    try:
        data = read_yaml(resolve_path(base))
        apply_overrides(data, {**overrides, **{k: v[0] for k, v in grid.items()}})
    except ConfigError as e:
        raise SweepError(f"{where}: {e}") from None


def _workload_entry(where: str, i: int, w: Any) -> dict:
    if isinstance(w, str):
        w = {"name": w}
    if not isinstance(w, dict) or "name" not in w:
        raise SweepError(f"{where}: workloads[{i}] needs a name, e.g. {{name: gemm, shape: [1024, 1024, 1024]}}")
    w = dict(w)
    name = str(w.pop("name"))
    shape = w.pop("shape", None)
    try:
        wl = get_workload(name)
        full = wl.shape(shape)
        if w:                                     # options given beside the shape: region: dram
            full = wl.shape({**full, **w})
    except SimError as e:
        raise SweepError(f"{where}: workloads[{i}]: {e}") from None
    return {"name": name, "shape": full}


# ---- running one point ------------------------------------------------------------------------------

def run_point(point: dict) -> dict:
    """One run, as a table row. Never raises for a failing run: the message goes in `error`."""
    t = time.perf_counter()
    wl = None
    row: dict[str, Any] = {"point": point["id"], "workload": point["workload"]}
    try:
        with_import_paths(point.get("import_paths", []))
        import_modules(point.get("imports", []))
        wl = get_workload(point["workload"])
        row["shape"] = format_shape(wl, point["shape"])
        row.update(point["knobs"])
        cfg = load_config(point["base"], point["overrides"])
        run = wl.execute(cfg, point["shape"], point["numerics"])
        row.update(run.report.row())
        row.update({f"check {k}": v for k, v in run.checks.items()})
        row["error"] = ""
    except Exception as e:             # a failing point is data, not a crash of the sweep
        row.setdefault("shape", json.dumps(point["shape"], default=str))
        row.update(point["knobs"])
        row["error"] = f"{type(e).__name__}: {e}"
    row["run_seconds"] = time.perf_counter() - t
    return row


# ---- executors --------------------------------------------------------------------------------------

def _local(points: list[dict], workers: int) -> Iterator[dict]:
    """Rows as they complete, from `workers` local processes (or this process when workers == 1)."""
    if workers <= 1 or len(points) <= 1:
        yield None
        for p in points:
            yield run_point(p)
        return
    pool = ProcessPoolExecutor(max_workers=min(workers, len(points)) or 1, mp_context=_mp_context(),
                               initializer=_ignore_sigint)
    pending: set[Future] = set()
    try:
        pending = {pool.submit(run_point, p) for p in points}
        yield None                     # the workers exist now: the caller may start its threads (tqdm)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                yield f.result()
    finally:
        # stopped early (Ctrl-C, an error): cancel what has not started. Cancel here rather than
        # through shutdown(cancel_futures=True), which the pool's manager thread may apply only
        # after this executor is gone, and then runs every queued point before the process can exit
        for f in pending:
            f.cancel()
        pool.shutdown(wait=False)


def _ignore_sigint() -> None:
    """Ctrl-C is the parent's to handle: it stops handing out points and keeps the finished rows."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _mp_context():
    """fork where it is safe (Linux): workers start at once and inherit the registry, even workloads
    registered in a notebook or a script without a __main__ guard. Elsewhere spawn, which re-imports
    the registering modules (each point names them)."""
    import sys
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    return multiprocessing.get_context(method)


def _dask(points: list[dict], address: str) -> Iterator[dict]:
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise SweepError("running on a Dask cluster needs dask[distributed]: pip install 'mtiasim[sweep]'") from None
    try:
        client = Client(address, timeout="10s")
    except Exception as e:
        raise SweepError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    try:
        futures = [client.submit(run_point, p, key=f"mtiasim-{p['id']}-{time.time_ns()}", pure=False)
                   for p in points]
        yield None
        try:
            for f in as_completed(futures):
                yield f.result()
        finally:
            client.cancel([f for f in futures if not f.done()])
    finally:
        client.close()


# ---- the table --------------------------------------------------------------------------------------

@dataclass
class SweepResult:
    sweep: Sweep
    rows: list[dict]                # every row of the table, the file's earlier rows included
    ran: int                        # runs done this time
    skipped: int                    # runs found in the results file already
    path: Path | None

    @property
    def errors(self) -> list[dict]:
        return [r for r in self.rows if r.get("error")]

    def columns(self) -> list[str]:
        return table_columns(self.rows, list(self.sweep.grid))

    def to_pandas(self):
        import pandas as pd
        return pd.DataFrame(self.rows, columns=self.columns())


def run_sweep(sweep: Sweep | str | Path | dict, out: str | Path | None = None, workers: int | None = None,
              scheduler: str | None = None, progress: bool = True, retry_errors: bool = False,
              on_row: Callable[[dict], None] | None = None) -> SweepResult:
    """Run every point not already in `out`; write the table to `out` (CSV, or Parquet for a
    .parquet path) after each completed run. `out` is checked, and locked against a second writer
    (`OutputBusy` names it), before the first point runs."""
    sw = sweep if isinstance(sweep, Sweep) else load_sweep(sweep)
    if out is None:
        return _run(sw, None, [], workers, scheduler, progress, retry_errors, on_row)
    path = Path(out)
    check_output(path)
    with OutputLock(path):
        for stale in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):   # left by a writer killed mid-write
            stale.unlink(missing_ok=True)
        existing = _existing_rows(path) if path.exists() else []
        return _run(sw, path, existing, workers, scheduler, progress, retry_errors, on_row)


def check_output(path: Path) -> None:
    """A results path the sweep can write: refused before any point runs, in the user's terms."""
    if path.suffix.lower() not in (".csv", ".parquet"):
        raise SweepError(f"{path}: results are written as .csv or .parquet")
    folder = path.parent
    if not folder.is_dir():
        raise SweepError(f"{path}: the folder {folder} {'is not a folder' if folder.exists() else 'does not exist'}")
    if path.is_dir():
        raise SweepError(f"{path} is a folder; the results go to a .csv or .parquet file")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise SweepError(f"{path}: cannot write in the folder {folder}")


def _existing_rows(path: Path) -> list[dict]:
    try:
        rows = read_table(path)
    except Exception as e:           # a corrupt Parquet file, a CSV that is not UTF-8 text
        raise SweepError(f"{path} exists but cannot be read as a results table ({type(e).__name__}: "
                         f"{bounded_text(str(e))}); move it away or write to another --out") from None
    if path.stat().st_size and not (rows and "point" in rows[0]):
        raise SweepError(f"{path} exists and is not a results table of a sweep (it has no 'point' column); "
                         f"move it away or write to another --out")
    return rows


def _run(sw: Sweep, path: Path | None, existing: list[dict], workers, scheduler, progress, retry_errors,
         on_row) -> SweepResult:
    done = {r.get("point") for r in existing if retry_errors is False or not r.get("error")}
    rows = [r for r in existing if r.get("point") in done]
    todo = [p for p in sw.points() if p["id"] not in done]
    skipped = len(sw.points()) - len(todo)
    knobs = list(sw.grid)
    source = _dask(todo, scheduler) if scheduler else _local(todo, workers or os.cpu_count() or 1)
    next(source)                       # start the workers before any thread of ours exists
    bar = _progress(len(todo), sw.name, progress)
    ran = 0
    try:
        for row in source:
            rows.append(row)
            ran += 1
            if path is not None:
                write_table(path, rows, knobs)
            if on_row is not None:
                on_row(row)
            if bar is not None:
                bar.update(1)
                if row.get("error"):
                    bar.set_postfix_str(f"errors: {sum(1 for r in rows if r.get('error'))}")
    finally:
        if bar is not None:
            bar.close()
        if hasattr(source, "close"):
            source.close()
    return SweepResult(sw, rows, ran, skipped, path)


def _progress(total: int, name: str, enabled: bool):
    if not enabled or total == 0:
        return None
    from tqdm import tqdm  # plain text: tqdm.auto wants ipywidgets in notebooks
    return tqdm(total=total, desc=f"sweep {name}", unit="run", mininterval=0.5)


def table_columns(rows: list[dict], knobs: list[str]) -> list[str]:
    """Ids first, then the knobs, then every other column in first-seen order, error last."""
    cols = list(META_COLUMNS) + [k for k in knobs if k not in META_COLUMNS]
    seen = set(cols)
    rest = []
    for r in rows:
        for k in r:
            if k not in seen:
                seen.add(k)
                rest.append(k)
    tail = [c for c in ("error",) if c in rest]
    return cols + [c for c in rest if c not in tail] + tail


def write_table(path: Path, rows: list[dict], knobs: list[str]) -> None:
    """Write all rows atomically: a reader (or an interrupt) never sees half a file."""
    cols = table_columns(rows, knobs)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        _write_rows(path, tmp, rows, cols)
    except OSError as e:                  # the disk is full, the folder was removed
        tmp.unlink(missing_ok=True)
        raise SweepError(f"cannot write the results to {path}: {e.strerror or e}") from None
    os.replace(tmp, path)


def _write_rows(path: Path, tmp: Path, rows: list[dict], cols: list[str]) -> None:
    if path.suffix.lower() == ".parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise SweepError(f"{path}: writing Parquet needs pyarrow (pip install pyarrow), or use .csv") from None
        table = pa.table({c: _column(rows, c) for c in cols})
        pq.write_table(table, tmp)
    else:
        with open(tmp, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
            w.writeheader()
            for r in rows:
                w.writerow({k: _cell(v) for k, v in r.items()})


def _cell(v):
    if isinstance(v, (tuple, list, dict)):
        return json.dumps(v)
    return v


def _column(rows: list[dict], col: str) -> list:
    """One Parquet column: numbers stay numbers when every value is one, else text."""
    vals = [r.get(col) for r in rows]
    present = [v for v in vals if v is not None and v != ""]
    if present and all(isinstance(v, bool) for v in present):
        return [None if v in (None, "") else bool(v) for v in vals]
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return [None if v in (None, "") else float(v) for v in vals]
    return [None if v is None else (json.dumps(v) if isinstance(v, (list, tuple, dict)) else str(v)) for v in vals]


def read_table(path: str | Path) -> list[dict]:
    """Rows of a results file (CSV values come back as numbers where they parse as numbers)."""
    path = Path(path)
    if path.suffix.lower() == ".parquet":
        import pyarrow.parquet as pq
        return pq.read_table(path).to_pylist()
    with open(path, newline="") as f:
        return [{k: (v if k in TEXT_COLUMNS else _parse(v)) for k, v in r.items()} for r in csv.DictReader(f)]


def _parse(v: str):
    if v is None or v == "":
        return v
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return v


def comparable(rows: Iterable[dict], ignore: Iterable[str] = WALL_COLUMNS) -> list[dict]:
    """Rows without wall-time columns, sorted by point: what must match between two runs of a sweep."""
    skip = set(ignore)
    return sorted(({k: v for k, v in r.items() if k not in skip} for r in rows), key=lambda r: str(r["point"]))
