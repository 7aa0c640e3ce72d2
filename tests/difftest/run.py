"""Run a generated kernel on both executors and compare what they wrote.

The kernel source is written to a file and imported from there (the frontend reads a kernel's
source from its file). Inputs come from the case's seed; outputs start poisoned (NaN for floats,
0x5A bytes for integers) so an element one executor writes and the other does not shows. The MTIA
executor runs on the small 2x2-PE config. Outputs must agree bit for bit unless the case gives
them a tolerance (inexact float work), and then within it.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import sys
import tempfile
from pathlib import Path

import numpy as np

from compiler.errors import CompilationError
from simulator import use_config
from simulator.config import load_config

from .generate import INPUT_BOUND, Case
from .types import np_dtype

EXECUTORS = ("interpreter", "mtia")
_DIR = Path(tempfile.gettempdir()) / "mtiasim-difftest"


class Disagreement(AssertionError):
    """The executors differ on a valid kernel (or only one of them accepts it)."""


def load_kernel(source: str):
    """The `kernel` of `source`, imported from a file named by the source's hash."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:16]
    name = f"difftest_{digest}"
    if name in sys.modules:
        return sys.modules[name].kernel
    _DIR.mkdir(parents=True, exist_ok=True)
    path = _DIR / f"{name}.py"
    if not path.exists():
        path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module.kernel


def inputs(case: Case) -> dict:
    """Each array of `case` as the flat array it lives in: inputs filled from the seed (with the
    array's special values at about half the places), outputs poisoned."""
    rng = np.random.default_rng(case.seed)
    out = {}
    for a in case.arrays:
        dt = np_dtype(a.dtype)
        floating = np.dtype(dt).kind == "f" or a.dtype == "bf16"
        if a.output:
            x = np.empty(a.size, dt)
            if floating:
                x[...] = np.nan
            else:
                x.view(np.uint8)[...] = 0x5A
        elif floating:
            x = rng.uniform(-INPUT_BOUND, INPUT_BOUND, a.size).astype(np.float32)
            x[rng.random(a.size) < 0.1] = 0.0           # some zeros (and ties for max/argmax)
            x = x.astype(dt)
        else:
            info = np.iinfo(dt)
            x = rng.integers(info.min, info.max, a.size, endpoint=True, dtype=dt)
            small = rng.random(a.size) < 0.3                 # small values too: ties, shifts, divisions
            x[small] = rng.integers(-3, 4, int(small.sum())).astype(dt)
        if a.special and not a.output:
            at = np.flatnonzero(rng.random(a.size) < 0.5)
            pool = np.array(a.special, dtype=np.float64 if floating else dt)
            with np.errstate(over="ignore"):            # 1e10 as f16 is inf: one more special value
                x[at] = pool[rng.integers(0, len(pool), at.size)].astype(dt)
        out[a.name] = x
    return out


def arguments(case: Case, arrays: dict) -> dict:
    """The array arguments as the kernel gets them: the array, or the view of it the case names."""
    return {a.name: eval(a.view, {"np": np, "a": arrays[a.name]}) if a.view else arrays[a.name]
            for a in case.arrays}


@functools.cache
def small_config():
    """The mtia-small config, read once: parsing its YAML for every launch took as long as the rest of
    a kernel's check (a config object is not changed by a launch)."""
    return load_config("mtia-small")


def run_on(case: Case, executor: str) -> dict:
    kernel = load_kernel(case.source)
    arrays = inputs(case)
    args = list(arguments(case, arrays).values()) + list(case.scalars.values())
    if executor == "mtia":
        with use_config(small_config()):
            kernel[(case.grid,)](*args, executor="mtia")
    else:
        kernel[(case.grid,)](*args, executor=executor)
    return {a.name: arrays[a.name] for a in case.arrays if a.output}


def expected(case: Case) -> dict:
    """What numpy says the outputs `case.reference` covers must hold (empty without one)."""
    if not case.reference:
        return {}
    scope = {"np": np}
    exec(case.reference, scope)  # noqa: S102 - the generator's own text
    arrays = inputs(case)
    return scope["reference"](arrays, arguments(case, arrays), dict(case.scalars))


def compare(case: Case, name: str, ref: np.ndarray, got: np.ndarray, who=("interpreter", "mtia")) -> str | None:
    atol = case.tolerances.get(name)
    if atol is None:
        if ref.dtype.kind == "f" or ref.dtype == np_dtype("bf16"):
            same = (ref.view(np.uint8).reshape(ref.size, -1) == got.view(np.uint8).reshape(got.size, -1)).all(1)
            same |= np.isnan(ref.astype(np.float32)) & np.isnan(got.astype(np.float32))
        else:
            same = ref == got
    else:
        r, g = ref.astype(np.float64), got.astype(np.float64)
        same = (r == g) | (np.abs(r - g) <= atol) | (np.isnan(r) & np.isnan(g))     # (inf - inf is nan)
    if same.all():
        return None
    bad = np.flatnonzero(~same)
    i = bad[0]
    how = "bit for bit" if atol is None else f"within {atol:.3g}"
    return (f"{name} differs {how} at {bad.size} of {ref.size} elements; first at [{i}]: "
            f"{who[0]} {ref[i]!r}, {who[1]} {got[i]!r}")


def check(case: Case) -> None:
    """Raise `Disagreement` when the executors differ on `case`, or either differs from numpy's
    reference where the case has one."""
    want = expected(case)
    try:
        ref = run_on(case, "interpreter")
    except Exception as e:
        if not want:
            raise           # no reference: an error here is a generator bug, it propagates
        raise Disagreement(f"the interpreter fails on a kernel numpy computes: {type(e).__name__}: {e}") from None
    problems = [p for p in (compare(case, n, want[n], ref[n], ("numpy", "interpreter")) for n in want) if p]
    try:
        got = run_on(case, "mtia")
    except CompilationError as e:
        raise Disagreement("\n".join(problems + [f"the MTIA backend refuses a kernel the interpreter runs: {e}"])) \
            from None
    except Exception as e:  # noqa: BLE001 - any failure on MTIA alone is a disagreement
        raise Disagreement("\n".join(problems + [f"MTIA fails where the interpreter runs: {type(e).__name__}: {e}"])) \
            from None
    problems += [p for p in (compare(case, n, want[n], got[n], ("numpy", "mtia")) for n in want) if p]
    problems += [p for p in (compare(case, n, ref[n], got[n]) for n in ref) if p]
    if problems:
        raise Disagreement("\n".join(problems))
