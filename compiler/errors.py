"""Errors users see. None of them carries a traceback of the compiler's own code."""
from __future__ import annotations

from isa.errors import UserError


class TritonError(UserError):
    """The base of the errors a kernel's compilation or run raises, as in Triton (`except triton.TritonError`)."""


class CompilationError(TritonError):
    """A kernel cannot be compiled. The message points at the kernel line with a caret:

        kernel.py:12:15: error: Cannot make_shape_compatible: incompatible dimensions at index 0: 32 and 64
            z = x + y
                ^
    """

    def __init__(self, message: str, file: str | None = None, line: int | None = None, col: int | None = None,
                 source_line: str | None = None, note: str | None = None):
        self.error_message = message
        self.file, self.line, self.col = file, line, col
        self.source_line = source_line
        self.note = note            # lines shown after the caret: where in a called @jit helper it arose
        super().__init__(self._format())

    def _format(self) -> str:
        if self.file is None:
            return self.error_message
        return self.where(f"error: {self.error_message}") + (f"\n{self.note}" if self.note else "")

    def where(self, label: str) -> str:
        """`file:line:col: label`, the source line and a caret under the column."""
        head = f"{self.file}:{self.line}:{self.col}: {label}"
        if self.source_line is None:
            return head
        text = self.source_line.rstrip("\n")
        stripped = text.lstrip()
        indent = len(text) - len(stripped)
        caret = " " * max(0, self.col - 1 - indent)
        return f"{head}\n    {stripped}\n    {caret}^"


class OutOfResources(CompilationError):
    """The kernel needs more of a resource than the chip has (its tiles and the local store): the
    error Triton raises for shared memory, so `except triton.OutOfResources` and autotune pruning
    work as on a GPU. `required`, `limit` (bytes) and `name` say which."""

    def __init__(self, message: str, *args, required: int | None = None, limit: int | None = None,
                 name: str = "local store", **kwargs):
        self.required, self.limit, self.name = required, limit, name
        super().__init__(message, *args, **kwargs)


class CompileTimeError(UserError):
    """Raised by the language/semantic layer; the frontend turns it into a CompilationError at the
    kernel line being compiled."""


class KernelRuntimeError(TritonError):
    """A kernel failed while running (out-of-bounds access, failed device_assert, ...).

    `kernel`, `program_id`, `pe` and `loc` say where; the user's arrays are left unchanged."""

    def __init__(self, message: str, kernel: str | None = None, program_id=None, loc=None, pe: int | None = None):
        self.kernel, self.program_id, self.loc, self.pe = kernel, program_id, loc, pe
        where = []
        if kernel:
            where.append(f"kernel '{kernel}'")
        if program_id is not None:
            where.append(f"program id {tuple(program_id)}")
        if pe is not None:
            where.append(f"PE {pe}")
        if loc is not None:
            where.append(f"at {loc}")
        super().__init__(message + (f" ({', '.join(where)})" if where else ""))


class OutOfBoundsError(KernelRuntimeError):
    """A load, store or atomic touched memory outside every argument array."""


class StepLimitError(KernelRuntimeError):
    """A program ran more steps than the launch's limit (`max_steps`, MTIASIM_MAX_STEPS): it seems never
    to end (a `while` whose condition never changes, a loop to 2**31)."""


class DeviceAssertionError(KernelRuntimeError):
    """A `tl.device_assert` (or `assert` on a runtime value) failed."""


class ScriptError(UserError):
    """A user's script (`mtiasim run script.py`) raised an error of its own: an ImportError, a
    NameError, an exit status. The message is the script's part of the traceback, as Python would
    print it, without the frames of mtiasim that ran it."""


class NotSimulatedError(UserError):
    """A PyTorch model run that the simulator did not see: Dynamo ran it as plain PyTorch (its
    recompile limit, a frame it skips), so there is no simulated time to report."""
