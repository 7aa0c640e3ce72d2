"""@jit: the kernel object users launch with `kernel[grid](*args, **kwargs)`.

Each launch binds the arguments, specialises them (`specialize.py`), looks the specialisation up
in `self.cache` (compiling on a miss), resolves the grid, copies arrays into device buffers, runs
the selected executor and, only if it succeeds, copies the buffers back into the user's arrays.
"""
from __future__ import annotations

import dataclasses
import functools
import linecache
import os
import sys
import time

import numpy as np

from simulator.gc_pause import cycle_collection_paused
from simulator.launch import check_programs

from ..errors import CompilationError, KernelRuntimeError
from ..frontend.aggregate_params import expand_aggregate_args, lift, lifts
from ..frontend.source import Param
from ..ir import types as T
from . import device, kernel_cache, launch_memo, sampled_launches, target
from . import executor as ex
from .compiled import CompiledKernel
from .memory import PointerArg, commit, host_array, pack, plan_buffers
from .specialize import ConstArg, RuntimeArg, key_part, specialize

# AMD's tuning hints, accepted and ignored: Triton's tutorials hand them to any backend that is not CUDA
# (03-matrix-multiplication's HIP configs), and they say nothing MTIA can use
AMD_TUNING_HINTS = ("waves_per_eu", "matrix_instr_nonkdim", "kpack")
# keywords of kernel[grid](...) that configure the launch instead of binding kernel parameters
LAUNCH_KEYWORDS = ["num_warps", "num_stages", "pe_mapping", "num_ctas", "maxnreg", "enable_fp_fusion",
                   "debug", "extern_libs", "executor", "numerics", "sram_resident", "machine", "memory_state", "max_steps",
                   "max_programs", "mtia_options", "launch_cooperative_grid", "sample_waves", *AMD_TUNING_HINTS]
# Triton's own compile options: a kernel parameter of the same name (the fused-softmax tutorial's
# `num_stages: tl.constexpr`) binds the value and the launch still reads it, as Triton's launcher does
TRITON_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "debug", "extern_libs")


def register_launch_keyword(name: str) -> None:
    """Accept `name=` at launch and pass it to the executor: in its LaunchOptions field if it has one,
    else in `options.registered` (both readable by name in `options.extra`)."""
    if name not in LAUNCH_KEYWORDS:
        LAUNCH_KEYWORDS.append(name)


class JITFunction:
    __triton_jit__ = True

    def __init__(self, fn, do_not_specialize=(), do_not_specialize_on_alignment=(), debug=None, noinline=None,
                 repr=None, launch_metadata=None):
        from ..frontend.source import remember_exec_source
        remember_exec_source(fn)
        self.fn = fn
        functools.update_wrapper(self, fn)
        self._source = None
        self.do_not_specialize = set(_param_refs(fn, do_not_specialize))
        self.do_not_specialize_on_alignment = set(_param_refs(fn, do_not_specialize_on_alignment))
        self.debug = debug
        self.noinline = noinline
        self.cache: dict[tuple, CompiledKernel] = {}
        self.compile_count = 0

    # --- source ---
    @property
    def source(self):
        if self._source is None:
            from ..frontend.source import FunctionSource
            self._source = FunctionSource(self.fn)
        return self._source

    @property
    def arg_names(self) -> list:
        return [p.name for p in self.source.params]

    def __repr__(self) -> str:
        return f"JITFunction({self.fn.__module__}:{self.fn.__qualname__})"

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Cannot call @triton.jit'd outside of the scope of a kernel; launch it with "
                           "kernel[grid](...)")

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    # --- binding and specialisation ---
    def bind(self, args, kwargs) -> dict:
        params = self.source.params
        if self.source.varargs:
            raise TypeError(f"{self.__name__} takes *{self.source.varargs}: a @jit function with *args can be "
                            f"called from a kernel, not launched")
        if len(args) > len(params):
            raise TypeError(f"{self.__name__}() takes {len(params)} arguments but {len(args)} were given")
        bound = {}
        for p, v in zip(params, args):
            bound[p.name] = v
        for k, v in kwargs.items():
            if k not in {p.name for p in params}:
                raise TypeError(f"{self.__name__}() got an unexpected keyword argument '{k}'")
            if k in bound:
                raise TypeError(f"{self.__name__}() got multiple values for argument '{k}'")
            bound[k] = v
        for p in params:
            if p.name not in bound:
                if not p.has_default:
                    raise TypeError(f"{self.__name__}() missing required argument '{p.name}'")
                bound[p.name] = p.default
        # a host-built aggregate or tuple is followed by its runtime fields, one parameter each (`epilogue.bias`)
        return expand_aggregate_args(params, bound)

    def specialize(self, bound: dict, plan=None) -> tuple[tuple, dict]:
        specs = {}
        for p in self.source.params:
            v = bound[p.name]
            if lifts(v) and not p.is_constexpr:      # its class and constexpr fields, then each runtime field
                layout, leaves = lift(v, p.name)
                specs[p.name] = ConstArg(layout)
                for name, leaf in leaves:
                    specs[name] = self._specialize_one(Param(name, False), bound.get(name, host_array(leaf)), plan,
                                                       p.name)
                continue
            specs[p.name] = self._specialize_one(p, v, plan, p.name)
        key = tuple(key_part(s) for s in specs.values())
        return key, specs

    def _specialize_one(self, p, v, plan, owner: str):
        """Specialise one argument; `owner` is the parameter whose do_not_specialize lists apply."""
        off = plan.offset(p.name) if plan is not None and isinstance(v, np.ndarray) else None
        return specialize(p, v, off, owner in self.do_not_specialize, owner in self.do_not_specialize_on_alignment)

    def compile_specs(self, specs: dict) -> CompiledKernel:
        from ..frontend import source
        from .compile import compile_ir
        arg_types = {n: s.type for n, s in specs.items() if isinstance(s, RuntimeArg)}
        constexprs = {n: s.value for n, s in specs.items() if isinstance(s, ConstArg)}
        attrs = {}
        for n, s in specs.items():
            if isinstance(s, RuntimeArg) and (s.divisible_by_16 or s.align):
                attrs[n] = {"tt.divisibility": 16} if s.divisible_by_16 else {}
                if s.align:
                    attrs[n]["mtia.align"] = s.align
        self.compile_count += 1
        outer, source.GLOBALS_READ = source.GLOBALS_READ, []
        try:
            with cycle_collection_paused():
                compiled = compile_ir(self, arg_types, constexprs, attrs)
            compiled.globals_read = source.GLOBALS_READ
        finally:
            source.GLOBALS_READ = outer
        return compiled

    def _compiled_for(self, bound: dict, plan=None) -> CompiledKernel:
        key, specs = self.specialize(bound, plan)
        compiled = self.cache.get(key)
        if compiled is not None and _globals_changed(compiled):
            compiled = None               # a module global it compiled in has changed: compile it again
        if compiled is None:
            compiled = kernel_cache.load(self, key)       # another process compiled it (the disk cache)
            if compiled is not None:
                compiled.jit_function = self
                self.cache[key] = compiled
        if compiled is None:
            try:
                compiled = self.compile_specs(specs)
            except CompilationError as e:   # show the user's call, not the compiler's frames
                raise e.with_traceback(None) from e.__cause__
            kernel_cache.store(self, key, compiled)
            compiled.jit_function = self
            self.cache[key] = compiled
        return compiled

    # --- public entry points ---
    def compile(self, *args, **kwargs) -> CompiledKernel:
        """Compile for these arguments (numpy arrays, numbers, constexpr keywords) without running."""
        _, kwargs = split_launch_options(kwargs, self.arg_names)
        bound = self.bind(args, kwargs)
        values = {n: host_array(v) for n, v in bound.items()}
        arrays = {n: v for n, v in values.items() if isinstance(v, np.ndarray)}
        return self._compiled_for(values, plan_buffers(arrays))

    def warmup(self, *args, grid=None, **kwargs) -> CompiledKernel:
        compiled = self.compile(*args, **kwargs)
        options, _ = split_launch_options(kwargs, self.arg_names)
        for name in ("num_warps", "num_stages"):      # what n_regs and metadata.shared answer for
            if getattr(options, name, None) is not None:
                compiled.metadata[name] = getattr(options, name)
        return compiled

    def run(self, *args, grid, warmup=False, _commit=True, _expect=None, **kwargs):
        with cycle_collection_paused():           # a compile's and a simulation's objects (gc_pause.py)
            return self._run(args, grid, warmup, _commit, _expect, kwargs)

    def _run(self, args, grid, warmup, _commit, _expect, kwargs):
        options, kwargs = split_launch_options(kwargs, self.arg_names)
        executor = ex.get_executor(options.executor)    # a misspelt one before compiling
        bound = self.bind(args, kwargs)
        values = {n: host_array(v) for n, v in bound.items()}      # torch tensors as numpy views, zero copy
        arrays = {n: v for n, v in values.items() if isinstance(v, np.ndarray)}
        plan = plan_buffers(arrays)
        compiled = self._compiled_for(values, plan)
        if _expect is not None and compiled is not _expect:
            raise TypeError(f"these arguments specialise {self.__name__} differently from the compiled kernel "
                            f"launched ({_expect.constexprs} vs {compiled.constexprs}): launch the @jit function")
        if warmup:
            return compiled
        grid3 = resolve_grid(grid, bound)
        try:
            check_programs(grid3, options.max_programs)
        except ValueError as e:
            raise _launch_error(str(e)) from None
        return launch(compiled, grid3, values, arrays, plan, options, executor, _commit)


def _globals_changed(compiled: CompiledKernel) -> bool:
    """Whether a module global the kernel (or a @jit function it calls) read at compile time now holds
    another value, as Triton's cache checks them (a name rebound to an equal value is not a change)."""
    missing = object()
    for table, name, value in getattr(compiled, "globals_read", ()):
        now = table.get(name, missing)
        if now is value:
            continue
        try:
            if type(now) is type(value) and bool(now == value):
                continue
        except Exception:    # an array's ==, or a type whose == fails: a changed object
            pass
        return True
    return False


def launch(compiled: CompiledKernel, grid3: tuple, bound: dict, arrays: dict, plan, options, executor,
           commit_results: bool = True):
    """Run `compiled` on copies of the arrays and of every device array; copy results back only if the
    executor succeeds and computed them (a timing-only run, `numerics=False`, leaves them as they were).
    The hardware target is resolved here, once (target.py), and reaches the executor in `options.config`."""
    options = target.resolve(options)
    if options.sample_waves is None:    # resolved before the memo keys it: a sampled record is not a full one
        options = dataclasses.replace(options, sample_waves=sampled_launches.enabled())
    buffers, ptrs = pack(arrays, plan, options.sram_resident)
    resident = device.launch_buffers()
    for name, v in bound.items():
        if isinstance(v, device.DeviceArray):
            buffer = device.buffer_of(v, resident)
            ptrs[name] = PointerArg(buffer, v.address - buffer.address, T.from_numpy(v.dtype))
    buffers += resident
    values = []
    for name in compiled.arg_names:
        v = bound[name]
        values.append(ptrs[name] if name in ptrs else v)
    start = time.perf_counter()

    def simulate():
        return executor.launch(compiled, grid3, ex.KernelArgs(list(compiled.arg_names), values, buffers), options)
    try:
        if launch_memo.applies(executor, options):     # timing only: an identical earlier launch's record
            record = launch_memo.run(compiled, grid3, values, buffers, options, simulate,
                                     lambda: executor.reads_data(compiled, options))
        else:
            record = simulate()
    except KernelRuntimeError as e:   # the kernel line and program id are in the message
        raise e.with_traceback(None) from None
    record.compiled_kernel = compiled          # (not a field: to_dict() leaves it out)
    if getattr(record, "wall_seconds", None) == 0.0:
        record.wall_seconds = time.perf_counter() - start
    if commit_results and record.numerics:
        commit(buffers)
    if commit_results:
        for observe in LAUNCH_OBSERVERS:
            observe(compiled, grid3, record)
    return record


# Called as observe(compiled, grid, record) after each launch that was not the autotuner's trial run
# (timing-only launches included); `triton.testing.do_bench` times the launches of a function this way.
LAUNCH_OBSERVERS: list = []


def split_launch_options(kwargs: dict, params=()) -> tuple[ex.LaunchOptions, dict]:
    """Launch options and the keywords left for the kernel's parameters. A keyword naming a kernel
    parameter binds to it; if it is one of Triton's compile options it configures the launch too."""
    rest = dict(kwargs)
    opts = {k: rest[k] if k in params else rest.pop(k) for k in LAUNCH_KEYWORDS
            if k in rest and (k not in params or k in TRITON_OPTIONS)}
    registered = {k: opts.pop(k) for k in list(opts) if k not in _OPTION_FIELDS}
    return ex.LaunchOptions(**opts, registered=registered), rest


# the launch keywords LaunchOptions has a field for (the others an executor registered go in `registered`)
_OPTION_FIELDS = frozenset(f.name for f in dataclasses.fields(ex.LaunchOptions)) - {"config", "registered"}


# The most programs a grid may have along x, y and z: CUDA's grid limits, which every Triton launch is under
# (Triton's launcher hands the grid to cuLaunchKernel, which fails with "invalid argument" past them)
GRID_LIMITS = (2**31 - 1, 65535, 65535)


def resolve_grid(grid, meta: dict) -> tuple:
    """The launch's (x, y, z) grid from a tuple, an int or a callable of the meta-parameters. Entries past
    the third must be 1: Triton's launcher reads the first three and ignores the rest, so a grid of more
    programs would silently launch fewer there; that is refused here instead."""
    if callable(grid):
        grid = grid(dict(meta))
    if isinstance(grid, (int, np.integer)):
        grid = (grid,)
    try:
        grid = tuple(grid)
    except TypeError:
        raise _launch_error(f"the grid must be a tuple of 1 to 3 ints (or a callable returning one), "
                            f"got {grid!r}") from None
    if not grid:
        raise _launch_error("the grid () has no dimensions: give 1 to 3 (x, y, z)")
    out = []
    for g in grid:
        g = g.value if hasattr(g, "value") and not isinstance(g, np.ndarray) else g
        if not isinstance(g, (int, np.integer)) or g < 0:
            raise _launch_error(f"grid dimensions must be non-negative integers, got {grid!r}")
        out.append(int(g))
    if len(out) > 3:
        if any(g != 1 for g in out[3:]):
            raise _launch_error(f"the grid {grid!r} has {len(out)} dimensions; a launch has at most 3 (x, y, z). "
                                f"Triton's launcher reads the first three and ignores the rest, which would launch "
                                f"{_programs(out[:3]):,} programs, not {_programs(out):,}: fold the others into "
                                f"the first three")
        out = out[:3]
    out += [1] * (3 - len(out))
    for axis, g, limit in zip("xyz", out, GRID_LIMITS):
        if g > limit:
            raise _launch_error(f"the grid {tuple(out)} has {g:,} programs along {axis}; Triton launches at most "
                                f"2**31 - 1 along x and 65535 along y and z (CUDA's grid limits: its launch "
                                f"fails with 'invalid argument')")
    return tuple(out)


def _programs(grid) -> int:
    n = 1
    for g in grid:
        n *= g
    return n


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep    # compiler/


def _launch_error(message: str) -> ValueError:
    """A launch error that starts at the user's line: the innermost frame outside this package (the
    `kernel[grid](...)` call, or the caller of an autotuner or launcher in it)."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back
    if frame is None:
        return ValueError(message)
    file, line = frame.f_code.co_filename, frame.f_lineno
    text = linecache.getline(file, line).strip()
    return ValueError(f"{file}:{line}: {message}" + (f"\n    {text}" if text else ""))


def _param_refs(fn, refs) -> list:
    import inspect
    names = list(inspect.signature(fn).parameters)
    return [names[r] if isinstance(r, int) else r for r in refs]


def jit(fn=None, *, do_not_specialize=(), do_not_specialize_on_alignment=(), debug=None, noinline=None,
        repr=None, launch_metadata=None):
    """Decorate a kernel: `@jit` or `@jit(do_not_specialize=["n"])`."""
    def wrap(f):
        return JITFunction(f, do_not_specialize, do_not_specialize_on_alignment, debug, noinline, repr,
                           launch_metadata)
    return wrap(fn) if fn is not None else wrap
