"""`mtiasim`: simulate kernels on an MTIA config from the command line.

    mtiasim run gemm --shape 2048 2048 2048          simulate a workload, print its report
    mtiasim workloads                                 what `run`, `trace`, `roofline` and sweeps can run
    mtiasim configs                                   the hardware configs (and sweep files)
    mtiasim sweep configs/sweeps/dram-x-ls.yaml --out results.csv
    mtiasim trace softmax -o trace.json --pes 0,1     a Perfetto timeline
    mtiasim roofline gemm softmax:4096x1024 --config mtia-2i --config mtia-v1 -o roofline.png
    mtiasim bench                                     time the simulator itself

Every command takes --help, --config NAME|PATH and --json. Errors print one line to stderr and
exit 1 (a bad config, a run that fails) or 2 (bad usage: unknown workload, bad shape).

A subcommand is a function decorated with `@command(name, help, configure)`: `configure` adds its
arguments to an argparse parser, the function gets the parsed arguments and returns the exit code.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .config import CONFIG_DIR, DEFAULT_CONFIG, load_config
from .errors import ConfigError, SimError


class UsageError(Exception):
    """Bad command-line usage: exit code 2."""


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


COMMANDS: dict[str, Command] = {}


def command(name: str, help: str, configure: Callable[[argparse.ArgumentParser], None]):
    """Register a subcommand (see the module docstring)."""
    def deco(fn):
        COMMANDS[name] = Command(name, help, configure, fn)
        return fn
    return deco


# ---- shared arguments ---------------------------------------------------------------------------

def _config_arg(p, repeat: bool = False) -> None:
    if repeat:
        p.add_argument("--config", action="append", metavar="NAME|PATH",
                       help=f"config name in configs/ or a YAML path; repeat to compare (default {DEFAULT_CONFIG})")
    else:
        p.add_argument("--config", default=DEFAULT_CONFIG, metavar="NAME|PATH",
                       help=f"config name in configs/ or a YAML path (default {DEFAULT_CONFIG})")


def _json_arg(p) -> None:
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _set_arg(p) -> None:
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config value by dotted key, e.g. --set dram.bandwidth_gbps=409.6 (repeatable)")


def _workload_args(p, default_numerics: bool = True) -> None:
    p.add_argument("workload", help="a workload name (see `mtiasim workloads`)")
    p.add_argument("--shape", nargs="+", metavar="N",
                   help="the workload's dims in order (2048 2048 2048, or 2048x2048x2048), or NAME=VALUE items")
    p.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE",
                   help="set a workload option, e.g. -p region=dram (repeatable)")
    p.add_argument("--region", choices=("sram", "dram"), help="where the operands live (workloads with a region)")
    if default_numerics:
        p.add_argument("--timing-only", action="store_true", help="skip the bulk math (same cycles, faster)")


def _overrides(items: list[str]) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--set {item!r}: expected KEY=VALUE, e.g. dram.bandwidth_gbps=409.6")
        out[key.strip()] = _scalar(value.strip())
    return out


def _scalar(text: str):
    import yaml
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def _config(name: str, sets: list[str] | None = None):
    return load_config(name, _overrides(sets or []) or None)


def _workload_and_shape(name: str, shape_tokens, params: list[str], region: str | None):
    from .workloads import get_workload
    w = get_workload(name)
    shape = w.shape(" ".join(shape_tokens) if shape_tokens else None)
    extra = {}
    for item in params:
        k, sep, v = item.partition("=")
        if not sep:
            raise UsageError(f"-p {item!r}: expected NAME=VALUE")
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
    _config_arg(p)
    _set_arg(p)
    _json_arg(p)


@command("run", "simulate a workload and print its report", _run_args)
def cmd_run(a) -> int:
    if a.workload.endswith(".py"):             # a user's script of Triton launches
        from compiler.cli import run_script_command
        a.target, a.args = a.workload, []
        return run_script_command(a)
    w, shape = _workload_and_shape(a.workload, a.shape, a.param, a.region)
    cfg = _config(a.config, a.set)
    run = w.execute(cfg, shape, numerics=not a.timing_only)
    if a.json:
        print(run.report.to_json(indent=2))
        return 0
    print(run.report)
    for name, err in run.checks.items():
        print(f"  check       {name} = {err:.3g} against numpy")
    return 0


# ---- workloads and configs ----------------------------------------------------------------------

def _workloads_args(p) -> None:
    _json_arg(p)


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
    _json_arg(p)


@command("configs", "list the hardware configs and sweep files (or show one config)", _configs_args)
def cmd_configs(a) -> int:
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
    import yaml
    try:
        return str((yaml.safe_load(path.read_text()) or {}).get("description", ""))
    except Exception:
        return "(unreadable)"


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
    _json_arg(p)


@command("sweep", "run workloads over a grid of config overrides into one table", _sweep_args)
def cmd_sweep(a) -> int:
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
            row.update({"us": r["seconds"] * 1e6, "% of roof": 100 * r["roofline_fraction"], "bound": r["bound"]})
        rows.append(row)
    rows.sort(key=lambda r: tuple(str(r.get(k)) for k in ["workload", "shape"]) +
              tuple(float(r[k]) if isinstance(r.get(k), (int, float)) else 0 for k in knobs))
    return format_table(rows, ["workload", "shape", *knobs, "us", "% of roof", "bound", "result"])


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
    _config_arg(p)
    _set_arg(p)
    _json_arg(p)


@command("trace", "simulate a workload and write a Perfetto / chrome://tracing timeline", _trace_args)
def cmd_trace(a) -> int:
    from .machine import Machine
    from .trace import Tracer
    w, shape = _workload_and_shape(a.workload, a.shape, a.param, a.region)
    cfg = _config(a.config, a.set)
    pes = _pe_list(a.pes, cfg.num_pes)
    if a.max_events < 100:
        raise UsageError(f"--max-events {a.max_events}: keep at least 100")
    tracer = Tracer(pes=pes, max_events=a.max_events, counters=not a.no_counters, flows=not a.no_flows)
    report = w(Machine(cfg, numerics=not a.timing_only, trace=tracer), shape, not a.timing_only)
    info = tracer.save(a.out)
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
            if "-" in part:
                lo, hi = part.split("-")
                pes.update(range(int(lo), int(hi) + 1))
            elif part:
                pes.add(int(part))
        except ValueError:
            raise UsageError(f"--pes {text!r}: give PE numbers like 0,1 or 0-7") from None
    bad = sorted(p for p in pes if not 0 <= p < npes)
    if bad:
        raise UsageError(f"--pes: PE(s) {bad} do not exist (the config has PEs 0-{npes - 1})")
    return pes


# ---- roofline -----------------------------------------------------------------------------------

def _roofline_args(p) -> None:
    p.add_argument("runs", nargs="*", metavar="WORKLOAD[:SHAPE]",
                   help="workloads to place, e.g. gemm:2048x2048x2048 softmax:R=4096,C=1024 (default: every "
                        "workload at its quick shape)")
    p.add_argument("-o", "--out", default="roofline.png", help="chart file, .png, .svg or .pdf (default roofline.png)")
    p.add_argument("--utilization", metavar="PATH", help="also draw engine utilisation per run to PATH")
    p.add_argument("--numerics", action="store_true", help="compute the results too (default: timing only)")
    _config_arg(p, repeat=True)
    _set_arg(p)
    _json_arg(p)


@command("roofline", "run workloads on one or more configs and draw them on a roofline chart", _roofline_args)
def cmd_roofline(a) -> int:
    from .plots import SAVE_FORMATS, roofline_chart, utilization_chart
    from .workloads import format_shape, get_workload, workloads
    for path in filter(None, [a.out, a.utilization]):
        if Path(path).suffix.lower() not in SAVE_FORMATS:
            raise UsageError(f"{path}: a chart is saved as {', '.join(SAVE_FORMATS)}")
    configs = [_config(c, a.set) for c in (a.config or [DEFAULT_CONFIG])]
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
    chart.save(a.out)
    if a.utilization:
        utilization_chart([(f"{lbl} on {r.config}", r) for lbl, r in runs]).save(a.utilization)
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
                     "% of roof": round(100 * p["y"] / p["roof_y"], 1) if p["plotted"] and p["roof_y"] else None,
                     "bound": p["bound"], "note": "" if p["plotted"] else "no FLOPs: not on the chart"})
    return format_table(rows, ["run", "config", "FLOP/B", "achieved", "roof here", "% of roof", "bound", "note"])


# ---- bench --------------------------------------------------------------------------------------

def _bench_args(p) -> None:
    p.add_argument("--size", type=int, default=2048)
    p.add_argument("--compile", action="store_true",
                   help="instead, time compiling every library kernel (frontend and MTIA backend)")
    _config_arg(p)
    _json_arg(p)


@command("bench", "time the simulator on the 2048^3 GEMM against a plain SimPy loop", _bench_args)
def cmd_bench(a) -> int:
    if a.compile:
        from compiler.bench import compile_times, format_compile_times
        rows = compile_times(a.config)
        print(json.dumps(rows, indent=2) if a.json else format_compile_times(rows))
        return 0
    from .bench import format_bench, run_bench
    b = run_bench(a.config, a.size)
    print(json.dumps(b, indent=2) if a.json else format_bench(b))
    return 0


# ---- entry point --------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    try:
        import compiler.cli  # noqa: F401  (registers `compile`; `run` takes scripts through it)
    except ImportError:        # the simulator alone still works without the compiler
        pass
    p = argparse.ArgumentParser(prog="mtiasim", description="A cycle-approximate MTIA simulator and Triton compiler.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for c in COMMANDS.values():
        sp = sub.add_parser(c.name, help=c.help, description=c.help)
        c.configure(sp)
        sp.set_defaults(fn=c.run)
    return p


def main(argv: list[str] | None = None) -> int:
    from .sweep import SweepError
    from .workloads import WorkloadError
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.fn(args)
    except (UsageError, WorkloadError) as e:
        _error(e)
        return 2
    except (ConfigError, SweepError) as e:
        _error(e)
        return 1
    except SimError as e:                     # a run that fails: keep its full report (deadlocks)
        print(f"mtiasim: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mtiasim: interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        if type(e).__name__ in ("CompilationError", "KernelRuntimeError", "OutOfBoundsError",
                                "DeviceAssertionError") or isinstance(e, FileNotFoundError):
            print(f"mtiasim: {e}", file=sys.stderr)        # a kernel that does not compile or run
            return 1
        if os.environ.get("MTIASIM_DEBUG"):
            raise
        print(f"mtiasim: internal error: {type(e).__name__}: {e} (set MTIASIM_DEBUG=1 for the traceback)",
              file=sys.stderr)
        return 1
    except (OSError, ValueError) as e:        # unwritable output file, a bad value passed along
        _error(e)
        return 1


def _error(e: Exception) -> None:
    """One line: multi-line messages (a config with several bad keys) are joined."""
    text = ""
    for line in (ln.strip() for ln in str(e).splitlines()):
        if line:
            text += ("" if not text else " " if text.endswith(":") else "; ") + line
    print(f"mtiasim: {text}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
