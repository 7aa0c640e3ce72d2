"""How fast `mtiasim` starts: `mtiasim --help` timed against `python -c "import numpy"`, measured
side by side in the same run (alternating, so a busy machine slows both alike), best of `repeats`."""
from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

TARGET_RATIO = 3.0        # issue 10: the CLI starts in at most 3x the time of importing numpy


def _mtiasim() -> list[str]:
    """The console script next to this Python (as a user runs it), else the module."""
    exe = Path(sys.executable).with_name("mtiasim")
    found = str(exe) if exe.exists() else shutil.which("mtiasim")
    return [found] if found else [sys.executable, "-m", "mtiasim"]


def _seconds(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=120)
    return time.perf_counter() - t


def startup_times(repeats: int = 7) -> dict:
    numpy_cmd = [sys.executable, "-c", "import numpy"]
    help_cmd = _mtiasim() + ["--help"]
    numpy_s, help_s = [], []
    for _ in range(repeats):
        numpy_s.append(_seconds(numpy_cmd))
        help_s.append(_seconds(help_cmd))
    best_numpy, best_help = min(numpy_s), min(help_s)
    return {"numpy_import_s": best_numpy, "mtiasim_help_s": best_help, "ratio": best_help / best_numpy,
            "target_ratio": TARGET_RATIO, "repeats": repeats, "command": " ".join(help_cmd)}


def format_startup(b: dict) -> str:
    return "\n".join([
        f"startup, best of {b['repeats']} alternating runs",
        f"  python -c 'import numpy'   {b['numpy_import_s']:.3f} s   (baseline, same run)",
        f"  mtiasim --help             {b['mtiasim_help_s']:.3f} s",
        f"  ratio                      {b['ratio']:.2f}x   (target: at most {b['target_ratio']:.0f}x)"])
