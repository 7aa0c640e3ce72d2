"""The compiler's subcommands of `mtiasim` (registered into simulator/cli.py's command table):

    mtiasim compile matmul --shape 512x512x512 --stage mtia-asm     a library kernel's stages
    mtiasim compile my_kernels.py --stage cpp                       the kernels a script launches
    mtiasim run my_kernels.py                                       run a script on the simulator

A script is ordinary host code that launches Triton kernels on numpy arrays (see
examples/vector_add.py): `run` executes it with every launch on the simulated chip and prints each
launch's report; `compile` executes it the same way (the script may read what its launches return)
and prints the stages of every kernel it launched. A library kernel is compiled without running.
"""
from __future__ import annotations

import json
from pathlib import Path

from simulator.cli import UsageError, _config, _config_arg, _json_arg, _set_arg, command

from .tools import STAGES, library_launches, run_script, stage_text


def _compile_args(p) -> None:
    p.add_argument("target", help="a library kernel name (see `mtiasim workloads`) or a Python script (.py)")
    p.add_argument("--shape", help="the library kernel's shape, e.g. 512x512x512 (default: its default shape)")
    p.add_argument("--stage", action="append", metavar="STAGE",
                   help=f"stage(s) to print: ir, ir.frontend, mtia.<pass> (IR after a backend pass), "
                        f"{', '.join(STAGES[1:])}; repeatable (default: mtia-asm)")
    p.add_argument("--list-stages", action="store_true", help="list the stages instead of printing them")
    p.add_argument("args", nargs="*", help="arguments passed to the script (after --)")
    _config_arg(p)
    _set_arg(p)
    _json_arg(p)


def _launches(a, compile_only: bool):
    from simulator import use_config
    cfg = _config(a.config, a.set)
    target = a.target
    with use_config(cfg):
        if target.endswith(".py"):
            if not Path(target).is_file():
                raise UsageError(f"no such script: {target}")
            # a script may look at what its launches returned, so its launches really run
            return cfg, run_script(target, a.args, compile_only=False)
        from .kernels import library
        if target not in library():
            raise UsageError(f"{target!r} is neither a script (.py) nor a library kernel "
                             f"({', '.join(library())})")
        shape = None
        if a.shape:
            try:
                shape = tuple(int(x) for x in a.shape.lower().replace(",", "x").split("x"))
            except ValueError:
                raise UsageError(f"--shape {a.shape!r}: expected numbers like 512x512x512") from None
        return cfg, library_launches(target, shape, compile_only=compile_only)


@command("compile", "compile a library kernel or a script's kernels and print IR, assembly, C++ or JSON",
         _compile_args)
def cmd_compile(a) -> int:
    from simulator import use_config
    cfg, launches = _launches(a, compile_only=True)
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
                    out.append({"kernel": c.name, "stage": stage, "text": stage_text(c, stage)})
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


def run_script_command(a) -> int:
    """`mtiasim run SCRIPT.py`: every launch of the script on the simulator, one report each."""
    cfg, launches = _launches(a, compile_only=False)
    if a.json:
        print(json.dumps([ln.record.report.to_dict() for ln in launches], default=str, indent=2))
        return 0
    if not launches:
        print(f"{a.target} launched no kernels")
    for ln in launches:
        print(ln.record.report)
    return 0


__all__ = ["cmd_compile", "run_script_command"]

