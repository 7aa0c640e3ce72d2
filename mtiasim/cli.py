"""`mtiasim`: the command line of the simulator and the compiler: the command table, the arguments
several commands share, and `main`.

    mtiasim run gemm --shape 2048 2048 2048          simulate a workload, print its report
    mtiasim workloads                                 what `run`, `trace`, `roofline` and sweeps can run
    mtiasim configs                                   the hardware configs (and sweep files)
    mtiasim sweep configs/sweeps/dram-x-ls.yaml --out results.csv
    mtiasim plot results.csv                          a sweep table's charts
    mtiasim compare mtia-2i mtia-v1 -w matmul         per-metric deltas of two configs (or two saved runs)
    mtiasim trace softmax -o trace.json --pes 0,1     a Perfetto timeline
    mtiasim trace my_kernels.py --summary             ... of a script's kernels, and its stalls by source line
    mtiasim roofline gemm softmax:4096x1024 --config mtia-2i --config mtia-v1 -o roofline.png
    mtiasim model my_model.py                         a PyTorch model through Inductor (cached across runs)
    mtiasim bench                                     time the simulator itself (--startup: this CLI)
    mtiasim --version                                 this package's release

Every command takes --help, and --config NAME|PATH and --json where they apply. Errors print their
message to stderr and exit with the error's code: 2 for bad usage (`UsageError`, an unknown workload
or a bad shape), 1 for every other `isa.errors.UserError` (a bad config, a kernel that fails, an
output that cannot be written). Anything else is an internal error (MTIASIM_DEBUG=1 shows it whole).

The commands are in mtiasim/commands/, one module per family, each a `Command` registered with
`@command`. Those modules import only the standard library at the top, and what a command needs (the
simulator, the compiler, torch) when it runs, so that `mtiasim --help` starts in about the time
Python takes to import numpy (`mtiasim bench --startup`): this module imports nothing else either.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
from dataclasses import dataclass
from typing import Callable


class UsageError(Exception):
    """Bad command-line usage: exit code 2. (Not a `UserError` subclass so that raising it imports
    nothing; `main` maps both.)"""

    exit_code = 2
    one_line = True


@dataclass(frozen=True)
class Command:
    """A subcommand: `configure` adds its arguments to an argparse parser (None: it has none of its
    own), `run` gets the parsed arguments and returns the exit code."""
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None] | None
    run: Callable[[argparse.Namespace], int]


COMMANDS: dict[str, Command] = {}          # every command (mtiasim/commands/)


def command(name: str, help: str, configure: Callable[[argparse.ArgumentParser], None]):
    """Register a subcommand (see the module docstring)."""
    def deco(fn):
        COMMANDS[name] = Command(name, help, configure, fn)
        return fn
    return deco


# ---- shared arguments ---------------------------------------------------------------------------

DEFAULT_CONFIG = "mtia-2i"    # simulator.config.DEFAULT_CONFIG, written out so that parsing imports no simulator (a test checks)


def config_arg(p: argparse.ArgumentParser, repeat: bool = False) -> None:
    if repeat:
        p.add_argument("--config", action="append", metavar="NAME|PATH",
                       help=f"config name in configs/ or a YAML path; repeat to compare (default {DEFAULT_CONFIG})")
    else:
        p.add_argument("--config", default=DEFAULT_CONFIG, metavar="NAME|PATH",
                       help=f"config name in configs/ or a YAML path (default {DEFAULT_CONFIG})")


def json_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def set_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config value by dotted key, e.g. --set dram.bandwidth_gbps=409.6 (repeatable)")


def overrides(items: list[str]) -> dict:
    """`--set KEY=VALUE` items as dotted overrides; values are YAML scalars (409.6, true, fifo)."""
    import yaml

    from simulator.errors import ConfigError
    from simulator.user_yaml import load_yaml
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise UsageError(f"--set {item[:200]!r}: expected KEY=VALUE, e.g. dram.bandwidth_gbps=409.6")
        try:
            yaml.compose(value, Loader=yaml.SafeLoader)
        except yaml.YAMLError:                      # not YAML (an unbalanced bracket): the text itself
            out[key] = value
            continue
        out[key] = load_yaml(value, f"--set {key[:100]}", ConfigError)    # a bomb of aliases is refused
    return out


def config_from_args(name: str, sets: list[str] | None = None):
    """The config `--config NAME` and `--set KEY=VALUE ...` name."""
    from simulator.config import load_config
    return load_config(name, overrides(sets or []) or None)


def output_path(path: str, what: str, example: str, suffixes: tuple[str, ...] = ()) -> str:
    """Check an output file before any work is done: its folder exists, it is not a folder, and it
    has one of `suffixes`. Returns the path."""
    from pathlib import Path
    p = Path(path)
    if suffixes and p.suffix.lower() not in suffixes:
        raise UsageError(f"{path}: {what} is written as {', '.join(suffixes)}")
    if p.is_dir():
        raise UsageError(f"{path} is a folder: give the {what} a file name, e.g. {p / example}")
    if not p.parent.is_dir():
        raise UsageError(f"{path}: the folder {p.parent} {'is not a folder' if p.parent.exists() else 'does not exist'}")
    return path


# ---- entry point --------------------------------------------------------------------------------

def _chosen(argv: list[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    return next((a for a in argv if not a.startswith("-")), None)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; only the subcommand named in `argv` gets its arguments (and imports what they
    need), so `mtiasim --help` imports no command's dependencies."""
    from . import commands  # noqa: F401  (registers the commands; imports nothing heavy)
    chosen = _chosen(sys.argv[1:] if argv is None else argv)
    if chosen is not None and chosen not in COMMANDS:
        raise UsageError(f"unknown command {chosen[:100]!r} (commands: {', '.join(COMMANDS)})")
    from . import __version__
    p = argparse.ArgumentParser(prog="mtiasim", description="A cycle-approximate MTIA simulator and Triton compiler.")
    p.add_argument("--version", action="version",
                   version=f"mtiasim {__version__} (kernels in the language of Triton {TRITON_LANGUAGE})")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for c in COMMANDS.values():
        _add(sub, c, configure=c.name == chosen)
    return p


TRITON_LANGUAGE = "3.8.0"    # compiler.__version__, written out so that --version imports nothing (a test checks)


def _add(sub, c: Command, configure: bool) -> None:
    sp = sub.add_parser(c.name, help=c.help, description=c.help)
    if configure and c.configure is not None:
        c.configure(sp)
    sp.set_defaults(fn=c.run, parser=sp)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # what follows `--` goes to the script as it is: argparse would otherwise refuse it whenever an
    # option (`--stage ir`) stands between the script's name and the `--`
    head, tail = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, None)
    try:
        parser = build_parser(argv)
        args, unknown = parser.parse_known_args(head)
        if unknown:             # the subcommand's usage, not the top level's, says what it takes
            args.parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        if tail is not None:
            if not hasattr(args, "args"):
                parser.error(f"unrecognized arguments: -- {' '.join(tail)}")
            args.args = [*args.args, *tail]
    except UsageError as e:
        _print_error(e)
        return e.exit_code
    try:
        return args.fn(args)
    except UsageError as e:
        _print_error(e)
        return e.exit_code
    except KeyboardInterrupt:
        print("mtiasim: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:                      # `mtiasim workloads | head -3`: the reader is gone
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except MemoryError:
        print("mtiasim: out of host memory: the arrays of this run do not fit in this machine's memory; "
              "a smaller --shape needs less (--timing-only skips the results' math, not the inputs)",
              file=sys.stderr)
        return 1
    except Exception as e:
        if _is_user_error(e):
            _print_error(e)
            return e.exit_code
        if os.environ.get("MTIASIM_DEBUG"):
            raise
        print(f"mtiasim: internal error: {type(e).__name__}: {e} (set MTIASIM_DEBUG=1 for the traceback)",
              file=sys.stderr)
        return 1


def _is_user_error(e: Exception) -> bool:
    """An `isa.errors.UserError`, told without importing `isa` (a second: ml_dtypes registers its casts),
    which a command that raised one has imported already."""
    errors = sys.modules.get("isa.errors")
    return errors is not None and isinstance(e, errors.UserError)


def _print_error(e: Exception) -> None:
    """A one-line error joins a multi-line message (a config with several bad keys); others (a
    kernel line with a caret, a deadlock report) print whole."""
    if not getattr(e, "one_line", False):
        print(f"mtiasim: {e}", file=sys.stderr)
        return
    text = ""
    for line in (ln.strip() for ln in str(e).splitlines()):
        if line:
            text += ("" if not text else " " if text.endswith(":") else "; ") + line
    print(f"mtiasim: {text}", file=sys.stderr)


if __name__ == "__main__":
    # `python -m mtiasim.cli`: run the imported mtiasim.cli's main, whose command table the command
    # modules filled, not this __main__ copy's (empty) one
    from mtiasim.cli import main as _main
    sys.exit(_main())
