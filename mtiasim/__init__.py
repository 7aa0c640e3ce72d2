"""The application: the `mtiasim` command line and the tools that drive the compiler and the chip
model (workloads by name, sweeps, charts, tables, benchmarks). It sits above `compiler` and
`simulator`, which never import it.

    mtiasim/cli.py          main, the command table, the arguments commands share
    mtiasim/commands/       one module per command family (run, sweep, trace, compile, model, ...)
    mtiasim/workloads.py    the registry of named workloads (and the hand-written ISA ones)
    mtiasim/kernel_workloads.py   the compiler's kernel library as workloads
    mtiasim/sweep.py        a grid of config overrides x workloads into one table
    mtiasim/plots.py        roofline, utilisation and per-PE charts
    mtiasim/bench/          every benchmark, each runnable with `python -m mtiasim.bench.NAME`

Importing this package imports nothing of ours, so that `mtiasim --help` starts fast.
"""
from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("mtiasim")     # the package's release (pyproject.toml), as installed
except _metadata.PackageNotFoundError:              # a checkout on sys.path without `pip install -e .`
    __version__ = "0.1.0+uninstalled"

