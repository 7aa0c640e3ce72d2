"""Autotune trials in parallel worker processes.

A trial is one timing-only launch of one config; trials are independent, so the autotuner runs them
in a pool of worker processes (`concurrent.futures`). Each worker is a fork of the tuning process:
a trial sees exactly what the caller set up (the hardware config in use, the executor, the kernel's
globals, the arguments) without pickling any of it. Only a config's index goes out, and its cost
(cycles, or None from an executor without a clock) or the failure that stopped it comes back.

Trials are bounded by the simulator itself (every launch has a step limit, a deadlock is an error);
a worker that dies fails its trials instead of hanging the pool, a `timeout` (seconds without any
trial finishing) gives up on the trials still running, and an interrupt (Ctrl-C) kills the workers
before it propagates. Where fork is not available (Windows), trials run one after another here.
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import os
import signal
from dataclasses import dataclass
from typing import Callable, Iterable

# the number of worker processes when the autotuner is not given one (default: os.cpu_count())
WORKERS_ENV = "MTIASIM_AUTOTUNE_WORKERS"


@dataclass(frozen=True)
class Outcome:
    """What one trial gave: its cost (None from an executor without a clock), or why it failed."""
    cost: float | None = None
    error: str | None = None          # "OutOfResources: ..." for a config that failed to compile or run

    @property
    def failed(self) -> bool:
        return self.error is not None

    @classmethod
    def of(cls, cost) -> "Outcome":
        return cls(cost=None if cost is None else float(cost))

    @classmethod
    def of_error(cls, e: Exception) -> "Outcome":
        return cls(error=f"{type(e).__name__}: {e}")


def default_workers() -> int:
    """MTIASIM_AUTOTUNE_WORKERS if set, else the machine's CPU count."""
    text = os.environ.get(WORKERS_ENV)
    if text is None:
        return os.cpu_count() or 1
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(f"{WORKERS_ENV}={text!r}: the number of autotune worker processes must be an integer >= 1")
    return n


def can_fork() -> bool:
    """Whether trials can run in forked workers: not on Windows, not inside a worker itself, and not in a
    daemonic process (a Dask or multiprocessing pool worker running a sweep point), which may have no
    children."""
    return "fork" in mp.get_all_start_methods() and not _IN_WORKER and not mp.current_process().daemon


def run_one(trial: Callable[[int], float | None], index: int) -> Outcome:
    """Run one trial here; an exception fails the trial, with its type and message kept."""
    try:
        return Outcome.of(trial(index))
    except Exception as e:
        return Outcome.of_error(e)


def run_trials(trial: Callable[[int], float | None], indices: Iterable[int], workers: int,
               timeout: float | None = None) -> dict[int, Outcome]:
    """{index: Outcome} of `trial(index)` for every index, run in up to `workers` forked processes.

    The result does not depend on the order in which trials finish. `timeout`: seconds to wait for
    the next trial to finish before the ones still running are failed (None: no limit).
    """
    indices = list(indices)
    workers = min(workers, len(indices))
    if workers <= 1 or not can_fork():
        return {i: run_one(trial, i) for i in indices}
    global _TRIAL
    _TRIAL = trial              # set before the fork: the workers find it here
    pool = cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("fork"), initializer=_start_worker)
    try:
        futures = {pool.submit(_run_in_worker, i): i for i in indices}
        outcomes, finished = _collect(futures, timeout)
        if not finished:                 # timed out: what is still running will not be waited for
            _kill(pool)
        return {i: outcomes[i] for i in indices}
    except BaseException:        # KeyboardInterrupt included: no worker outlives the tuning
        _kill(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _TRIAL = None


def _collect(futures: dict, timeout: float | None) -> tuple[dict[int, Outcome], bool]:
    """({index: Outcome} of every future, whether all of them finished before a timeout)."""
    outcomes, pending = {}, set(futures)
    while pending:
        done, pending = cf.wait(pending, timeout=timeout, return_when=cf.FIRST_COMPLETED)
        if not done:
            for f in pending:
                outcomes[futures[f]] = Outcome(error=f"TimeoutError: no trial finished within {timeout} s")
            return outcomes, False
        for f in done:
            try:
                outcomes[futures[f]] = f.result()
            except cf.process.BrokenProcessPool as e:     # the worker died (killed, out of memory)
                outcomes[futures[f]] = Outcome(error=f"BrokenProcessPool: {e}")
    return outcomes, True


def _kill(pool: cf.ProcessPoolExecutor) -> None:
    """Stop the workers now rather than after their current trial (which may run for minutes)."""
    terminate = getattr(pool, "terminate_workers", None)        # Python 3.14
    if terminate is not None:
        terminate()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


# --- inside a worker ---
_TRIAL: Callable[[int], float | None] | None = None
_IN_WORKER = False


def _start_worker() -> None:
    global _IN_WORKER
    _IN_WORKER = True                                    # a trial that autotunes runs its own trials in place
    signal.signal(signal.SIGINT, signal.SIG_IGN)         # Ctrl-C is the tuning process's to handle


def _run_in_worker(index: int) -> Outcome:
    return run_one(_TRIAL, index)
