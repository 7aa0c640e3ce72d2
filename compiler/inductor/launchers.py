"""Inductor's kernel decorators (`triton_heuristics.pointwise`, `reduction`, ...) for our compiler.

In a generated module, `@triton_heuristics.<kind>(size_hints=..., triton_meta=..., inductor_meta=...)`
wraps the `@triton.jit` kernel in an object whose `.run(*args, stream=...)` Inductor's wrapper code
calls. Ours is a `Launcher`: it binds the arguments by the kernel's signature, picks MTIA block
sizes (`blocks.py`), evaluates Inductor's own grid expression (`GridExpr`) for them, and launches
the kernel on the simulator; the session (`session.py`) records what each launch cost.
"""
from __future__ import annotations

import time

import torch
from torch._inductor.runtime.triton_heuristics import GridExpr

from . import blocks, session, tuning
from .resident import writes
from .tensors import kernel_argument

_BLOCK_NAMES = ("XBLOCK", "YBLOCK", "ZBLOCK", "R0_BLOCK", "R1_BLOCK")


class Launcher:
    """One generated kernel: `fn` (our JITFunction) and what Inductor's decorator said about it."""

    def __init__(self, fn, kind: str, triton_meta: dict, inductor_meta: dict, size_hints: dict | None = None,
                 fixed: dict | None = None):
        self.fn = fn
        self.kind = kind
        self.triton_meta = triton_meta or {}
        self.inductor_meta = inductor_meta or {}
        self.size_hints = size_hints or {}
        self.fixed = fixed or {}            # a template's or fixed_config's block sizes
        signature = self.triton_meta.get("signature", {})
        # A parameter the kernel does not declare `tl.constexpr` but whose value Inductor knows (a numel
        # of 1) is "constexpr" in the signature with its value in `constants`, and the wrapper still
        # passes it, as Triton's launcher takes every parameter but the declared constexprs: we take it
        # too, and check it is the constant (`bind`)
        declared = {p.name for p in fn.source.params if p.is_constexpr}
        self.constants = {n: v for n, v in self.triton_meta.get("constants", {}).items()
                          if signature.get(n) == "constexpr" and n not in declared}
        self.arg_names = [n for n, t in signature.items() if t != "constexpr" or n in self.constants]
        self.arg_names += list(self.inductor_meta.get("extra_launcher_args", []))
        self.block_names = [n for n, t in signature.items() if t == "constexpr" and n in _BLOCK_NAMES]
        self.name = self.inductor_meta.get("kernel_name") or fn.__name__
        self.configs: dict = {}             # chosen block sizes per argument shapes and hardware config

    def __repr__(self) -> str:
        return f"Launcher({self.kind} {self.name})"

    # --- what Inductor's wrapper and autotuner call ---
    def run(self, *args, stream=None, benchmark_run=False, **kwargs):
        return self.launch(args, numerics=not session.timing_only(), in_run=True)

    def precompile(self, *args, **kwargs):
        """Compiling happens at the first launch, for the launch's block sizes."""

    # --- ours ---
    def bind(self, args) -> dict:
        if len(args) != len(self.arg_names):
            raise TypeError(f"Inductor kernel {self.name} takes {len(self.arg_names)} arguments "
                            f"({', '.join(self.arg_names)}), got {len(args)}")
        bound = dict(zip(self.arg_names, args))
        for name, value in self.constants.items():
            if bound[name] != value:
                raise ValueError(f"Inductor kernel {self.name} was specialized for {name} = {value!r}, "
                                 f"got {name} = {bound[name]!r}")
        return bound

    def _numels(self, bound: dict) -> dict:
        numels = {}
        for axis in ("x", "y", "z", "r0_", "r1_"):
            value = bound.get(f"{axis}numel", self.size_hints.get(axis))
            if isinstance(value, int):
                numels[axis] = value
        return numels

    def _first_config(self, bound: dict, hw) -> dict:
        """The first guess at block sizes for the PEs and local store of the hardware config `hw`."""
        persistent_r = None
        if self.kind == "persistent_reduction":
            persistent_r = blocks.pow2_ceil(self.size_hints.get("r0_", 1))
        buffers = self.inductor_meta.get("num_load", 1) + self.inductor_meta.get("num_store", 1)
        return blocks.choose(self.block_names, self._numels(bound), persistent_r, hw.num_pes, hw.ls_bytes,
                             buffers)

    def _tuned(self, bound: dict, values: list, shapes: tuple, hw) -> dict:
        """The block sizes for these argument shapes on the hardware config `hw`: remembered, or the
        fastest candidate by timing-only simulation (`tuning.py`)."""
        key = f"{shapes}|{tuning.config_id(hw)}"
        cfg = self.configs.get(key) or tuning.load(self.fn, self.name, key)
        if cfg is not None:
            self.configs[key] = cfg
            return cfg
        first = self._first_config(bound, hw)
        while True:
            tried = blocks.candidates(first, self._numels(bound))
            if len(tried) == 1:              # nothing to choose between (a template, a tiny problem)
                self.configs[key] = first
                return first
            cycles, last = tuning.time_candidates(
                lambda cand: self.fn.run(*values, grid=self.grid(bound, cand), numerics=False, _commit=False,
                                         **cand), tried)
            if cycles:
                break
            first = blocks.halve(first)       # nothing fit: try again around a smaller guess
            if first is None:
                raise last
        cfg = dict(min(cycles, key=cycles.get))
        self.configs[key] = cfg
        tuning.store(self.fn, self.name, key, cfg)
        return cfg

    def grid(self, bound: dict, cfg: dict) -> tuple:
        meta = {**bound, **self.fixed, **cfg}
        grid = GridExpr.from_meta(self.inductor_meta, {**self.fixed, **cfg})
        return tuple(int(g) for g in grid.eval_slow(meta))

    def launch(self, args, numerics: bool, in_run: bool | None = None):
        """Launch on the simulator; the record goes to every active session. Returns the record.
        `in_run`: a launch of the model run (default: `numerics`), not an autotuning trial."""
        in_run = numerics if in_run is None else in_run
        bound = self.bind(args)
        key = tuple(tuple(v.shape) if isinstance(v, torch.Tensor) else v for v in bound.values())
        resident = session.resident() if in_run else None      # autotuning trials run on host copies
        mutated = tuple(self.inductor_meta.get("mutated_arg_names", ()))
        values = [resident.argument(bound[n], n, writes(n, mutated))
                  if resident is not None and isinstance(bound[n], torch.Tensor) else kernel_argument(bound[n])
                  for n in self.arg_names if n not in self.inductor_meta.get("extra_launcher_args", [])]
        before = (self.fn.compile_count, _backend_compiles(self.fn))
        start = time.perf_counter()
        hw = session.target()               # the run's hardware config, read once for the whole launch
        cfg = self._tuned(bound, values, key, hw)
        grid = self.grid(bound, cfg)
        # the model run's launches carry the chip's memory from one to the next (session.memory_state)
        record = self.fn[grid](*values, **cfg, numerics=numerics,
                               memory_state=session.memory_state() if in_run else None)
        compiled = (self.fn.compile_count, _backend_compiles(self.fn)) != before
        wall = time.perf_counter() - start
        ablations = self._ablations(values, grid, cfg, record, hw) if in_run and session.ablated_switches() else {}
        session.record_launch(self, record, cfg, compiled, wall, in_run, ablations)
        return record

    def _ablations(self, values: list, grid: tuple, cfg: dict, record, hw) -> dict:
        """{switch: cycles with it off / cycles} for each ablated switch that changes this launch's
        program (timing-only runs; broadcast reads are chosen at launch: that switch changes a program
        where the launch broadcast)."""
        from ..runtime.mtia_executor import mtia_program
        kernel = self.fn.run(*values, grid=grid, warmup=True, **cfg)

        def code(switches):
            return [ln for ln in mtia_program(kernel, hw, 3, switches)[0].to_asm().splitlines()
                    if not ln.startswith(".meta")]
        base = code(None)
        out = {}
        for sw in session.ablated_switches():
            if sw in getattr(record, "switched_off", ()):       # the launch ran without it already
                continue
            changes = bool(getattr(record, "broadcast_reads", None)) if sw == "broadcast_reads" else \
                code({sw: False}) != base
            if not changes:
                continue
            off = self.fn.run(*values, grid=grid, numerics=False, _commit=False, mtia_options={sw: False}, **cfg)
            out[sw] = off.cycles / record.cycles
        return out


def _backend_compiles(fn) -> int:
    return sum(c.mtia.compiles for c in fn.cache.values())


def _decorator(kind: str, size_hints=None, triton_meta=None, inductor_meta=None, fixed=None):
    def wrap(fn):
        return Launcher(fn, kind, triton_meta, inductor_meta, size_hints, fixed)
    return wrap


# --- the decorators generated code calls, with Inductor's signatures (unused GPU knobs accepted) ---

def pointwise(size_hints, triton_meta, tile_hint=None, filename=None, min_elem_per_thread=0, inductor_meta=None,
              **_):
    return _decorator("pointwise", size_hints, triton_meta, inductor_meta)


def reduction(size_hints, reduction_hint=False, triton_meta=None, filename=None, inductor_meta=None, **_):
    return _decorator("reduction", size_hints, triton_meta, inductor_meta)


def persistent_reduction(size_hints, reduction_hint=False, triton_meta=None, filename=None, inductor_meta=None, **_):
    return _decorator("persistent_reduction", size_hints, triton_meta, inductor_meta)


def cooperative_reduction(size_hints, reduction_hint=False, triton_meta=None, filename=None, inductor_meta=None, **_):
    return _decorator("cooperative_reduction", size_hints, triton_meta, inductor_meta)


def split_scan(size_hints, reduction_hint=False, triton_meta=None, filename=None, inductor_meta=None, **_):
    return _decorator("split_scan", size_hints, triton_meta, inductor_meta)


def template(num_stages=None, num_warps=None, triton_meta=None, filename=None, inductor_meta=None, **_):
    """A template kernel (mm, bmm, ...) has its block sizes in its body; the grid comes as arguments."""
    return _decorator("template", None, triton_meta, inductor_meta)


def fixed_config(config, filename, triton_meta, inductor_meta):
    return _decorator("fixed_config", None, triton_meta, inductor_meta, fixed=dict(config))


def foreach(triton_meta, filename=None, inductor_meta=None, **_):
    return _decorator("foreach", None, triton_meta, inductor_meta)


def user_autotune(configs, triton_meta, filename=None, inductor_meta=None, custom_kernel=False, **_):
    fixed = dict(configs[0].kwargs) if configs else {}
    return _decorator("user_autotune", None, triton_meta, inductor_meta, fixed=fixed)
