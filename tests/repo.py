"""The repository's folders, for tests at any depth of tests/ (`from repo import ROOT`)."""
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent      # the repository: README.md, notebooks/, examples/
TESTS = ROOT / "tests"                              # shared test data: portability/, difftest/


def mtiasim_exe() -> str:
    """The `mtiasim` console script of this Python's environment (the tests run it as users do)."""
    exe = Path(sys.executable).parent / "mtiasim"
    return str(exe) if exe.exists() else (shutil.which("mtiasim") or pytest.skip("mtiasim is not installed"))
