"""Config, @autotune and @heuristics, with Triton's decorator signatures.

The autotuner benchmarks each config with the current executor *without* committing results
(user arrays stay untouched during tuning), timing only on the simulator (`numerics=False`: the
same cycles, without computing the numbers; only the winner's run computes them), takes the run
record's `cycles` as the cost and caches the fastest config per key (values of the `key`
arguments plus the dtypes of array arguments); of equal costs the earlier config wins.
An executor without a clock (cycles=None, e.g. the interpreter) makes it pick the first config.

The first trial runs in this process (it tells whether the executor has a clock); the others run in
parallel worker processes (`trials.py`): `workers=` of @autotune, else MTIASIM_AUTOTUNE_WORKERS, else
os.cpu_count() of them; without `workers=`, only when the first trial's time says the rest would
take longer than starting workers costs. A config that fails (OutOfResources: its tiles do not fit the
local store, found at compile time before anything is simulated) is skipped and kept in `failures`;
if every config fails, the first one's error is raised. TRITON_PRINT_AUTOTUNING=1 prints each tuning.
"""
from __future__ import annotations

import contextvars
import math
import os
import time

import numpy as np

from . import trials

# Without an explicit worker count, trials go to workers only when the first trial's time times the
# trials left reaches this: forking the pool and collecting results costs tens of milliseconds, which
# a few quick trials would not earn back.
PARALLEL_MIN_SECONDS = 1.0

_IN_TRIAL = contextvars.ContextVar("autotune_trial", default=False)


def in_trial() -> bool:
    """Whether the launch running now is an autotuning trial (timing only, its results not kept): for
    tools that list a script's launches (`mtiasim run SCRIPT.py`) and label trials as such."""
    return _IN_TRIAL.get()


class Config:
    def __init__(self, kwargs: dict, num_warps: int = 4, num_stages: int = 3, num_ctas: int = 1, maxnreg=None,
                 pre_hook=None, pe_mapping: str | None = None):
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.pe_mapping = pe_mapping

    def all_kwargs(self) -> dict:
        out = dict(self.kwargs)
        out.update(num_warps=self.num_warps, num_stages=self.num_stages)
        if self.pe_mapping is not None:
            out["pe_mapping"] = self.pe_mapping
        return out

    def __repr__(self) -> str:
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_stages: {self.num_stages}"]
        if self.pe_mapping:
            parts.append(f"pe_mapping: {self.pe_mapping}")
        return ", ".join(parts)


def _jit_of(fn):
    while not getattr(fn, "__triton_jit__", False):
        fn = fn.fn
    return fn


class _Wrapper:
    def __init__(self, fn):
        self.fn = fn
        self.jit = _jit_of(fn)
        self.arg_names = self.jit.arg_names

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def _named(self, args, kwargs) -> dict:
        out = dict(zip(self.arg_names, args))
        out.update(kwargs)
        return out

    @property
    def cache(self):
        return self.jit.cache

    @property
    def base_fn(self):
        """The Python function under every decorator, as Triton's autotuner and heuristics name it."""
        return self.jit.fn


class Heuristics(_Wrapper):
    def __init__(self, fn, values: dict):
        super().__init__(fn)
        self.values = values

    def run(self, *args, **kwargs):
        for name, heur in self.values.items():
            kwargs[name] = heur(self._named(args, kwargs))
        return self.fn.run(*args, **kwargs)

    def compile(self, *args, **kwargs):
        for name, heur in self.values.items():
            kwargs[name] = heur(self._named(args, kwargs))
        return self.fn.compile(*args, **kwargs) if hasattr(self.fn, "compile") else None


class Autotuner(_Wrapper):
    def __init__(self, fn, configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
                 pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None,
                 cache_results=False, workers: int | None = None, trial_timeout: float | None = None):
        super().__init__(fn)
        self.configs = list(configs) or [Config({})]
        self.keys = list(key)
        self.prune_configs_by = prune_configs_by or {}
        if workers is not None and (not isinstance(workers, int) or workers < 1):
            raise ValueError(f"autotune(workers={workers!r}): the number of worker processes must be an integer >= 1")
        self.workers = workers            # None: MTIASIM_AUTOTUNE_WORKERS or os.cpu_count(), when it pays
        self.trial_timeout = trial_timeout   # seconds without a trial finishing before the rest are failed
        self.best_configs: dict = {}      # key -> Config
        self.timings: dict = {}           # key -> {config index: cycles; inf for a config that failed}
        self.failures: dict = {}          # key -> {config index: "ErrorType: message"}
        self.best_config = None
        self.bench_runs = 0

    def _key(self, named: dict) -> tuple:
        key = [named[k] for k in self.keys if k in named]
        key += [str(v.dtype) for v in named.values() if isinstance(v, np.ndarray)]
        return tuple(key)

    def _pruned(self, named: dict, kwargs: dict) -> list:
        """`early_config_prune(configs, named_args, **kwargs)` as Triton calls it: the launch's keyword
        arguments also by keyword (tutorial 09 reads its FLATTEN constexpr from them)."""
        configs = self.configs
        early = self.prune_configs_by.get("early_config_prune")
        if early is not None:
            configs = list(early(configs, named, **kwargs))
            if not configs:
                raise ValueError(f"{self.jit.__name__}: early_config_prune left no config to run; it must return "
                                 f"at least one of the {len(self.configs)} configs")
        return configs

    def _bench(self, config: Config, args, kwargs, grid) -> float:
        full = {**kwargs, **config.all_kwargs()}
        if config.pre_hook is not None:   # as Triton: before every trial (tutorial 09 sets TMA blocks here)
            config.pre_hook(self._named(args, full))
        full["numerics"] = False
        token = _IN_TRIAL.set(True)
        try:
            record = self.fn.run(*args, grid=grid, _commit=False, **full)
        finally:
            _IN_TRIAL.reset(token)
        return record.cycles

    def _trials(self, configs: list, args, kwargs, grid) -> tuple[dict, Exception | None]:
        """({config index: trials.Outcome} of every config (only the first without a clock), the first
        config's exception if it failed)."""
        def trial(i):
            return self._bench(configs[i], args, kwargs, grid)
        start = time.perf_counter()
        first_error = None
        try:
            first = trials.Outcome.of(trial(0))
        except Exception as e:   # a config that fails to compile or run is skipped
            first, first_error = trials.Outcome.of_error(e), e
        outcomes = {0: first}
        rest = range(1, len(configs))
        if rest and (first.failed or first.cost is not None):
            workers = self.workers or trials.default_workers()
            if self.workers is None and (time.perf_counter() - start) * len(rest) < PARALLEL_MIN_SECONDS:
                workers = 1
            outcomes.update(trials.run_trials(trial, rest, workers, self.trial_timeout))
        self.bench_runs += len(outcomes)
        return outcomes, first_error

    def _tune(self, key, configs: list, args, kwargs, grid) -> Config:
        start = time.perf_counter()
        outcomes, first_error = self._trials(configs, args, kwargs, grid)
        failures = {i: o.error for i, o in outcomes.items() if o.failed}
        if len(failures) == len(configs):             # nothing ran: the first config's error says why
            raise first_error
        clockless = [i for i, o in outcomes.items() if not o.failed and o.cost is None]
        if clockless:                                 # no clock: nothing to compare, keep the first that ran
            costs = {min(clockless): 0.0}
        else:
            costs = {i: math.inf if o.failed else o.cost for i, o in sorted(outcomes.items())}
        best = min(costs, key=lambda i: (costs[i], i))
        self.timings[key] = costs
        self.failures[key] = failures
        if os.environ.get("TRITON_PRINT_AUTOTUNING") == "1":
            print(f"Triton autotuning for function {self.jit.__name__} finished after "
                  f"{time.perf_counter() - start:.2f}s; best config selected: {configs[best]};")
            for i, why in sorted(failures.items()):
                print(f"  config {configs[i]} skipped: {why}")
        return configs[best]

    def run(self, *args, grid, **kwargs):
        commit = kwargs.pop("_commit", True)
        named = self._named(args, kwargs)
        key = self._key(named)
        if key not in self.best_configs:
            self.best_configs[key] = self._tune(key, self._pruned(named, kwargs), args, kwargs, grid)
        cfg = self.best_configs[key]
        self.best_config = cfg
        full = {**kwargs, **cfg.all_kwargs()}
        if cfg.pre_hook is not None:
            cfg.pre_hook(self._named(args, full))
        return self.fn.run(*args, grid=grid, _commit=commit, **full)


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False,
             workers: int | None = None, trial_timeout: float | None = None):
    """Triton's @autotune; `workers` (processes for the trials) and `trial_timeout` are ours (module docstring)."""
    def deco(fn):
        return Autotuner(fn, configs, key, prune_configs_by, reset_to_zero, restore_value, pre_hook, post_hook,
                         warmup, rep, use_cuda_graph, do_bench, cache_results, workers, trial_timeout)
    return deco


def heuristics(values: dict):
    def deco(fn):
        return Heuristics(fn, values)
    return deco
