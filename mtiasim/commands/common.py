"""What several commands share: a workload named with a shape on the command line (run, trace),
an output written or named as such (trace, roofline), a fraction as a percentage (sweep, roofline)."""
from __future__ import annotations

import math

from ..cli import UsageError


def workload_args(p, default_numerics: bool = True) -> None:
    p.add_argument("workload", help="a workload name (see `mtiasim workloads`)")
    p.add_argument("--shape", nargs="+", metavar="N",
                   help="the workload's dims in order (2048 2048 2048, or 2048x2048x2048), or NAME=VALUE items")
    p.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE",
                   help="set a workload option, e.g. -p region=dram (repeatable)")
    p.add_argument("--region", choices=("sram", "dram"), help="where the operands live (workloads with a region)")
    if default_numerics:
        p.add_argument("--timing-only", action="store_true", help="skip the bulk math (same cycles, faster)")


def workload_and_shape(name: str, shape_tokens, params: list[str], region: str | None):
    from ..workloads import get_workload
    w = get_workload(name)
    shape = w.shape(" ".join(shape_tokens) if shape_tokens else None)
    extra = {}
    for item in params:
        k, sep, v = item.partition("=")
        if not sep:
            raise UsageError(f"-p {item[:200]!r}: expected NAME=VALUE")
        extra[k] = v
    if region is not None:
        if "region" not in w.default_shape:
            raise UsageError(f"workload {name} has no region option (its parameters: "
                             f"{', '.join(w.default_shape)})")
        extra["region"] = region
    if extra:
        shape = w.shape({**shape, **extra})
    return w, shape


def written(path: str, write):
    """What `write()` returns; an OSError while writing the user's output (a full disk) named as such."""
    try:
        return write()
    except OSError as e:
        # imported here: importing it imports the ISA (a second), which writing a file does not need
        from simulator.errors import OutputError
        raise OutputError(f"cannot write {path}: {e.strerror or e}") from None


def percent(fraction) -> float | None:
    """A fraction as a percentage; None (an empty cell) where the run had no such figure."""
    if not isinstance(fraction, (int, float)) or math.isnan(fraction):
        return None
    return round(100 * fraction, 1)
