"""The compiler's commands of `mtiasim`:

    mtiasim compile matmul --shape 512x512x512 --stage mtia-asm     a library kernel's stages
    mtiasim compile my_kernels.py --stage cpp                       the kernels a script launches
    mtiasim run my_kernels.py                                       run a script on the simulator
    mtiasim bench --compile                                         how long each library kernel compiles

A script is ordinary host code that launches Triton kernels on numpy arrays (see
examples/vector_add.py): `run` executes it with every launch on the simulated chip and prints each
launch's report; `compile` executes it the same way (the script may read what its launches return)
and prints the stages of every kernel it launched. A library kernel is compiled without running.
"""
from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

from ..cli import UsageError, command, config_arg, config_from_args, json_arg, output_path, set_arg


def _compile_args(p) -> None:
    from ..script_runs import STAGES
    p.add_argument("target", help="a library kernel name (see `mtiasim workloads`) or a Python script (.py)")
    p.add_argument("--shape", help="the library kernel's shape, e.g. 512x512x512 (default: its default shape)")
    p.add_argument("--stage", action="append", metavar="STAGE",
                   help=f"stage(s) to print: ir, ir.frontend, mtia.<pass> (IR after a backend pass), "
                        f"{', '.join(STAGES[1:])}; repeatable (default: mtia-asm)")
    p.add_argument("--list-stages", action="store_true", help="list the stages instead of printing them")
    p.add_argument("--no-source", action="store_true",
                   help="mtia-asm without the kernel's source lines as comments (the compiled stage's text as is)")
    p.add_argument("args", nargs="*", help="arguments passed to the script (after --)")
    config_arg(p)
    set_arg(p)
    json_arg(p)


def _shape(text: str | None, kernel) -> tuple | None:
    from ..workloads import MAX_DIM
    if not text:
        return None
    try:
        shape = tuple(int(x) for x in text.lower().replace(",", "x").split("x"))
    except ValueError:
        raise UsageError(f"--shape {text[:100]!r}: expected numbers like 512x512x512") from None
    if len(shape) != len(kernel.default_shape):
        raise UsageError(f"--shape {text[:100]}: this kernel's shape has {len(kernel.default_shape)} dims, e.g. "
                         f"{'x'.join(map(str, kernel.default_shape))}")
    bad = [d for d in shape if not 1 <= d <= MAX_DIM]
    if bad:
        raise UsageError(f"--shape {text[:100]}: each dim is 1 to {MAX_DIM:,} (got {bad[0]:,})")
    return shape


def _launches(target: str, script_args: list[str], config: str, sets: list[str], shape_text: str | None,
              compile_only: bool, script_to_stderr: bool = False):
    from simulator import use_config

    from ..script_runs import library_launches, run_script
    cfg = config_from_args(config, sets)
    with use_config(cfg):
        if target.endswith(".py"):
            if not Path(target).is_file():
                raise UsageError(f"{target} is a folder, not a script" if Path(target).is_dir() else
                                 f"no such script: {target}")
            if shape_text:
                raise UsageError(f"--shape sets a library kernel's shape; the script {target} makes its own arrays")
            # a script may look at what its launches returned, so its launches really run; what it prints
            # goes to stderr where stdout is the command's own (stages, JSON)
            with contextlib.redirect_stdout(sys.stderr) if script_to_stderr else contextlib.nullcontext():
                return cfg, run_script(target, script_args, compile_only=False)
        from compiler.kernels import library
        if target not in library():
            raise UsageError(f"{target[:200]!r} is neither a script (.py) nor a library kernel "
                             f"({', '.join(library())})")
        return cfg, library_launches(target, _shape(shape_text, library()[target]), compile_only=compile_only)


@command("compile", "compile a library kernel or a script's kernels and print IR, assembly, C++ or JSON",
         _compile_args)
def cmd_compile(a) -> int:
    from simulator import use_config

    from ..script_runs import stage_text, with_source_lines
    cfg, launches = _launches(a.target, a.args, a.config, a.set, a.shape, compile_only=True, script_to_stderr=True)
    seen, out = set(), []
    with use_config(cfg):
        for ln in launches:
            c = ln.compiled
            if id(c) in seen:
                continue
            seen.add(id(c))
            if a.list_stages:
                out.append({"kernel": c.name, "stages": list(c.asm)})
                continue
            for stage in a.stage or ["mtia-asm"]:
                try:
                    text = stage_text(c, stage)
                    if stage == "mtia-asm" and not a.no_source:
                        text = with_source_lines(text)
                    out.append({"kernel": c.name, "stage": stage, "text": text})
                except KeyError as e:
                    raise UsageError(str(e.args[0])) from None
    if a.json:
        print(json.dumps(out, indent=2))
    elif a.list_stages:
        for o in out:
            print(f"{o['kernel']}: {', '.join(o['stages'])}")
    else:
        for o in out:
            print(f"// ---- {o['kernel']}: {o['stage']} ----")
            print(o["text"].rstrip())
    return 0


def cmd_run_script(a) -> int:
    """`mtiasim run SCRIPT.py` (mtiasim/commands/run.py hands it here): every launch of the script
    on the simulator, one report each."""
    if a.json_out:
        output_path(a.json_out, "JSON", "runs.json", (".json",))
    cfg, launches = _launches(a.workload, a.args, a.config, a.set, None, compile_only=False, script_to_stderr=a.json)
    data = [{**ln.record.report.to_dict(), "autotune_trial": ln.trial} for ln in launches]
    if a.json_out:          # the reports as JSON in a file; stdout keeps the script's prints and the reports
        from .common import written
        written(a.json_out, lambda: Path(a.json_out).write_text(json.dumps(data, default=str, indent=2)))
    if a.json:
        print(json.dumps(data, default=str, indent=2))
        return 0
    if not launches:
        print(f"{a.workload} launched no kernels")
    for ln in launches:
        if ln.trial:
            print(f"autotune trial ({', '.join(f'{k}={v}' for k, v in _constexprs(ln.compiled).items())}; timing "
                  f"only, its results not kept):")
        print(ln.record.report)
    return 0


def _constexprs(compiled) -> dict:
    """The constexprs a launch compiled with (what an autotune trial tries)."""
    return dict(getattr(compiled, "constexprs", None) or {})


def cmd_bench_compile(a) -> int:
    """`mtiasim bench --compile`: how long each library kernel takes to compile."""
    from ..bench.compile import compile_times, format_compile_times
    rows = compile_times(a.config)
    print(json.dumps(rows, indent=2) if a.json else format_compile_times(rows))
    return 0


def cmd_bench_kernels(a) -> int:
    """`mtiasim bench --kernels`: the kernel benchmark (mtiasim/bench/kernels.py)."""
    from simulator import use_config

    from ..bench.kernels import format_table, run
    with use_config(a.config):
        res = run(quick=a.quick, progress=None if a.json else lambda name: print(f"  ... {name}", flush=True))
        print(json.dumps(res, indent=2) if a.json else format_table(res, a.config))
    return 0
