"""A compiled kernel and its stages as text (`compiled.asm["ir"]`, ...).

Built-in stages: "source" (the Python source), "ir.frontend" (IR as the frontend made it),
"ir.<pass>" (after each pass of the pipeline) and "ir" (the final IR, also under Triton's name
"ttir"). A backend adds its own stages (e.g. "mtia-asm", "cpp", "json") with
`register_stage(name, producer)`; producers run lazily, the first time a stage is read, and
receive the CompiledKernel.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Callable

from ..ir.core import Module

_STAGE_PRODUCERS: dict[str, Callable[["CompiledKernel"], object]] = {}


def register_stage(name: str, producer: Callable[["CompiledKernel"], object]) -> None:
    """Add a stage every compiled kernel exposes in `.asm[name]`, computed by `producer(compiled)`."""
    _STAGE_PRODUCERS[name] = producer


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
            if name not in _STAGE_PRODUCERS:
                raise KeyError(f"no stage {name!r}; available: {', '.join(self)}")
            self._texts[name] = _STAGE_PRODUCERS[name](self._owner)
        return self._texts[name]

    def __iter__(self):
        yield from self._texts
        yield from (k for k in _STAGE_PRODUCERS if k not in self._texts)

    def __len__(self) -> int:
        return len(list(iter(self)))


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
    metadata: dict = field(default_factory=dict)   # free space for backends (resource use, ...)
    jit_function: object = field(default=None, repr=False)   # the @jit function it came from

    def __post_init__(self):
        self.asm = Stages(self, self.stage_texts)

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
