"""`mtiasim run`: simulate a named workload and print its report, or run a script of Triton
launches (`mtiasim run FILE.py`, in mtiasim/commands/compile.py)."""
from __future__ import annotations

from pathlib import Path

from ..cli import UsageError, command, config_arg, config_from_args, json_arg, output_path, set_arg
from .common import workload_and_shape, workload_args, written


def _run_args(p) -> None:
    workload_args(p)
    p.add_argument("args", nargs="*", help="a script's arguments (after --: `mtiasim run s.py -- 512`)")
    config_arg(p)
    set_arg(p)
    json_arg(p)
    p.add_argument("--json-out", metavar="FILE", help="also write the JSON to FILE (stdout keeps the report)")


@command("run", "simulate a workload and print its report", _run_args)
def cmd_run(a) -> int:
    if a.workload.endswith(".py"):             # a user's script of Triton launches
        return _run_script(a)
    if a.args:
        raise UsageError(f"{' '.join(a.args)[:200]}: arguments after the workload are for scripts (.py); "
                         f"a library workload takes --shape and -p")
    if a.json_out:
        output_path(a.json_out, "JSON", "run.json", (".json",))
    w, shape = workload_and_shape(a.workload, a.shape, a.param, a.region)
    cfg = config_from_args(a.config, a.set)
    run = w.execute(cfg, shape, numerics=not a.timing_only)
    if a.json_out:
        written(a.json_out, lambda: Path(a.json_out).write_text(run.report.to_json(indent=2)))
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
    from .compile import cmd_run_script
    return cmd_run_script(a)
