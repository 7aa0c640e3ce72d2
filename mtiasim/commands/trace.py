"""`mtiasim trace`: simulate a workload, or the kernels a user's script launches, and write a Perfetto /
chrome://tracing timeline (each command's kernel source line in its args); `--summary` also prints
the top stalls by source line.

    mtiasim trace softmax -o trace.json --pes 0,1
    mtiasim trace my_kernels.py --summary -- ARGS
"""
from __future__ import annotations

import json

from ..cli import UsageError, command, config_arg, config_from_args, json_arg, output_path, set_arg
from .common import workload_and_shape, workload_args, written


def _trace_args(p) -> None:
    from simulator.trace import DEFAULT_MAX_EVENTS
    workload_args(p)
    p.add_argument("args", nargs="*", help="a script's arguments (after --: `mtiasim trace s.py -- 512`)")
    p.add_argument("--summary", action="store_true",
                   help="also print the top stalls by kernel source line")
    p.add_argument("--top", type=int, default=10, help="lines in the --summary (default 10)")
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


@command("trace", "simulate a workload or a script's kernels and write a Perfetto / chrome://tracing timeline",
         _trace_args)
def cmd_trace(a) -> int:
    from simulator.machine import Machine
    from simulator.trace import Tracer

    from ..trace_summary import format_summary
    output_path(a.out, "trace", "trace.json")
    if a.max_events < 100:
        raise UsageError(f"--max-events {a.max_events}: keep at least 100")
    if a.top < 1:
        raise UsageError(f"--top {a.top}: show at least 1 line")
    script = a.workload.endswith(".py")
    if not script and a.args:
        raise UsageError(f"{' '.join(a.args)[:200]}: arguments after the workload are for scripts (.py); "
                         f"a library workload takes --shape and -p")
    cfg = config_from_args(a.config, a.set)
    pes = _pe_list(a.pes, cfg.num_pes)
    tracer = Tracer(pes=pes, max_events=a.max_events, counters=not a.no_counters, flows=not a.no_flows)
    if script:
        reports = _trace_script(a, cfg, Machine(cfg, trace=tracer))
    else:
        w, shape = workload_and_shape(a.workload, a.shape, a.param, a.region)
        reports = [w(Machine(cfg, numerics=not a.timing_only, trace=tracer), shape, not a.timing_only)]
    info = written(a.out, lambda: tracer.save(a.out))
    lines = tracer.by_source_line()
    if a.json:
        out = {"out": a.out, **info, "cycles": sum(r.cycles for r in reports),
               "commands": sum(r.commands for r in reports)}
        if a.summary:
            from ..trace_summary import summary_rows
            out["stalls_by_line"] = summary_rows(lines, a.top)
        print(json.dumps(out, indent=2))
        return 0
    sampled = (f"; over the cap of {a.max_events:,}, so every {info['sampling_stride']}th event was kept"
               if info["truncated"] else "")
    if not reports:
        print(f"{a.workload} launched no kernels")
    for report in reports:
        print(f"{report.kernel} on {cfg.name}: {report.cycles:,.0f} cycles, {report.commands:,} commands")
    if a.summary and lines:
        print(format_summary(lines, a.top, len(info["pes_traced"])))
    print(f"wrote {a.out}: {info['commands_seen']:,} commands on {len(info['pes_traced'])} PE(s), "
          f"{info['events_kept']:,} of {info['events_recorded']:,} events, {info['flows']:,} data arrows{sampled}")
    print("open it at https://ui.perfetto.dev (or chrome://tracing)")
    return 0


def _trace_script(a, cfg, machine) -> list:
    """Run a user's script with every launch on `machine` (its tracer records them); their reports.
    The script's own prints go to stderr under --json, so stdout stays JSON."""
    import contextlib
    import sys
    from pathlib import Path

    from simulator import use_config

    from ..script_runs import run_script
    given = [flag for flag, v in (("--shape", a.shape), ("-p", a.param), ("--region", a.region),
                                  ("--timing-only", a.timing_only)) if v]
    if given:
        raise UsageError(f"{', '.join(given)}: for library workloads only; the script {a.workload} makes its own "
                         f"arrays and launches")
    if not Path(a.workload).is_file():
        raise UsageError(f"{a.workload} is a folder, not a script" if Path(a.workload).is_dir() else
                         f"no such script: {a.workload}")
    quiet = contextlib.redirect_stdout(sys.stderr) if a.json else contextlib.nullcontext()
    with use_config(cfg), quiet:
        launches = run_script(a.workload, a.args, machine=machine)
    return [ln.record.report for ln in launches if ln.record is not None]


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

