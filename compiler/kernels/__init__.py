"""The kernel library: Triton kernels written for MTIA the way a GPU user would write them.

Each module holds the `@triton.jit` kernel(s), a host function that launches them on numpy arrays
and returns `(outputs, runs)`, a numpy `reference`, and `make_inputs(shape, rng)` for tests,
benchmarks and sweeps. `LIBRARY` lists them by name.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class LibraryKernel:
    name: str
    description: str
    run: Callable            # run(*inputs, **meta) -> (outputs tuple, list of run records)
    reference: Callable      # reference(*inputs) -> outputs tuple (numpy)
    make_inputs: Callable    # make_inputs(shape: tuple, rng) -> inputs tuple
    default_shape: tuple
    test_shapes: tuple       # shapes the tests check (several not multiples of the blocks)
    rtol: float = 1e-5
    atol: float = 1e-5
    dims: tuple = ()         # names of the shape's entries (for the CLI and sweeps)
    blocks: tuple = ()       # block-size constexprs the host function takes as overrides (`-p BLOCK_M=128`);
                             # left out, it picks them for the device's config (PEs, local store)


def _load() -> dict[str, LibraryKernel]:
    import importlib
    kernels = {}
    for name in MODULES:
        mod = importlib.import_module(f"{__name__}.{name}")
        for k in mod.LIBRARY:
            kernels[k.name] = k
    return kernels


MODULES = ("vector_add", "row_sum", "softmax", "matmul", "matmul_tutorial", "layernorm", "attention", "embedding_bag", "int8_gemm", "gemv")
_LIBRARY: dict[str, LibraryKernel] | None = None


def library() -> dict[str, LibraryKernel]:
    global _LIBRARY
    if _LIBRARY is None:
        _LIBRARY = _load()
    return _LIBRARY
