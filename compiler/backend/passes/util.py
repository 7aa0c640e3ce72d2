"""Small helpers the backend passes share."""
from __future__ import annotations

import linecache

from ...errors import CompilationError
from ...ir.passes import DeadCodeElimination
from ...ir.passes.constant_fold import constant_value

__all__ = ["constant_value", "erase_dead", "error_at"]


def erase_dead(module) -> None:
    DeadCodeElimination().run(module)


def error_at(op, message: str, cls=CompilationError, **extra) -> CompilationError:
    """A CompilationError (or subclass `cls`) pointing at the kernel line `op` came from (with a caret)."""
    loc = getattr(op, "loc", None)
    if loc is None:
        return cls(message, **extra)
    return cls(message, loc.file, loc.line, loc.col, linecache.getline(loc.file, loc.line) or None, **extra)
