"""The built-in commands of `mtiasim` (see simulator/cli.py for the registry and how errors exit).

Each is a `configure(parser)` function and a `@command` function of the parsed arguments. This
module imports only the standard library at the top: what a command needs is imported when it runs,
so listing the commands (`mtiasim --help`) stays fast.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from .cli import UsageError, command, config_arg, config_from_args, json_arg, output_path, plugin, \
    plugins_with_prefix, set_arg

# ---- workload arguments (run, trace) ------------------------------------------------------------

def _workload_args(p, default_numerics: bool = True) -> None:
    p.add_argument("workload", help="a workload name (see `mtiasim workloads`)")
    p.add_argument("--shape", nargs="+", metavar="N",
                   help="the workload's dims in order (2048 2048 2048, or 2048x2048x2048), or NAME=VALUE items")
    p.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE",
                   help="set a workload option, e.g. -p region=dram (repeatable)")
    p.add_argument("--region", choices=("sram", "dram"), help="where the operands live (workloads with a region)")
    if default_numerics:
        p.add_argument("--timing-only", action="store_true", help="skip the bulk math (same cycles, faster)")


def _workload_and_shape(name: str, shape_tokens, params: list[str], region: str | None):
    from .workloads import get_workload
    w = get_workload(name)
    shape = w.shape(" ".join(shape_tokens) if shape_tokens else None)
    extra = {}
    for item in params:
        k, sep, v = item.partition("=")
        if not sep:
            raise UsageError(f"-p {item[:200]!r}: expected NAME=VALUE")
        extra[k] = v
    if region is not None:
        if "region" not in w.default_shape:
            raise UsageError(f"workload {name} has no region option (its parameters: "
                             f"{', '.join(w.default_shape)})")
        extra["region"] = region
    if extra:
        shape = w.shape({**shape, **extra})
    return w, shape


# ---- run ----------------------------------------------------------------------------------------

def _run_args(p) -> None:
    _workload_args(p)
    p.add_argument("args", nargs="*", help="a script's arguments (after --: `mtiasim run s.py -- 512`)")
    config_arg(p)
    set_arg(p)
    json_arg(p)


@command("run", "simulate a workload and print its report", _run_args)
def cmd_run(a) -> int:
    if a.workload.endswith(".py"):             # a user's script of Triton launches
        return _run_script(a)
    if a.args:
        raise UsageError(f"{' '.join(a.args)[:200]}: arguments after the workload are for scripts (.py); "
                         f"a library workload takes --shape and -p")
    w, shape = _workload_and_shape(a.workload, a.shape, a.param, a.region)
    cfg = config_from_args(a.config, a.set)
    run = w.execute(cfg, shape, numerics=not a.timing_only)
    if a.json:
        print(run.report.to_json(indent=2))
        return 0
    print(run.report)
    for name, err in run.checks.items():
        print(f"  check       {name} = {err:.3g} against numpy")
    return 0


def _run_script(a) -> int:
    given = [flag for flag, v in (("--shape", a.shape), ("-p", a.param), ("--region", a.region),
                                  ("--timing-only", a.timing_only)) if v]
    if given:
        raise UsageError(f"{', '.join(given)}: for library workloads only; the script {a.workload} makes its own "
                         f"arrays and launches")
    runner = plugin("run.script")
    if runner is None:
        raise UsageError(f"{a.workload}: running a script of Triton launches needs the compiler package "
                         f"(its `run.script` entry point in the mtiasim.commands group)")
    return runner.run(a)


# ---- workloads and configs ----------------------------------------------------------------------

def _workloads_args(p) -> None:
    json_arg(p)


@command("workloads", "list the workloads run, trace, roofline and sweeps can use", _workloads_args)
def cmd_workloads(a) -> int:
    from .tables import format_table
    from .workloads import describe_params, format_shape, workloads
    ws = workloads()
    if a.json:
        print(json.dumps({n: {"dims": list(w.dims), "default_shape": w.default_shape, "quick_shape": w.quick_shape,
                              "description": w.description, "module": w.module} for n, w in ws.items()}, indent=2))
        return 0
    rows = [{"workload": n, "shape": " ".join(w.dims) + " = " + format_shape(w, w.default_shape),
             "options": describe_params(w).partition("; options ")[2], "description": w.description}
            for n, w in ws.items()]
    print(format_table(rows, ["workload", "shape", "options", "description"]))
    return 0


def _configs_args(p) -> None:
    p.add_argument("--config", metavar="NAME|PATH", help="show every value of one config instead of the list")
    json_arg(p)


@command("configs", "list the hardware configs and sweep files (or show one config)", _configs_args)
def cmd_configs(a) -> int:
    from .config import CONFIG_DIR, load_config
    from .tables import format_table
    if a.config:
        cfg = load_config(a.config)
        print(json.dumps(cfg.model_dump(), indent=2) if a.json else _config_text(cfg))
        return 0
    rows = []
    for path in sorted(CONFIG_DIR.glob("*.yaml")):
        cfg = load_config(path)
        rows.append({"config": cfg.name, "clock GHz": cfg.clock_ghz, "grid": f"{cfg.grid.rows}x{cfg.grid.cols}",
                     "DPE f16 TFLOP/s": round(cfg.dpe_peak_flops("f16") / 1e12, 1)
                     if "f16" in cfg.pe.dpe.macs_per_cycle else None,
                     "LS KiB": cfg.pe.local_store_kib, "SRAM MiB": cfg.sram.size_mib, "SRAM GB/s": cfg.sram.gbps,
                     "DRAM GB/s": cfg.dram.bandwidth_gbps, "path": str(path.relative_to(CONFIG_DIR.parent))})
    sweeps = [{"sweep": p.stem, "path": str(p.relative_to(CONFIG_DIR.parent)), "description": _sweep_description(p)}
              for p in sorted((CONFIG_DIR / "sweeps").glob("*.yaml"))]
    if a.json:
        print(json.dumps({"configs": rows, "sweeps": sweeps}, indent=2))
        return 0
    print(format_table(rows, list(rows[0]) if rows else ["config"]))
    if sweeps:
        print("\nsweeps (mtiasim sweep PATH):")
        print(format_table(sweeps, ["sweep", "path", "description"]))
    return 0


def _sweep_description(path: Path) -> str:
    from .config import read_text
    from .errors import ConfigError
    from .user_yaml import load_yaml
    try:
        data = load_yaml(read_text(path, ConfigError), str(path), ConfigError)
    except ConfigError as e:
        return f"(unreadable: {str(e).splitlines()[0][:80]})"
    return str(data.get("description", ""))[:200] if isinstance(data, dict) else "(not a sweep: no mapping)"


def _config_text(cfg) -> str:
    lines = [f"{cfg.name}"]

    def walk(d: dict, prefix: str):
        for k, v in d.items():
            if isinstance(v, dict):
                walk(v, f"{prefix}{k}.")
            else:
                lines.append(f"  {prefix}{k} = {v}")
    walk({k: v for k, v in cfg.model_dump().items() if k != "name"}, "")
    return "\n".join(lines)


# ---- sweep --------------------------------------------------------------------------------------

def _sweep_args(p) -> None:
    p.add_argument("sweep", help="a sweep YAML file (see configs/sweeps/)")
    p.add_argument("--out", "-o", help="results table, .csv or .parquet (default: <sweep name>.csv); runs "
                                       "already in it are skipped")
    p.add_argument("--workers", type=int, help="local processes (default: every core; 1 = this process)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask cluster, e.g. tcp://10.0.0.5:8786")
    p.add_argument("--retry-errors", action="store_true", help="run again the points that failed last time")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--config", metavar="NAME|PATH", help="replace the sweep's base config")
    json_arg(p)


@command("sweep", "run workloads over a grid of config overrides into one table", _sweep_args)
def cmd_sweep(a) -> int:
    from .config import load_config
    from .sweep import load_sweep, run_sweep
    if a.workers is not None and a.workers < 1:
        raise UsageError(f"--workers {a.workers}: give 1 or more")
    sw = load_sweep(a.sweep)
    if a.config:
        load_config(a.config)                     # fail here, once, if the name is wrong
        sw.base = a.config
    out = Path(a.out) if a.out else Path(f"{sw.name}.csv")
    try:
        res = run_sweep(sw, out, workers=a.workers, scheduler=a.scheduler, progress=not a.no_progress,
                        retry_errors=a.retry_errors)
    except KeyboardInterrupt:
        print(f"mtiasim sweep: interrupted; finished runs are in {out}; run the same command again to "
              f"continue", file=sys.stderr)
        return 130
    if a.json:
        print(json.dumps({"out": str(out), "ran": res.ran, "skipped": res.skipped, "errors": len(res.errors),
                          "rows": res.rows}, default=str, indent=2))
        return 0
    print(_sweep_table(res))
    print(f"\n{len(res.rows)} rows in {out}: {res.ran} run now, {res.skipped} already there, "
          f"{len(res.errors)} with errors")
    return 0


def _sweep_table(res) -> str:
    from .tables import format_table
    knobs = list(res.sweep.grid)
    ids = {p["id"] for p in res.sweep.points()}
    rows = []
    for r in res.rows:
        if r.get("point") not in ids:
            continue
        row = {k: r.get(k) for k in ["workload", "shape", *knobs]}
        if r.get("error"):
            row["result"] = "error: " + str(r["error"]).splitlines()[0][:100]
        else:
            row.update({"us": r["seconds"] * 1e6, "% of roof": 100 * r["roofline_fraction"],
                        "% of compulsory": _percent(r.get("compulsory_fraction")), "bound": r["bound"]})
        rows.append(row)
    rows.sort(key=lambda r: tuple(str(r.get(k)) for k in ["workload", "shape"]) +
              tuple(float(r[k]) if isinstance(r.get(k), (int, float)) else 0 for k in knobs))
    return format_table(rows, ["workload", "shape", *knobs, "us", "% of roof", "% of compulsory", "bound", "result"])


def _percent(fraction) -> float | None:
    """A fraction as a percentage; None (an empty cell) where the run had no such figure."""
    if not isinstance(fraction, (int, float)) or math.isnan(fraction):
        return None
    return round(100 * fraction, 1)


# ---- trace --------------------------------------------------------------------------------------

def _trace_args(p) -> None:
    from .trace import DEFAULT_MAX_EVENTS
    _workload_args(p)
    p.add_argument("-o", "--out", default="trace.json", help="trace file (default trace.json)")
    p.add_argument("--pes", help="only these PEs, e.g. 0,1 or 0-7 (default: all)")
    p.add_argument("--max-events", type=int, default=DEFAULT_MAX_EVENTS,
                   help=f"cap on events kept; past it the trace is sampled (default {DEFAULT_MAX_EVENTS:,})")
    p.add_argument("--no-counters", action="store_true", help="leave out CB occupancy and DMA bandwidth counters")
    p.add_argument("--no-flows", action="store_true",
                   help="leave out the arrows from each CB slot's writer to the commands that read it")
    config_arg(p)
    set_arg(p)
    json_arg(p)


@command("trace", "simulate a workload and write a Perfetto / chrome://tracing timeline", _trace_args)
def cmd_trace(a) -> int:
    from .machine import Machine
    from .trace import Tracer
    output_path(a.out, "trace", "trace.json")
    if a.max_events < 100:
        raise UsageError(f"--max-events {a.max_events}: keep at least 100")
    w, shape = _workload_and_shape(a.workload, a.shape, a.param, a.region)
    cfg = config_from_args(a.config, a.set)
    pes = _pe_list(a.pes, cfg.num_pes)
    tracer = Tracer(pes=pes, max_events=a.max_events, counters=not a.no_counters, flows=not a.no_flows)
    report = w(Machine(cfg, numerics=not a.timing_only, trace=tracer), shape, not a.timing_only)
    info = _written(a.out, lambda: tracer.save(a.out))
    if a.json:
        print(json.dumps({"out": a.out, **info, "cycles": report.cycles, "commands": report.commands}, indent=2))
        return 0
    sampled = (f"; over the cap of {a.max_events:,}, so every {info['sampling_stride']}th event was kept"
               if info["truncated"] else "")
    print(f"{report.kernel} on {cfg.name}: {report.cycles:,.0f} cycles, {report.commands:,} commands")
    print(f"wrote {a.out}: {info['commands_seen']:,} commands on {len(info['pes_traced'])} PE(s), "
          f"{info['events_kept']:,} of {info['events_recorded']:,} events, {info['flows']:,} data arrows{sampled}")
    print("open it at https://ui.perfetto.dev (or chrome://tracing)")
    return 0


def _pe_list(text: str | None, npes: int):
    if not text:
        return None
    pes = set()
    for part in text.split(","):
        part = part.strip()
        try:
            lo, _, hi = part.partition("-")
            lo, hi = int(lo), int(hi or lo)
        except ValueError:
            raise UsageError(f"--pes {text[:100]!r}: give PE numbers like 0,1 or 0-7") from None
        bad = sorted({p for p in (lo, hi) if not 0 <= p < npes})    # before expanding: 0-1000000000 is no list
        if bad:
            raise UsageError(f"--pes: PE(s) {bad} do not exist (the config has PEs 0-{npes - 1})")
        if hi < lo:
            raise UsageError(f"--pes {part}: a range goes up, e.g. {hi}-{lo}")
        pes.update(range(lo, hi + 1))
    return pes


def _written(path: str, write):
    """What `write()` returns; an OSError while writing the user's output (a full disk) named as such."""
    from .errors import OutputError
    try:
        return write()
    except OSError as e:
        raise OutputError(f"cannot write {path}: {e.strerror or e}") from None


# ---- roofline -----------------------------------------------------------------------------------

def _roofline_args(p) -> None:
    p.add_argument("runs", nargs="*", metavar="WORKLOAD[:SHAPE]",
                   help="workloads to place, e.g. gemm:2048x2048x2048 softmax:R=4096,C=1024 (default: every "
                        "workload at its quick shape)")
    p.add_argument("-o", "--out", default="roofline.png", help="chart file, .png, .svg or .pdf (default roofline.png)")
    p.add_argument("--utilization", metavar="PATH", help="also draw engine utilisation per run to PATH")
    p.add_argument("--numerics", action="store_true", help="compute the results too (default: timing only)")
    config_arg(p, repeat=True)
    set_arg(p)
    json_arg(p)


@command("roofline", "run workloads on one or more configs and draw them on a roofline chart", _roofline_args)
def cmd_roofline(a) -> int:
    from .config import DEFAULT_CONFIG
    from .plots import SAVE_FORMATS, roofline_chart, utilization_chart
    from .workloads import format_shape, get_workload, workloads
    for path in filter(None, [a.out, a.utilization]):
        output_path(path, "chart", "roofline.png", SAVE_FORMATS)
    configs = [config_from_args(c, a.set) for c in (a.config or [DEFAULT_CONFIG])]
    specs = []
    for item in a.runs or [f"{n}" for n in workloads()]:
        name, _, shape_text = item.partition(":")
        w = get_workload(name)
        specs.append((w, w.shape(shape_text) if shape_text else w.quick_shape))
    repeated = {w.name for w, _ in specs if sum(1 for v, _ in specs if v.name == w.name) > 1}
    runs = []
    for cfg in configs:
        for w, shape in specs:
            label = f"{w.name} {format_shape(w, shape)}" if w.name in repeated else w.name
            runs.append((label, w(cfg, shape, a.numerics)))
    chart = roofline_chart(runs, configs=configs)
    _written(a.out, lambda: chart.save(a.out))
    if a.utilization:
        util = utilization_chart([(f"{lbl} on {r.config}", r) for lbl, r in runs])
        _written(a.utilization, lambda: util.save(a.utilization))
    if a.json:
        print(json.dumps({"out": a.out, "points": chart.points, "roofs": chart.roofs}, default=str, indent=2))
        return 0
    print(_points_table(chart.points))
    print(f"\nwrote {a.out}" + (f" and {a.utilization}" if a.utilization else ""))
    return 0


def _points_table(points) -> str:
    from .tables import format_table, si
    rows = []
    for p in points:
        rows.append({"run": p["label"], "config": p["config"],
                     "FLOP/B": "inf (no DRAM)" if math.isinf(p["x"]) else f"{p['x']:.3g}",
                     "achieved": si(p["y"], "FLOP/s"), "roof here": si(p["roof_y"], "FLOP/s") if p["plotted"] else "",
                     "% of roof": round(100 * p["fraction"], 1),
                     "% of compulsory": _percent(p["compulsory_fraction"]),
                     "bound": p["bound"], "note": "" if p["plotted"] else "no FLOPs: not on the chart"})
    return format_table(rows, ["run", "config", "FLOP/B", "achieved", "roof here", "% of roof", "% of compulsory",
                               "bound", "note"])


# ---- bench --------------------------------------------------------------------------------------

def _bench_args(p) -> None:
    p.add_argument("--size", type=int, default=2048, help="the GEMM's M = N = K, a multiple of 256 (default 2048)")
    p.add_argument("--startup", action="store_true",
                   help="instead, time `mtiasim --help` against `python -c 'import numpy'`, side by side")
    for mode in plugins_with_prefix("bench."):           # modes other packages add: --compile
        p.add_argument(f"--{mode}", action="store_true", help=plugin(f"bench.{mode}").help)
    config_arg(p)
    json_arg(p)


@command("bench", "time the simulator on the 2048^3 GEMM against a plain SimPy loop", _bench_args)
def cmd_bench(a) -> int:
    if a.startup:
        from .bench_startup import format_startup, startup_times
        b = startup_times()
        print(json.dumps(b, indent=2) if a.json else format_startup(b))
        return 0
    for mode in plugins_with_prefix("bench."):
        if getattr(a, mode.replace("-", "_"), False):
            return plugin(f"bench.{mode}").run(a)
    if a.size < 256 or a.size % 256:
        raise UsageError(f"--size {a.size}: the benchmark GEMM takes a multiple of 256 (its 256x256 tiles)")
    from .bench import format_bench, run_bench
    b = run_bench(a.config, a.size)
    print(json.dumps(b, indent=2) if a.json else format_bench(b))
    return 0


