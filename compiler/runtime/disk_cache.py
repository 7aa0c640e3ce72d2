"""The cache directory that outlives a process: compiled programs, tuned block sizes, timing-only results.

    root()                   the directory, or None when caching to disk is off
    source_hash()            what the compiler, simulator and ISA sources hash to (once per process)
    entry_key(*parts)        a file name for one entry: the parts and the source hash, hashed
    load(kind, key)          the entry's object, or None (absent, unreadable, written by other sources)
    store(kind, key, obj)    write it atomically (a temporary file, then a rename)

The directory is `MTIASIM_CACHE_DIR`, else ~/.cache/mtiasim; `MTIASIM_CACHE_DIR=off` turns every disk
cache off. Each entry's name hashes the sources of the packages that made it (compiler/, simulator/,
isa/), so an edit to any of them makes the old entries unreachable instead of wrong; whatever else
an entry depends on (the hardware config, the kernel, its arguments) its caller puts in the key.
Several processes may fill the cache at once: a writer renames a finished file into place, so a
reader sees a whole entry or none, and two writers of one entry write the same bytes.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path

ENV = "MTIASIM_CACHE_DIR"
OFF = "off"
# the packages whose code decides what a cached entry holds
_PACKAGES = ("compiler", "simulator", "isa")
_SOURCE_HASH: list[str] = []            # computed on first use; tests may replace it (set_source_hash)


def root() -> Path | None:
    """The cache directory (made if absent), or None when `MTIASIM_CACHE_DIR=off`."""
    text = os.environ.get(ENV)
    if text is not None and text.strip().lower() == OFF:
        return None
    path = Path(text) if text else Path.home() / ".cache" / "mtiasim"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:                      # a read-only home: run without the cache rather than fail
        return None
    return path


def source_hash() -> str:
    """The hash of every .py file of the compiler, simulator and ISA packages (paths and bytes), read once
    per process: a few hundred small files, tens of milliseconds."""
    if not _SOURCE_HASH:
        digest = hashlib.sha256()
        top = Path(__file__).resolve().parents[2]
        for package in _PACKAGES:
            for path in sorted((top / package).rglob("*.py")):
                digest.update(str(path.relative_to(top)).encode())
                digest.update(path.read_bytes())
        _SOURCE_HASH.append(digest.hexdigest()[:16])
    return _SOURCE_HASH[0]


def set_source_hash(value: str | None) -> None:
    """Pretend the sources hash to `value` (None: hash them again): how tests show an edit invalidates."""
    _SOURCE_HASH.clear()
    if value is not None:
        _SOURCE_HASH.append(value)


def entry_key(*parts) -> str:
    """A file name for the entry that `parts` (their reprs) and the current sources identify."""
    digest = hashlib.sha256(source_hash().encode())
    for part in parts:
        digest.update(b"\0" + repr(part).encode())
    return digest.hexdigest()[:32]


def _path(kind: str, key: str) -> Path | None:
    base = root()
    return None if base is None else base / kind / f"{key}.pkl"


def load(kind: str, key: str):
    """The object stored under (kind, key), or None."""
    path = _path(kind, key)
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except FileNotFoundError:
        return None
    except Exception:                    # torn by a crash, or pickled by other code: as if absent
        return None


def store(kind: str, key: str, obj) -> bool:
    """Write `obj` under (kind, key); False (nothing written) when caching is off or `obj` does not pickle."""
    path = _path(kind, key)
    if path is None:
        return False
    try:
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:                    # an object holding a lock, a module, a lambda: not cached
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{key}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)            # atomic: a reader sees the old entry, or none, or this one whole
    except OSError:
        Path(tmp).unlink(missing_ok=True)
        return False
    return True
