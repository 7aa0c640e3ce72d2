"""A SimPy discrete-event model of MTIA: an 8x8 grid of PEs with their engines, local stores and
circular buffers, a NoC, SRAM (LLC + scratch) and DRAM, executing `isa.Program` streams.

This package is the chip model only: the tools that drive it (the `mtiasim` command line, sweeps,
workloads by name, charts, benchmarks) are the `mtiasim` package above it.

The names below load on first use (PEP 562), so that importing the package does not pay for
pydantic and the config models before a caller needs them."""
from __future__ import annotations

import importlib

_EXPORTS = {"Config": "config", "get_config": "config", "load_config": "config", "set_config": "config",
            "use_config": "config", "ConfigError": "errors", "DeadlockError": "errors",
            "DeviceAssertionError": "errors", "ProgramError": "errors", "SanitizerError": "errors",
            "SimError": "errors", "StepLimitError": "errors"}
__all__ = list(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'simulator' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
