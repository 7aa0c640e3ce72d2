"""`mtiasim trace`: simulate a workload and write a Perfetto / chrome://tracing timeline."""
from __future__ import annotations

import json

from ..cli import UsageError, command, config_arg, config_from_args, json_arg, output_path, set_arg
from .common import workload_and_shape, workload_args, written


def _trace_args(p) -> None:
    from simulator.trace import DEFAULT_MAX_EVENTS
    workload_args(p)
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
    from simulator.machine import Machine
    from simulator.trace import Tracer
    output_path(a.out, "trace", "trace.json")
    if a.max_events < 100:
        raise UsageError(f"--max-events {a.max_events}: keep at least 100")
    w, shape = workload_and_shape(a.workload, a.shape, a.param, a.region)
    cfg = config_from_args(a.config, a.set)
    pes = _pe_list(a.pes, cfg.num_pes)
    tracer = Tracer(pes=pes, max_events=a.max_events, counters=not a.no_counters, flows=not a.no_flows)
    report = w(Machine(cfg, numerics=not a.timing_only, trace=tracer), shape, not a.timing_only)
    info = written(a.out, lambda: tracer.save(a.out))
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

