"""Config, @autotune and @heuristics, with Triton's decorator signatures.

The autotuner benchmarks each config with the current executor *without* committing results
(user arrays stay untouched during tuning), timing only on the simulator (`numerics=False`: the
same cycles, without computing the numbers; only the winner's run computes them), takes the run
record's `cycles` as the cost and caches the fastest config per key (values of the `key`
arguments plus the dtypes of array arguments).
An executor without a clock (cycles=None, e.g. the interpreter) makes it pick the first config.
"""
from __future__ import annotations

import math

import numpy as np


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
                 cache_results=False):
        super().__init__(fn)
        self.configs = list(configs) or [Config({})]
        self.keys = list(key)
        self.prune_configs_by = prune_configs_by or {}
        self.best_configs: dict = {}      # key -> Config
        self.timings: dict = {}           # key -> {config index: cycles}
        self.best_config = None
        self.bench_runs = 0

    def _key(self, named: dict) -> tuple:
        key = [named[k] for k in self.keys if k in named]
        key += [str(v.dtype) for v in named.values() if isinstance(v, np.ndarray)]
        return tuple(key)

    def _pruned(self, named: dict) -> list:
        configs = self.configs
        early = self.prune_configs_by.get("early_config_prune")
        if early is not None:
            configs = list(early(configs, named))
        return configs

    def _bench(self, config: Config, args, kwargs, grid) -> float:
        full = {**kwargs, **config.all_kwargs(), "numerics": False}
        self.bench_runs += 1
        record = self.fn.run(*args, grid=grid, _commit=False, **full)
        return record.cycles

    def run(self, *args, grid, **kwargs):
        commit = kwargs.pop("_commit", True)
        named = self._named(args, kwargs)
        key = self._key(named)
        if key not in self.best_configs:
            configs = self._pruned(named)
            costs, first_error = {}, None
            for i, cfg in enumerate(configs):
                try:
                    cycles = self._bench(cfg, args, kwargs, grid)
                except Exception as e:   # a config that fails to compile or run is skipped
                    first_error = first_error or e
                    costs[i] = math.inf
                    continue
                if cycles is None:      # no clock: nothing to compare, keep the first config
                    costs = {i: 0.0}
                    break
                costs[i] = float(cycles)
            if all(math.isinf(c) for c in costs.values()):
                raise first_error
            best = min(costs, key=lambda i: costs[i])
            self.best_configs[key] = configs[best]
            self.timings[key] = costs
        cfg = self.best_configs[key]
        self.best_config = cfg
        full = {**kwargs, **cfg.all_kwargs()}
        if cfg.pre_hook is not None:
            cfg.pre_hook(self._named(args, full))
        return self.fn.run(*args, grid=grid, _commit=commit, **full)


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False):
    def deco(fn):
        return Autotuner(fn, configs, key, prune_configs_by, reset_to_zero, restore_value, pre_hook, post_hook,
                         warmup, rep, use_cuda_graph, do_bench, cache_results)
    return deco


def heuristics(values: dict):
    def deco(fn):
        return Heuristics(fn, values)
    return deco
