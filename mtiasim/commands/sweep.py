"""`mtiasim sweep`: run a sweep file's grid of config overrides x workloads into one table
(the sweep itself is mtiasim/sweep.py)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..cli import UsageError, command, json_arg
from .common import percent


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
    from simulator.config import load_config

    from ..sweep import load_sweep, run_sweep
    if a.workers is not None and a.workers < 1:
        raise UsageError(f"--workers {a.workers}: give 1 or more")
    sw = load_sweep(a.sweep)
    if a.config:
        load_config(a.config)                     # fail here, once, if the name is wrong
        sw.base, sw.bases = a.config, [a.config]
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
    print(sweep_table(res))
    print(f"\n{len(res.rows)} rows in {out}: {res.ran} run now, {res.skipped} already there, "
          f"{len(res.errors)} with errors")
    return 0


def sweep_table(res) -> str:
    from ..tables import format_table
    knobs = (["config"] if len(res.sweep.bases) > 1 else []) + list(res.sweep.grid)   # several bases: say which
    ids = {p["id"] for p in res.sweep.points()}
    rows = []
    for r in res.rows:
        if r.get("point") not in ids:
            continue
        row = {k: r.get(k) for k in ["workload", "shape", *knobs]}
        if r.get("error"):
            row["result"] = "error: " + first_clause(str(r["error"]))
        else:
            row.update({"us": r["seconds"] * 1e6, "% of roof": 100 * r["roofline_fraction"],
                        "% of compulsory": percent(r.get("compulsory_fraction")), "bound": r["bound"],
                        "W": r.get("watts"), "perf/W": perf_per_watt(r)})
        rows.append(row)
    rows.sort(key=lambda r: tuple(str(r.get(k)) for k in ["workload", "shape"]) +
              tuple(float(r[k]) if isinstance(r.get(k), (int, float)) else 0 for k in knobs))
    return format_table(rows, ["workload", "shape", *knobs, "us", "% of roof", "% of compulsory", "bound", "W",
                               "perf/W", "result"])


def perf_per_watt(r: dict) -> str:
    """TFLOPS/W for a compute-bound row, DRAM GB/s per W for a memory-bound one ("" without energy)."""
    if r.get("watts") is None or r.get("tflops_per_watt") is None:
        return ""
    if r.get("bound") in ("dram", "sram", "noc") or not r.get("flops"):
        return f"{r['dram_gbps_per_watt']:.3g} GB/s/W"
    return f"{r['tflops_per_watt']:.3g} TFLOPS/W"



def first_clause(error: str, cap: int = 240) -> str:
    """An error's first clause, whole: its first line up to the first '; ' (where the detail and what to
    try begin), never cut mid-word; past `cap` characters it ends at a word with '...'."""
    line = error.strip().splitlines()[0] if error.strip() else ""
    clause = line.split("; ")[0]
    if len(clause) <= cap:
        return clause
    return clause[:cap].rsplit(" ", 1)[0] + " ..."
