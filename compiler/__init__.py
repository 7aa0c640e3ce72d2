"""A Triton-compatible compiler for MTIA.

    import compiler as triton            # jit, cdiv, next_power_of_2, Config, autotune, heuristics, compile
    import compiler.language as tl       # program_id, arange, load, store, dot, ... + tl.mtia.*
    triton.testing.do_bench(fn)          # simulated milliseconds; perf_report / Benchmark / assert_close
"""
import os as _os

from . import language, testing, tools  # noqa: F401
from .errors import (
    CompilationError,
    CompileTimeError,
    DeviceAssertionError,
    KernelRuntimeError,
    OutOfBoundsError,
    OutOfResources,
    StepLimitError,
    TritonError,
)
from .language.aggregate import aggregate
from .language.core import constexpr_function
from .runtime import (
    CompiledKernel,
    Config,
    JITFunction,
    RunRecord,
    TensorWrapper,
    autotune,
    compile,
    heuristics,
    jit,
    register_executor,
    register_stage,
    reinterpret,
    set_executor,
    use_executor,
)
from .runtime import mtia_executor as _mtia  # noqa: E402  (registers the "mtia" executor and its stages)
from .runtime.jit import resolve_grid  # noqa: F401


def _interpret_requested() -> bool:
    """TRITON_INTERPRET=1 in the environment at import: Triton's switch to its CPU interpreter (its
    truthy spellings), which GPU users set to debug a kernel; here it selects our numpy interpreter."""
    return _os.environ.get("TRITON_INTERPRET", "0").strip().lower() in ("1", "true", "yes", "on", "y")


# launches run on the simulated MTIA chip of the user's default config (simulator.use_config), or, as Triton's kernels then do, on
# the interpreter (an executor= argument or set_executor still picks either)
set_executor("interpreter" if _interpret_requested() else "mtia")

# The Triton release whose language this compiler follows (its semantics and its language tests, README),
# for code that checks `triton.__version__` to pick a path, as Liger-Kernel does at import. It is not
# this package's release: that is `compiler.mtiasim_version` (and `mtiasim --version`).
__version__ = "3.8.0"
TRITON_VERSION = __version__


def _package_version() -> str:
    from importlib import metadata
    try:
        return metadata.version("mtiasim")
    except metadata.PackageNotFoundError:
        return "0.1.0+uninstalled"


mtiasim_version = _package_version()
"""The mtiasim package's own release (pyproject.toml), which `__version__` (Triton's) is not."""


_ALLOCATOR: list = [None]


def set_allocator(allocator) -> None:
    """Triton's hook for the global scratch that kernels building tensor descriptors need. Accepted
    so GPU host code runs unchanged; the simulator gives each launch its scratch itself."""
    if allocator is not None and not callable(allocator):
        raise TypeError(f"set_allocator expects a callable (size, alignment, stream) -> buffer, got {allocator!r}")
    _ALLOCATOR[0] = allocator


def must_use_result(x, s=True):
    """Mark a @jit function (or builtin) whose result a kernel must use: a call to it as a statement of
    its own is a compile error at that line. `@must_use_result("why")` adds "why" to the message."""
    if isinstance(x, str):
        return lambda fn: must_use_result(fn, x)
    x._must_use_result = s
    return x


def cdiv(x: int, y: int) -> int:
    """ceil(x / y) for host code (inside kernels use tl.cdiv)."""
    return (x + y - 1) // y


def next_power_of_2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


__all__ = ["language", "TritonError", "CompilationError", "CompileTimeError", "DeviceAssertionError",
           "KernelRuntimeError",
           "OutOfBoundsError", "CompiledKernel", "Config", "JITFunction", "RunRecord", "autotune", "compile",
           "heuristics", "jit", "register_executor", "register_stage", "set_executor", "use_executor", "cdiv",
           "next_power_of_2", "set_allocator", "testing", "OutOfResources", "StepLimitError", "constexpr_function",
           "must_use_result", "reinterpret", "TensorWrapper", "aggregate"]
