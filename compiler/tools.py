"""What `mtiasim run FILE.py` and `mtiasim compile ...` do: run a user's script of Triton kernels and
launches on the simulator, or compile its launches without running them, and collect each launch.

A script is ordinary host code (`kernel[grid](x, y, ...)` on numpy arrays). Its launches go through
a recording executor that wraps the MTIA executor (or only compiles, for `compile`), so the tools
see every kernel with the specialisation the script really uses.
"""
from __future__ import annotations

import runpy
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .runtime import executor as ex

STAGES = ("ir", "mtia-asm", "cpp", "json")


@dataclass
class Launch:
    compiled: object
    grid: tuple
    record: object = None


@dataclass
class Recorder:
    """An executor that remembers each launch and passes it on (or, for compile-only, runs nothing)."""
    inner: object | None
    launches: list = field(default_factory=list)
    name: str = "recorder"

    def launch(self, compiled, grid, args, options):
        rec = self.inner.launch(compiled, grid, args, options) if self.inner is not None else \
            ex.RunRecord(compiled.name, tuple(grid), "compile-only", 0, 0.0)
        self.launches.append(Launch(compiled, tuple(grid), rec if self.inner is not None else None))
        return rec


def run_script(path: str | Path, argv: list[str] | None = None, compile_only: bool = False) -> list[Launch]:
    """Execute a Python file as __main__ with its launches recorded (run on MTIA, or only compiled)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such script: {path}")
    rec = Recorder(None if compile_only else ex.get_executor("mtia"))
    ex.register_executor(rec.name, rec)
    saved_argv = sys.argv
    sys.argv = [str(path)] + list(argv or [])
    sys.path.insert(0, str(path.parent.resolve()))
    try:
        with ex.use_executor(rec.name):
            runpy.run_path(str(path), run_name="__main__")
    finally:
        sys.argv = saved_argv
        sys.path.remove(str(path.parent.resolve()))
    return rec.launches


def library_launches(name: str, shape, compile_only: bool = False) -> list[Launch]:
    """The launches of a library kernel's host function on random inputs of `shape`."""
    import numpy as np

    from .kernels import library
    k = library()[name]
    rec = Recorder(None if compile_only else ex.get_executor("mtia"))
    ex.register_executor(rec.name, rec)
    inputs = k.make_inputs(tuple(shape) if shape else k.default_shape, np.random.default_rng(0))
    with ex.use_executor(rec.name):
        k.run(*inputs)
    return rec.launches


def stage_text(compiled, stage: str) -> str:
    try:
        return compiled.asm[stage]
    except KeyError:
        raise KeyError(f"no stage {stage!r}; available: {', '.join(compiled.asm)}") from None
