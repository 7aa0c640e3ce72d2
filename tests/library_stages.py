"""The compiled stages of every kernel the kernel library launches (each library kernel runs once,
timing only, at its smallest test shape on mtia-small), for tests that check each backend stage."""
from __future__ import annotations

import functools
import importlib

import numpy as np

from compiler.kernels import MODULES, library
from compiler.runtime import launch_memo, use_executor
from simulator import use_config


@functools.cache
def library_stages() -> dict[str, dict]:
    """{kernel name: {stage name: text}} for the MTIA compiles of every library kernel's kernels."""
    # every launch simulated (no launch reused from an earlier identical one), so every kernel is compiled
    with use_executor("mtia"), use_config("mtia-small"), launch_memo.disabled():
        for k in library().values():
            shape = min(k.test_shapes, key=lambda s: int(np.prod(s)))
            k.run(*k.make_inputs(shape, np.random.default_rng(0)), numerics=False)
    out = {}
    for module in MODULES:
        mod = importlib.import_module(f"compiler.kernels.{module}")
        for fn in vars(mod).values():
            for compiled in getattr(fn, "cache", {}).values() if hasattr(fn, "compile_count") else ():
                for _, stages in compiled.mtia.programs.values():
                    out.setdefault(compiled.name, stages)
    return out
