"""The executor protocol: what runs a compiled kernel over a grid, and the registry that picks one.

An executor gets the compiled kernel, the 3-D grid, the kernel arguments (pointer arguments point
into `DeviceBuffer`s it may read and write) and the launch options; it returns a `RunRecord`
(or a subclass with more fields). The runtime copies the buffers back into the user's arrays only
when `launch` returns normally.

Register and select an executor in one line each:

    compiler.runtime.register_executor("mtia", MtiaExecutor())   # make it known by name
    compiler.runtime.set_executor("mtia")                         # make it the default
    with compiler.runtime.use_executor("interpreter"): ...        # temporarily
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

from simulator.launch import DEFAULT_PE_MAPPING, check_mapping


@dataclass(frozen=True)
class LaunchOptions:
    """The keywords of one launch, `kernel[grid](..., name=value)`, one typed field each, and the hardware
    target the launch resolved (`config`, compiler/runtime/target.py). The runtime builds them from the
    launch's keywords (`split_launch_options` in jit.py, which refuses a keyword it does not know) and
    hands them to the executor; a keyword an executor registered (`register_launch_keyword`) that is not
    a field here is in `registered`. num_warps must be a power of 2, as in Triton."""
    # --- Triton's compile options: checked and recorded; MTIA runs a program on one PE whatever they are
    num_warps: int | None = 4
    """Triton's warps per program: a power of 2 (None: the default); sets a kernel's `n_regs`."""
    num_stages: int = 3
    """Triton's software-pipelining depth: the MTIA backend's circular-buffer depth for loop loads."""
    num_ctas: int | None = None
    """Triton's thread-block clusters (Hopper): accepted and recorded, MTIA has none."""
    maxnreg: int | None = None
    """Triton's register cap per thread: accepted and recorded, a PE's registers are fixed."""
    enable_fp_fusion: bool | None = None
    """Triton's fused multiply-add switch: accepted and recorded."""
    debug: bool | None = None
    """Triton's debug switch (device asserts on): accepted and recorded."""
    extern_libs: dict | None = None
    """Triton's {library: bitcode path}: only libdevice's libraries, whose functions MTIA implements itself."""
    # --- AMD's tuning hints: accepted and ignored (Triton's tutorials pass them to every non-CUDA backend)
    waves_per_eu: int | None = None
    """AMD's occupancy hint: ignored."""
    matrix_instr_nonkdim: int | None = None
    """AMD's matrix-instruction shape hint: ignored."""
    kpack: int | None = None
    """AMD's K packing hint: ignored."""
    # --- the simulator's
    pe_mapping: str = DEFAULT_PE_MAPPING
    """How program ids map onto the config's PEs (`simulator.launch`)."""
    executor: str | None = None
    """The registered executor that runs the launch (None: the selected default, `set_executor`)."""
    numerics: bool | None = None
    """Compute the results (False: timing only, every array left as it was; None: the executor's default)."""
    sram_resident: bool | None = None
    """Place the launch's arrays in on-chip SRAM instead of DRAM (compiler/runtime/memory.py)."""
    machine: object = None
    """A caller's `simulator.machine.Machine` to run on (a tracer on it, a warm LLC); its config is the target."""
    memory_state: object = None
    """The chip's memory the launch starts from and leaves its lines in (`simulator.chip.memory_state.
    MemoryState`, what earlier kernels of a model run left in the LLC); None: a cold chip (an empty LLC)."""
    max_steps: int | None = None
    """Steps a program may run before it is stopped (None: the environment's limit, `simulator.launch`)."""
    max_programs: int | None = None
    """Programs a launch may have (None: the environment's limit, `simulator.launch`)."""
    mtia_options: object = None
    """The MTIA backend's switches: a BackendOptions or a dict of them (compiler/backend/options.py)."""
    launch_cooperative_grid: bool | None = None
    """Triton's cooperative launch: every program must be resident at once (at most one per PE)."""
    sample_waves: bool | None = None
    """A timing-only launch of many waves simulates its first waves and extrapolates the rest
    (`simulator/sampling.py`); None: the runtime's setting when the launch starts (sampled_launches.py)."""
    # --- filled by the launch, not a keyword
    config: object = None
    """The hardware target (`simulator.config.Config`) the launch compiles and runs for (target.py)."""
    registered: dict = field(default_factory=dict)
    """Keywords executors registered with `register_launch_keyword` that are not fields here, by name."""

    def __post_init__(self):
        check_mapping(self.pe_mapping)
        check_num_warps(self.num_warps)
        check_extern_libs(self.extern_libs)

    @property
    def extra(self) -> dict:
        """The launch's keywords beyond num_warps, num_stages and pe_mapping that were given, by name (the
        executor's choice and the resolved target left out): for an executor that reads options by name."""
        given = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _NOT_EXTRA}
        return {k: v for k, v in given.items() if v is not None} | dict(self.registered)


# the fields `LaunchOptions.extra` leaves out: Triton's own three, what the runtime consumed or resolved (the
# target, sampling), the bag itself
_NOT_EXTRA = ("num_warps", "num_stages", "pe_mapping", "executor", "config", "registered", "sample_waves")


def check_num_warps(num_warps) -> None:
    """Triton's rule for num_warps (each GPU backend's options): a power of 2. MTIA runs a program on one
    PE whatever it is (compiled.py reads it for n_regs only), but a kernel launched with num_warps=3 here
    would fail on the GPU it is ported to or from."""
    if num_warps is None:           # Triton's options read None as "the default"
        return
    ok = isinstance(num_warps, (int, np.integer)) and not isinstance(num_warps, bool) and num_warps > 0 \
        and num_warps & (num_warps - 1) == 0
    if not ok:
        raise ValueError(f"num_warps must be a power of 2, got num_warps={num_warps!r}")


# The libraries whose functions `triton.language.extra.libdevice` names: CUDA's libdevice, ROCm's ocml
# and ockl. A GPU backend links their LLVM bitcode from the paths given; the MTIA backend has no bitcode
# linker and implements those functions itself (compiler/language/extra/libdevice.py), on both executors.
EXTERN_LIBS = ("libdevice", "ocml", "ockl")


def check_extern_libs(libs) -> None:
    """Triton's `extern_libs={name: bitcode path}` launch option: the names must be libraries that
    libdevice's functions come from; their paths are not read (see EXTERN_LIBS)."""
    if libs is None:
        return
    if not isinstance(libs, dict):
        raise TypeError(f"extern_libs must be a dict {{library name: bitcode path}}, got {type(libs).__name__}")
    for name, path in libs.items():
        if name not in EXTERN_LIBS:
            raise ValueError(f"extern_libs[{name!r}]: the MTIA backend cannot link LLVM bitcode ({path!r}); it "
                             f"implements the functions of {', '.join(EXTERN_LIBS)} itself "
                             f"(triton.language.extra.libdevice), so only those names are accepted")
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"extern_libs[{name!r}] must be a path, got {type(path).__name__}")


@dataclass
class KernelArgs:
    """The runtime arguments, one per parameter of the compiled function (constexprs excluded):
    `PointerArg` for arrays, Python/numpy numbers for scalars."""
    names: list
    values: list
    buffers: list


@dataclass
class RunRecord:
    """What a launch did. `cycles`/`seconds` are simulated time (None when the executor has no clock).
    `numerics`: whether the results were computed (and so written back into the user's arrays);
    False for a timing-only run (`numerics=False`), which leaves every array as it was."""
    kernel: str
    grid: tuple
    executor: str
    cycles: int | None = None
    seconds: float | None = None
    wall_seconds: float = 0.0
    programs: int = 0
    numerics: bool = True
    reused: bool = False
    """Whether the record is an earlier identical timing-only launch's, not simulated again (launch_memo.py)."""

    @property
    def asm(self):
        """The launched kernel's stages (`compiled.asm`: "ttir"/"ir", "mtia-asm", ...): Triton's launch returns
        the compiled kernel, and tutorials print `kernel[grid](...).asm[...]`."""
        compiled = getattr(self, "compiled_kernel", None)
        if compiled is None:
            raise AttributeError("this run record was not made by a launch: it has no compiled kernel's stages")
        return compiled.asm

    def to_dict(self) -> dict:
        return asdict(self)

    def as_row(self) -> dict:
        return {k: v for k, v in self.to_dict().items() if not isinstance(v, (dict, list))}


@runtime_checkable
class Executor(Protocol):
    name: str

    def launch(self, compiled, grid: tuple, args: KernelArgs, options: LaunchOptions) -> RunRecord:
        ...


class UnknownExecutorError(ValueError, KeyError):
    """`executor=` names no registered executor. A ValueError (a bad argument) that is still the KeyError
    it used to be, with its message shown as written (a KeyError's str() quotes it)."""

    def __init__(self, name, registered):
        super().__init__(f"executor={name!r} is not an executor; the registered ones are "
                         f"{', '.join(repr(n) for n in registered)} ('interpreter': the numpy reference, "
                         f"'mtia': the simulated chip; register_executor() adds others)")

    def __str__(self) -> str:
        return self.args[0]


_REGISTRY: dict[str, object] = {}
_DEFAULT: list[str] = ["interpreter"]


def register_executor(name: str, executor) -> None:
    """Make `executor` (an Executor, or a zero-argument factory of one) available as `name`."""
    _REGISTRY[name] = executor


def _ensure_builtin():
    if "interpreter" not in _REGISTRY:
        from .interpreter_executor import InterpreterExecutor
        _REGISTRY["interpreter"] = InterpreterExecutor()


def get_executor(name: str | None = None):
    _ensure_builtin()
    name = name or _DEFAULT[-1]
    if name not in _REGISTRY:
        raise UnknownExecutorError(name, sorted(_REGISTRY))
    ex = _REGISTRY[name]
    if not hasattr(ex, "launch") and callable(ex):
        ex = ex()
        _REGISTRY[name] = ex
    return ex


def set_executor(executor) -> None:
    """Select the default executor: a registered name, or an executor object (registered under its name)."""
    if not isinstance(executor, str):
        register_executor(executor.name, executor)
        executor = executor.name
    _ensure_builtin()
    if executor not in _REGISTRY:
        raise UnknownExecutorError(executor, sorted(_REGISTRY))
    _DEFAULT[0] = executor


def registered_executors() -> Sequence[str]:
    _ensure_builtin()
    return sorted(_REGISTRY)


@contextmanager
def use_executor(executor):
    saved = list(_DEFAULT)
    set_executor(executor)
    try:
        yield get_executor()
    finally:
        _DEFAULT[:] = saved
