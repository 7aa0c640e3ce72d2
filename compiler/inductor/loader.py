"""Python modules from generated source: written to a real file (our frontend reads kernel source
from the file a function came from), imported once per distinct source."""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile

_MODULES: dict[str, object] = {}


def cache_dir() -> str:
    path = os.environ.get("MTIASIM_INDUCTOR_CACHE") or os.path.join(tempfile.gettempdir(), "mtiasim-inductor")
    os.makedirs(path, exist_ok=True)
    return path


def load_module(name: str, source: str):
    """Import `source` as a module named after `name` and its hash (the same source: the same module)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:20]
    mod = _MODULES.get(digest)
    if mod is not None:
        return mod
    path = os.path.join(cache_dir(), f"{name}_{digest}.py")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(source)
        os.replace(tmp, path)              # atomic: parallel test workers may write the same file
    mod_name = f"mtiasim_inductor_{name}_{digest}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = mod            # inspect.getsource finds functions through sys.modules
    spec.loader.exec_module(mod)
    _MODULES[digest] = mod
    return mod
