"""What `mtiasim run FILE.py` and `mtiasim compile ...` do: run a user's script of Triton kernels and
launches on the simulator, or compile its launches without running them, and collect each launch.

A script is ordinary host code (`kernel[grid](x, y, ...)` on numpy arrays). Its launches go through
a recording executor that wraps the MTIA executor (or only compiles, for `compile`), so the tools
see every kernel with the specialisation the script really uses.
"""
from __future__ import annotations

import dataclasses
import os
import runpy
import sys
import sysconfig
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from compiler.errors import ScriptError
from compiler.runtime import executor as ex
from compiler.runtime.autotune import in_trial
from isa.errors import UserError

STAGES = ("ir", "mtia-asm", "cpp", "json")


@dataclass
class Launch:
    compiled: object
    grid: tuple
    record: object = None
    trial: bool = False              # an autotuning trial (timing only, its results not kept), not the script's own


@dataclass
class Recorder:
    """An executor that remembers each launch and passes it on (or, for compile-only, runs nothing)."""
    inner: object | None
    launches: list = field(default_factory=list)
    name: str = "recorder"
    machine: object = None           # one Machine for every launch (a tracer on it), unless a launch names its own

    def launch(self, compiled, grid, args, options):
        if self.machine is not None and options.machine is None:
            options = dataclasses.replace(options, machine=self.machine)
        rec = self.inner.launch(compiled, grid, args, options) if self.inner is not None else \
            ex.RunRecord(compiled.name, tuple(grid), "compile-only", 0, 0.0)
        self.launches.append(Launch(compiled, tuple(grid), rec if self.inner is not None else None,
                                    trial=in_trial()))
        return rec


def run_script(path: str | Path, argv: list[str] | None = None, compile_only: bool = False,
               machine=None) -> list[Launch]:
    """Execute a Python file as __main__ with its launches recorded (run on MTIA, or only compiled);
    `machine`: run every launch on it (a simulator.machine.Machine with a tracer)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such script: {path}")
    rec = Recorder(None if compile_only else ex.get_executor("mtia"), machine=machine)
    ex.register_executor(rec.name, rec)
    saved_argv = sys.argv
    sys.argv = [str(path)] + list(argv or [])
    sys.path.insert(0, str(path.parent.resolve()))
    try:
        with ex.use_executor(rec.name):
            runpy.run_path(str(path), run_name="__main__")
    except SystemExit as e:                       # the script's own sys.exit(): 0 is a normal end
        if e.code not in (None, 0):
            raise ScriptError(f"{path} exited with status {e.code}") from None
    except (UserError, KeyboardInterrupt):        # a kernel that does not compile or run says so itself
        raise
    except Exception as e:
        if os.environ.get("MTIASIM_DEBUG"):
            raise
        raise ScriptError(script_traceback(e, path)) from None
    finally:
        sys.argv = saved_argv
        sys.path.remove(str(path.parent.resolve()))
    return rec.launches


# code that is not the user's: mtiasim itself, the standard library and installed packages
_MTIASIM = tuple(str(Path(__file__).resolve().parent.parent / pkg) + os.sep for pkg in ("mtiasim", "compiler", "simulator", "isa"))
_LIBRARIES = tuple({str(Path(sysconfig.get_paths()[k]).resolve()) + os.sep for k in ("stdlib", "purelib", "platlib")})


def _where(filename: str) -> str:
    if filename.startswith("<frozen "):           # runpy, importlib: the standard library, frozen in
        return "library"
    path = str(Path(filename).resolve())
    return "mtiasim" if path.startswith(_MTIASIM) else "library" if path.startswith(_LIBRARIES) else "user"


def script_traceback(e: BaseException, script: Path) -> str:
    """The traceback of an error raised by a user's script, as Python prints it, keeping only the
    script's own frames (and naming the mtiasim file it came from, when it came from inside)."""
    frames = traceback.extract_tb(e.__traceback__)
    users = [f for f in frames if _where(f.filename) == "user"]
    lines = [f"the script {script} raised {type(e).__name__}"]
    if users:
        lines.append("Traceback (most recent call last), the script's frames:")
    lines += [line.rstrip("\n") for line in traceback.format_list(users)]
    if frames and _where(frames[-1].filename) == "mtiasim":
        lines.append(f"  (raised inside mtiasim at {frames[-1].filename}:{frames[-1].lineno}; MTIASIM_DEBUG=1 "
                     f"shows the whole traceback)")
    lines += [line.rstrip("\n") for line in traceback.format_exception_only(type(e), e)]
    return "\n".join(lines)


def library_launches(name: str, shape, compile_only: bool = False) -> list[Launch]:
    """The launches of a library kernel's host function on random inputs of `shape`."""
    import numpy as np

    from compiler.kernels import library
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


def with_source_lines(asm: str) -> str:
    """MTIA assembly text with each instruction's kernel file:line as a comment after it, and each source
    line as a comment above the instructions it made (compiler/backend/program/source_notes.py)."""
    from compiler.backend.program.source_notes import source_notes
    from isa import Program
    prog = Program.from_asm(asm)
    return prog.to_asm(*source_notes(prog))
