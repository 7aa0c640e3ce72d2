"""Compiled kernels (the frontend's output) kept in the disk cache, so that another process launching
the same kernel with the same specialisation does not compile it again.

An entry is keyed by the kernel's file, name, first line and source text and by the specialisation
(argument types, divisibility, constexpr values: `JITFunction.specialize`), on top of the sources of
the compiler itself (disk_cache.py). What else the frontend read is checked when the entry is read:
each module global the kernel or a @jit function it calls read (`globals_read`) is stored as a
fingerprint (a @jit function's source and place, a module's name and file, a number's or a string's value)
and must fingerprint alike now; a global whose value has no such fingerprint (a plain object, a
lambda) keeps its kernel out of the cache. A kernel defined by exec() has no file to key on: not kept.
"""
from __future__ import annotations

import functools
import hashlib
import sys
import types

from . import disk_cache

KIND = "kernels"
_PLAIN = (int, float, bool, str, bytes, type(None))


def _fingerprint(value):
    """A value's identity that another process computes alike, or None when it has none."""
    if getattr(value, "__triton_jit__", False) and hasattr(value, "source"):
        src = value.source
        return ("jit", src.file, src.first_line, hashlib.sha256(src.source.encode()).hexdigest())
    if isinstance(value, types.ModuleType):      # a kernel may call `helpers.fn`: the helper's file counts
        return ("module", value.__name__, _file_hash(getattr(value, "__file__", None)))
    if isinstance(value, _PLAIN):
        return ("value", type(value).__name__, repr(value))
    if isinstance(value, type):
        return ("class", value.__module__, value.__qualname__)
    text = repr(value)
    if " at 0x" in text or "object at" in text:     # an address: nothing another process could match
        return None
    return ("repr", type(value).__module__, type(value).__qualname__, text)


@functools.lru_cache(maxsize=None)
def _file_hash(path: str | None) -> str | None:
    """A module file's hash, read once per process."""
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def _entry(jitfn, key: tuple) -> str | None:
    src = jitfn.source
    if src.file.startswith("<"):
        return None
    return disk_cache.entry_key(KIND, src.file, src.name, src.first_line, src.source, key)


def load(jitfn, key: tuple):
    """The CompiledKernel another process compiled for this specialisation, or None."""
    entry = _entry(jitfn, key)
    stored = disk_cache.load(KIND, entry) if entry is not None else None
    if stored is None:
        return None
    compiled, reads = stored
    globals_read = []
    for module, name, fingerprint in reads:
        table = getattr(sys.modules.get(module), "__dict__", None)
        if table is None or name not in table or _fingerprint(table[name]) != fingerprint:
            return None                   # a global it compiled in is another value now: compile again
        globals_read.append((table, name, table[name]))
    compiled.globals_read = globals_read
    return compiled


def store(jitfn, key: tuple, compiled) -> None:
    """Keep `compiled` (just compiled, not launched yet) for other processes, if its globals allow."""
    entry = _entry(jitfn, key)
    if entry is None:
        return
    reads = []
    for table, name, value in getattr(compiled, "globals_read", ()):
        fingerprint = _fingerprint(value)
        module = table.get("__name__")
        if fingerprint is None or sys.modules.get(module) is None or sys.modules[module].__dict__ is not table:
            return
        reads.append((module, name, fingerprint))
    kept, jit_function, read = compiled, compiled.jit_function, compiled.globals_read
    try:
        kept.jit_function, kept.globals_read = None, []
        disk_cache.store(KIND, entry, (kept, reads))
    finally:
        kept.jit_function, kept.globals_read = jit_function, read
