"""A compiled kernel and its stages as text (`compiled.asm["ir"]`, ...).

Built-in stages: "source" (the Python source), "ir.frontend" (IR as the frontend made it),
"ir.<pass>" (after each pass of the pipeline) and "ir" (the final IR, also under Triton's name
"ttir"). A backend adds its own stages (e.g. "mtia-asm", "cpp", "json") with
`register_stage(name, producer)`; producers run lazily, the first time a stage is read, and
receive the CompiledKernel.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Callable

from ..ir.core import Module

_STAGE_PRODUCERS: dict[str, Callable[["CompiledKernel"], object]] = {}
# stages whose names only a backend knows, added when a stage is first looked up or listed: so that
# `import compiler` does not load the backend to learn them
_STAGE_SOURCES: list[Callable[[], dict]] = []


def register_stage(name: str, producer: Callable[["CompiledKernel"], object]) -> None:
    """Add a stage every compiled kernel exposes in `.asm[name]`, computed by `producer(compiled)`."""
    _STAGE_PRODUCERS[name] = producer


def register_stages(source: Callable[[], dict]) -> None:
    """Add the stages `source()` returns ({name: producer}), asking it only when stages are first read."""
    _STAGE_SOURCES.append(source)


def _producers() -> dict:
    """Every stage producer, the registered sources' asked first (a source that fails is asked again)."""
    while _STAGE_SOURCES:
        for name, producer in _STAGE_SOURCES[0]().items():
            _STAGE_PRODUCERS.setdefault(name, producer)
        _STAGE_SOURCES.pop(0)
    return _STAGE_PRODUCERS


def unregister_stage(name: str) -> None:
    _STAGE_PRODUCERS.pop(name, None)


# Triton's names for our stages, so code that reads `compiled.asm["ttir"]` finds the block IR
TRITON_STAGE_NAMES = {"ttir": "ir"}


class Stages(Mapping):
    """Stage name -> text; backend stages are produced on first access and cached."""

    def __init__(self, owner: "CompiledKernel", texts: dict[str, str]):
        self._owner = owner
        self._texts = dict(texts)

    def __getitem__(self, name: str):
        name = TRITON_STAGE_NAMES.get(name, name) if name not in self._texts else name
        if name not in self._texts:
            if name not in _producers():
                raise KeyError(f"no stage {name!r}; available: {', '.join(self)}")
            self._texts[name] = _STAGE_PRODUCERS[name](self._owner)
        return self._texts[name]

    def __iter__(self):
        yield from self._texts
        yield from (k for k in _producers() if k not in self._texts)

    def __len__(self) -> int:
        return len(list(iter(self)))


class KernelMetadata(dict):
    """`compiled.metadata`: backends' free space, readable as attributes too, as Triton's
    `kernel.metadata.shared` is read (after `kernel._init_handles()`)."""

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"kernel metadata has no {name!r} (it has {', '.join(self) or 'nothing'}; "
                                 f"`shared` is there after kernel._init_handles())") from None


@dataclass(eq=False)
class MtiaPrograms:
    """The MTIA backend's output for one compiled kernel, kept with the kernel so that a second launch with
    the same specialisation compiles nothing (filled by compiler/backend/launch/specialize.py), and in the
    disk cache (`stored`, `store`) so that another process compiling the same kernel does not either."""
    programs: dict = field(default_factory=dict)     # (config JSON, num_stages, switches off) -> (program, stages)
    modules: dict = field(default_factory=dict)      # the same key -> the module the backend's passes left
    broadcast: dict = field(default_factory=dict)    # (id of a program, the broadcast groups chosen) -> its program
    compiles: int = 0                                # backend compiles so far (tests count recompiles with it)
    loaded: int = 0                                  # programs read from the disk cache instead

    @staticmethod
    def _entry(kernel: str, key: tuple) -> str:
        from . import disk_cache
        config, *rest = key                          # the config's JSON is long: its hash names it
        return disk_cache.entry_key("mtia", kernel, hashlib.sha256(config.encode()).hexdigest(), *rest)

    def stored(self, kernel: str, key: tuple):
        """(program, stages, module after the passes) that a process compiled for the kernel whose
        fingerprint is `kernel` and `key`, or None."""
        from . import disk_cache
        hit = disk_cache.load("mtia", self._entry(kernel, key))
        if hit is not None:
            self.loaded += 1
        return hit

    def store(self, kernel: str, key: tuple, value: tuple) -> None:
        from . import disk_cache
        disk_cache.store("mtia", self._entry(kernel, key), value)


@dataclass(eq=False)
class CompiledKernel:
    """One specialisation of a @jit function, compiled to IR."""
    name: str
    module: Module                          # the final IR (after the pass pipeline)
    arg_names: list                         # runtime parameters in IR order
    signature: dict                         # runtime parameter -> IR type text
    constexprs: dict                        # compile-time parameter -> value
    source: str = ""
    file: str = ""
    stage_texts: dict = field(default_factory=dict)
    metadata: dict = field(default_factory=KernelMetadata)   # free space for backends (resource use, ...)
    jit_function: object = field(default=None, repr=False)   # the @jit function it came from
    mtia: MtiaPrograms = field(default_factory=MtiaPrograms, repr=False)   # the MTIA backend's programs of it

    def __post_init__(self):
        self.asm = Stages(self, self.stage_texts)
        if not isinstance(self.metadata, KernelMetadata):
            self.metadata = KernelMetadata(self.metadata)
        self._fingerprint = None

    @property
    def fingerprint(self) -> str:
        """What this kernel is, as a hash that another process computes alike: its final IR (module
        globals compiled in included) and the source locations of its ops (the IR text leaves them out;
        a program's line table and errors show them), name, file, parameters and constexprs. The caches
        key on it."""
        if self._fingerprint is None:
            text = repr((self.name, self.file, self.asm["ir"], self.op_lines(), list(self.arg_names),
                         dict(self.signature), sorted((k, repr(v)) for k, v in self.constexprs.items())))
            self._fingerprint = hashlib.sha256(text.encode()).hexdigest()
        return self._fingerprint

    def op_lines(self) -> list:
        """(line, column) of each op of the final IR, in order (None for an op without a location)."""
        return [(op.loc.line, op.loc.col) if op.loc else None for op in self.module.walk()]

    # --- what GPU host code asks of a compiled kernel (Triton's tutorial 02 sizes its grid with these)
    def _init_handles(self) -> None:
        """Triton loads the binary here; the simulator has nothing to load. Fills `metadata.shared`:
        the local-store bytes the kernel's MTIA program keeps in circular buffers on its PE (the
        current config, the warmup's num_stages), where a GPU reports its shared memory."""
        from .mtia_executor import mtia_program
        from .target import default_config
        program = mtia_program(self, default_config(), self.metadata.get("num_stages", 3))[0]
        self.metadata["shared"] = max((cb.base + cb.nbytes for cb in program.cbs), default=0)

    @property
    def n_regs(self) -> int:
        """Registers per thread, as Triton's occupancy formula counts them: a PE runs one program at a
        time, so a program holds all its PE's registers (`max_num_regs` of the device properties)
        spread over its num_warps threads, and the formula gives one program per PE."""
        from .driver import PE_REGISTERS
        return max(1, PE_REGISTERS // int(self.metadata.get("num_warps", 4)))

    def __getitem__(self, grid):
        """Launch this very specialisation, as Triton's `kernel = fn.warmup(...); kernel[grid](*args)`:
        the arguments are all of the function's (constexprs too) and must specialise to this kernel."""
        if self.jit_function is None:
            raise TypeError(f"{self.name} was compiled from a signature, not from arguments: launch the @jit "
                            f"function instead")
        return lambda *args, **kwargs: self.jit_function.run(*args, grid=grid, _expect=self, **kwargs)

    @property
    def function(self):
        return self.module.function()

    def __repr__(self) -> str:
        sig = ", ".join(f"{n}: {t}" for n, t in self.signature.items())
        return f"<CompiledKernel {self.name}({sig}) constexprs={self.constexprs}>"
