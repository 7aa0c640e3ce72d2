"""`opt`: run named backend passes on IR text and print the IR they leave (as mlir-opt and triton-opt do).

    python -m compiler.backend.opt --pass lower-memory --pass cse [--config mtia-2i] [--num-stages 3]
                                   [--mtia-option licm=false ...] FILE|-

reads IR in the printer's format (compiler/ir/printer.py; `-` or no file reads stdin; `//` lines are
comments, `// -----` separates cases run one by one), runs the passes in the order given, verifies the
result and prints it. The pass objects are the pipeline's own (`pipeline.backend_passes`), built for
the config, the stages and the switches given, so a pass runs here exactly as it runs in a compile;
only the order is the caller's. Given `mtia-asm` text (`.kernel NAME ...`, isa/program.py) instead, it
runs the rewrites made on the register-allocated program: `command-forms`, `defer-store`.
tests/compiler/backend/passes/ holds one FileCheck file per pass driven through `run_passes`.
"""
from __future__ import annotations

import argparse
import sys

from isa import AsmError, Program
from simulator.config import load_config
from simulator.errors import ConfigError

from ..errors import CompilationError
from ..ir import ParseError, VerifyError, parse_module, print_module, verify
from .pipeline import SPILL_BYTES, BackendOptions, Target, apply_command_forms, backend_passes, defer_final_store


def pass_table(cfg, num_stages: int = 3, options: BackendOptions | None = None) -> dict:
    """The pipeline's passes by name (CSE, which runs twice, is one entry: it has no parameters)."""
    return {p.name: p for p in backend_passes(cfg, num_stages, options)}


def program_rewrites(cfg, options: BackendOptions | None = None) -> dict:
    """The rewrites `pipeline.emit_program` makes after register allocation, by name, each a function of
    an isa.Program (changed in place), as the pipeline calls them. The local store they may fill is the
    config's less the default spill area: the assembly does not record a kernel's own (allocate-ls
    shrinks it only where tiles took the rest)."""
    opts = options or BackendOptions()
    contexts = cfg.pe.command_contexts if opts.command_contexts else 0
    table = {"command-forms": lambda prog: apply_command_forms(prog, opts.auto_increment, contexts)}
    if opts.defer_stores:
        table["defer-store"] = lambda prog: defer_final_store(prog, cfg.ls_bytes - SPILL_BYTES,
                                                              Target.of(cfg).slot_align)
    return table


def run_passes(text: str, names: list[str], cfg=None, num_stages: int = 3,
               options: BackendOptions | dict | None = None) -> str:
    """Parse `text`, run the named passes in order and return what they leave, printed. IR text (the
    printer's `module {`) takes the backend passes and is verified after them; `mtia-asm` text (an
    isa.Program, `.kernel NAME`) takes the rewrites after register allocation (program_rewrites).
    `cfg` is a Config or a config name (None: the default config); `options` a BackendOptions or a dict
    of switches."""
    cfg = load_config(cfg)
    options = BackendOptions.of(options)
    if text.lstrip().startswith(".kernel"):
        table = program_rewrites(cfg, options)
        rewrites = [_lookup(table, n, options, "on mtia-asm text") for n in names]
        prog = Program.from_asm(text)
        for rewrite in rewrites:
            rewrite(prog)
        return prog.to_asm()
    table = pass_table(cfg, num_stages, options)
    passes = [_lookup(table, n, options, "on IR text") for n in names]
    module = parse_module(text)
    for p in passes:
        p.run(module)
    verify(module)
    return print_module(module)


def _lookup(table: dict, name: str, options: BackendOptions, where: str):
    """The pass called `name`; an error naming it and listing the passes there are, else."""
    if name in table:
        return table[name]
    off = ", ".join(options.off())
    why = f" (with {off} turned off, the pipeline may leave it out)" if off else ""
    raise ValueError(f"unknown pass {name!r}{why}; the passes {where} are {', '.join(table)}")


def _parse_switch(text: str) -> tuple[str, bool]:
    """`name=false` / `name=true` (also 0/1, off/on, no/yes) -> (name, bool)."""
    name, sep, value = text.partition("=")
    words = {"true": True, "1": True, "on": True, "yes": True, "false": False, "0": False, "off": False, "no": False}
    if not sep or value.strip().lower() not in words:
        raise argparse.ArgumentTypeError(f"--mtia-option takes name=true or name=false, got {text!r}")
    return name.strip(), words[value.strip().lower()]


def arg_parser() -> argparse.ArgumentParser:
    """The command line; tests/compiler/backend/passes/ files give theirs on a `// RUN: opt ...` line."""
    ap = argparse.ArgumentParser(prog="python -m compiler.backend.opt", description=__doc__.splitlines()[0])
    ap.add_argument("--pass", dest="passes", action="append", default=[], metavar="NAME",
                    help="a backend pass to run (repeat; run in the order given)")
    ap.add_argument("--config", default=None, help="the config the passes target (a name in configs/ or a path)")
    ap.add_argument("--num-stages", type=int, default=3, help="the launch's num_stages (allocate-ls, coalesce-k)")
    ap.add_argument("--mtia-option", dest="switches", action="append", default=[], type=_parse_switch,
                    metavar="NAME=BOOL", help="turn one of the backend's switches on or off (compiler/backend/options.py)")
    ap.add_argument("file", nargs="?", default="-", help="the IR to read ('-' or none: stdin)")
    return ap


def split_input(text: str) -> list[str]:
    """The cases of a file that `// -----` lines separate (mlir-opt's -split-input-file), each without
    its `//` comment lines, which the IR parser does not take."""
    cases, lines = [], []
    for line in text.splitlines():
        if line.strip() == "// -----":
            cases.append("\n".join(lines))
            lines = []
        elif not line.lstrip().startswith("//"):
            lines.append(line)
    return [c for c in cases + ["\n".join(lines)] if c.strip()]


def main(argv: list[str] | None = None) -> int:
    args = arg_parser().parse_args(argv)
    try:
        text = sys.stdin.read() if args.file == "-" else open(args.file, encoding="utf-8").read()
        switches = dict(args.switches) or None
        cases = split_input(text) or [text]          # (no IR at all: the parser says so)
        out = "\n// -----\n".join(run_passes(c, args.passes, args.config, args.num_stages, switches) for c in cases)
    except (OSError, ValueError, TypeError, ParseError, VerifyError, AsmError, CompilationError, ConfigError) as e:
        # the input, a pass name, a switch or a config is wrong, or a pass refuses the IR: say so, no traceback
        print(f"opt: error: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
