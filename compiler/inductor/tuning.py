"""Block sizes tuned with the simulator as the cost: what a launcher ran fastest, remembered.

A point-wise or reduction kernel's first launch for an argument shape tries the candidates of
`blocks.candidates` around the first guess, each as a timing-only simulation (the same cycles as a
full run, no numerics), and keeps the fastest. The choice is remembered per kernel source, argument
shapes and hardware config: in the launcher for the process, and in a JSON file beside the loaded
kernel modules (`loader.cache_dir()`), so another process running the same model does not tune again.
"""
from __future__ import annotations

import hashlib
import json
import os

from .loader import cache_dir


def config_id(cfg) -> str:
    """The hardware config's identity (its name and every value: overrides make another config)."""
    return f"{cfg.name}-{hashlib.sha256(cfg.model_dump_json().encode()).hexdigest()[:12]}"


def _path(module: str, kernel: str) -> str:
    """The table of one kernel: named by the start of the kernel's name (Inductor's fused names run past
    a file name's 255 bytes) and the hash of its module and name."""
    folder = os.path.join(cache_dir(), "blocks")
    os.makedirs(folder, exist_ok=True)
    digest = hashlib.sha256(f"{module}.{kernel}".encode()).hexdigest()[:20]
    return os.path.join(folder, f"{kernel[:100]}_{digest}.json")


def _read(path: str) -> dict:
    try:
        with open(path) as f:
            table = json.load(f)
        return table if isinstance(table, dict) else {}
    except (OSError, ValueError):          # absent, or half-written by a process that died: tune again
        return {}


def load(module: str, kernel: str, key: str) -> dict | None:
    cfg = _read(_path(module, kernel)).get(key)
    return dict(cfg) if isinstance(cfg, dict) else None


def store(module: str, kernel: str, key: str, cfg: dict) -> None:
    path = _path(module, kernel)
    table = _read(path)
    table[key] = cfg
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
    os.replace(tmp, path)                  # atomic: parallel workers may tune the same kernel
