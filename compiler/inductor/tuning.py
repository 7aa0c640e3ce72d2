"""Block sizes tuned with the simulator as the cost: what a launcher ran fastest, remembered.

A point-wise or reduction kernel's first launch for an argument shape tries the candidates of
`blocks.candidates` around the first guess, each as a timing-only simulation (the same cycles as a
full run, no numerics; `time_candidates`, in parallel worker processes when that pays), and keeps the
fastest. The choice is remembered per kernel source (its name left out: Inductor names one fused
kernel differently at each call site), argument shapes and hardware config: in this process
(`_CHOSEN`), and in the disk cache (compiler/runtime/disk_cache.py, keyed with the compiler's and
simulator's sources too), so that neither another call site nor another process tunes it again.
"""
from __future__ import annotations

import hashlib
import time

from ..errors import OutOfResources
from ..runtime import disk_cache, trials

KIND = "blocks"
_CHOSEN: dict[str, dict] = {}            # entry key -> block sizes chosen in this process
# trials go to worker processes only when the first one's time times the others reaches this (forking
# costs tens of milliseconds, as in compiler/runtime/autotune.py)
PARALLEL_MIN_SECONDS = 1.0
# A first trial of more commands than this is a production-size launch (2048 rows of a Llama-2-7B
# RMSNorm: 17 s of host time): its neighbours are not tried, the first guess (`blocks.choose`, sized so
# that every PE has a program and the tiles fill the local store) is kept. Trying four more would cost
# minutes per kernel, where at that size the guess moves whole rows in long runs on every PE already.
# Counted in commands, not seconds, so that the choice never depends on the host's load.
MAX_TRIAL_COMMANDS = 20_000


def config_id(cfg) -> str:
    """The hardware config's identity (its name and every value: overrides make another config)."""
    return f"{cfg.name}-{hashlib.sha256(cfg.model_dump_json().encode()).hexdigest()[:12]}"


def kernel_id(fn, name: str) -> str:
    """A kernel's source with its own name taken out: alike for one kernel defined at two call sites."""
    return fn.source.source.replace(name, "<kernel>")


def _entry(fn, name: str, key: str) -> str:
    return disk_cache.entry_key(KIND, kernel_id(fn, name), key)


def load(fn, name: str, key: str) -> dict | None:
    """The block sizes chosen for kernel `fn` (named `name`) and `key` (shapes and config), or None."""
    entry = _entry(fn, name, key)
    cfg = _CHOSEN.get(entry)
    if cfg is None:
        cfg = disk_cache.load(KIND, entry)
        if not isinstance(cfg, dict):
            return None
        _CHOSEN[entry] = cfg
    return dict(cfg)


def store(fn, name: str, key: str, cfg: dict) -> None:
    entry = _entry(fn, name, key)
    _CHOSEN[entry] = dict(cfg)
    disk_cache.store(KIND, entry, dict(cfg))


def clear() -> None:
    """Forget this process's choices (the disk cache stays)."""
    _CHOSEN.clear()


def time_candidates(cycles_of, candidates: list) -> tuple[dict, Exception | None]:
    """({candidate as a tuple of items: cycles} of those that fit, the error of one that did not).
    `cycles_of(candidate)` runs one timing-only trial; the first runs here, the others in forked workers
    (compiler/runtime/trials.py) when the first one's time says they would take a second or more, and
    none of them when it issued more than MAX_TRIAL_COMMANDS (the first is then the choice). A trial
    returns a run record (its `.cycles` and its report's commands are read) or the cycles alone."""
    cycles, last = {}, None
    start = time.perf_counter()
    try:
        first = cycles_of(candidates[0])
        cycles[tuple(candidates[0].items())] = _cycles(first)
        report = getattr(first, "report", None)
        if getattr(report, "commands", 0) > MAX_TRIAL_COMMANDS:
            return cycles, last
    except OutOfResources as e:
        last = e
    rest = list(range(1, len(candidates)))
    workers = trials.default_workers()
    if (time.perf_counter() - start) * len(rest) < PARALLEL_MIN_SECONDS:
        workers = 1
    outcomes = trials.run_trials(lambda i: _cycles(cycles_of(candidates[i])), rest, workers)
    for i, outcome in sorted(outcomes.items()):
        if not outcome.failed:
            cycles[tuple(candidates[i].items())] = outcome.cost
            continue
        try:                    # a worker's failure comes back as text: again here, for the exception itself
            cycles[tuple(candidates[i].items())] = _cycles(cycles_of(candidates[i]))
        except OutOfResources as e:        # its tiles do not fit (found at compile time: cheap to repeat)
            last = e
    return cycles, last


def _cycles(trial) -> float:
    return trial.cycles if hasattr(trial, "cycles") else trial
