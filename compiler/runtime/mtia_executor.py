"""The MTIA executor: compile the kernel's IR for the current hardware config with the MTIA backend,
run it on the simulated chip, and return the simulation record.

This is where the compiler and the simulator meet. Each argument buffer is copied into simulated
memory at the address the runtime gave it (256-byte aligned, as the backend assumes, with guard
zones around it), the program runs on `simulator.get_config()`, and the buffers are copied back only
when the run finishes without error and computed its results (not in a timing-only run); the runtime
then commits them into the user's arrays. The backend's output is cached per compiled kernel and config, so a
second launch with the same specialisation does not compile again.
"""
from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field

from simulator.errors import DeviceAssertionError as SimDeviceAssertionError
from simulator.errors import SanitizerError, SimError
from simulator.errors import StepLimitError as SimStepLimitError
from simulator.launch import check_cooperative_grid, check_programs

from ..errors import DeviceAssertionError, KernelRuntimeError, OutOfBoundsError, StepLimitError
from .compiled import register_stage
from .executor import KernelArgs, LaunchOptions, RunRecord, register_executor
from .memory import PointerArg


class MtiaOutOfBoundsError(OutOfBoundsError, SanitizerError):
    """An access outside every array, found by the simulator's sanitizer (both error families)."""


class MtiaDeviceAssertionError(DeviceAssertionError, SimDeviceAssertionError):
    """A tl.device_assert that failed on the simulated chip."""


class MtiaStepLimitError(StepLimitError, SimStepLimitError):
    """A program that ran past the step limit on the simulated chip."""


class MtiaKernelError(KernelRuntimeError, SimError):
    """Any other failure of a kernel on the simulated chip (sanitizer, deadlock, ...)."""


def _user_error(e: Exception) -> Exception:
    """The runtime's error family for a simulator error, with the simulator's message unchanged."""
    msg = str(e)
    if isinstance(e, SimDeviceAssertionError):
        cls = MtiaDeviceAssertionError
    elif isinstance(e, SimStepLimitError):
        cls = MtiaStepLimitError
    elif isinstance(e, SanitizerError) and "out-of-bounds" in msg:
        cls = MtiaOutOfBoundsError
    else:
        cls = MtiaKernelError
    err = cls(msg)
    err.report = getattr(e, "report", None)
    return err


@dataclass
class MtiaRunRecord(RunRecord):
    """A simulated launch: cycles and seconds on the config, plus the full simulator report."""
    config: str = ""
    roofline: object = None
    utilization: dict = field(default_factory=dict)
    report: object = field(default=None, repr=False)
    broadcast_reads: dict = field(default_factory=dict)    # kernel line of each broadcast load -> its Group
                                                           # (compiler/backend/broadcast.py: size, column)
    # switches the launch turned off itself: ("index_windows",) where a window would leave its array
    switched_off: tuple = ()

    def __str__(self) -> str:
        return str(self.report)


def mtia_program(compiled, cfg, num_stages: int = 3, options=None):
    """The MTIA program of a compiled kernel for `cfg` and its IR stages (compiled once, then cached on
    the kernel); `options`: the backend's switches (a BackendOptions or a dict of them,
    compiler/backend/options.py). Broadcast reads are a launch's choice (`launch_program`)."""
    return _compiled(compiled, cfg, num_stages, options)[:2]


def _compiled(compiled, cfg, num_stages: int, options):
    """(program, stages, the module after the backend's passes), cached per config, stages and switches."""
    from ..backend.options import BackendOptions
    options = BackendOptions.of(options)
    cache = compiled.__dict__.setdefault("_mtia_cache", {})           # key -> (program, stages)
    modules = compiled.__dict__.setdefault("_mtia_modules", {})       # key -> the module the passes left
    key = (cfg.model_dump_json(), num_stages, options.off())
    hit = cache.get(key)
    if hit is None:
        from ..backend.pipeline import compile_to_mtia
        frontend_compile = importlib.import_module(".compile", __package__)   # (`compile` is also a function here)
        module = modules[key] = compiled.module.clone()            # the backend rewrites its own copy
        meta = {"source": compiled.file, "constexprs": {k: repr(v) for k, v in compiled.constexprs.items()}}
        if options.off():
            meta["switched_off"] = list(options.off())
        hit = cache[key] = compile_to_mtia(module, cfg, num_stages, meta, options, frontend_compile.CHECK_ROUNDTRIP)
        compiled.__dict__["mtia_compiles"] = compiled.__dict__.get("mtia_compiles", 0) + 1
    return (*hit, modules[key])


def launch_program(compiled, cfg, grid: tuple, args: KernelArgs, options: LaunchOptions):
    """(program, broadcasts, switched_off) of one launch. A window box that could read outside its array
    in this launch makes it take the program without windows (compiler/backend/window_bounds.py). With
    the `broadcast_reads` switch on, the box loads that the programs running together read alike become
    broadcast reads (compiler/backend/broadcast.py); `broadcasts` maps each one's kernel line to its
    Group (size, and whether it runs down a grid column); `switched_off` names the switches the launch turned off itself."""
    from dataclasses import replace

    from ..backend import broadcast, defer_store, window_bounds
    from ..backend.options import BackendOptions
    from ..backend.pipeline import emit_program
    switches = BackendOptions.of(options.extra.get("mtia_options"))
    prog, _, module = _compiled(compiled, cfg, options.num_stages, switches)
    func = module.functions[0]
    values = [v.address if isinstance(v, PointerArg) else v for v in args.values]
    buffers = [v.buffer if isinstance(v, PointerArg) else None for v in args.values]
    off = ()
    if not window_bounds.inside(func, grid, values, buffers, options.pe_mapping, cfg.num_pes):   # (True: no windows)
        switches, off = replace(switches, index_windows=False), ("index_windows",)
        prog, _, module = _compiled(compiled, cfg, options.num_stages, switches)
        func = module.functions[0]
    if switches.defer_stores and prog.meta.get("persistent") and not defer_store.safe(func, buffers):
        switches, off = replace(switches, defer_stores=False), off + ("defer_stores",)
        prog, _, module = _compiled(compiled, cfg, options.num_stages, switches)
        func = module.functions[0]
    if not switches.broadcast_reads:
        return prog, {}, off
    chosen = broadcast.plan(func, grid, values, buffers, options.pe_mapping, cfg.num_pes, cfg.grid.cols)
    if not chosen:
        return prog, {}, off
    cache = compiled.__dict__.setdefault("_mtia_broadcast", {})
    key = (id(prog), tuple(sorted(chosen.items())))
    hit = cache.get(key)
    if hit is None:
        copy = module.clone()
        loads = broadcast.box_loads(copy.functions[0])
        for i, group in chosen.items():
            loads[i].attrs["bcast"] = group.size
            if group.column:
                loads[i].attrs["bcast_col"] = 1
        hit = cache[key] = emit_program(copy, cfg, dict(prog.meta, broadcast_reads=len(chosen)), switches)[0]
    loads = broadcast.box_loads(func)
    return hit, {(loads[i].loc.line if loads[i].loc else i): group for i, group in chosen.items()}, off


class MtiaExecutor:
    name = "mtia"

    def __init__(self, numerics: bool = True):
        self.numerics = numerics

    def launch(self, compiled, grid: tuple, args: KernelArgs, options: LaunchOptions) -> MtiaRunRecord:
        from simulator.machine import Machine

        from .target import resolve
        options = resolve(options)      # the runtime resolved it already; a direct caller may not have
        machine = options.machine                       # a caller's Machine (a tracer on it, a warm LLC)
        if machine is None:
            numerics = self.numerics if options.numerics is None else options.numerics
            machine = Machine(options.config, numerics=numerics)
        cfg = machine.cfg
        check_cooperative_grid(options.launch_cooperative_grid, grid, cfg.num_pes)
        check_programs(grid, options.max_programs)     # before any planning over the programs
        prog, broadcasts, switched_off = launch_program(compiled, cfg, grid, args, options)
        from ..backend import i32_crossings
        try:            # an i32 block one box moves wrong in this launch: refused (backend/i32_crossings.py)
            i32_crossings.check(prog.meta.get("i32_crossings", ()), grid,
                                [v.address if isinstance(v, PointerArg) else v for v in args.values])
        except SimError as e:
            raise _user_error(e) from None
        values = {}
        for decl, v in zip(prog.args, args.values):
            values[decl.name] = v.address if isinstance(v, PointerArg) else v
        allocs = []
        start = time.perf_counter()
        try:
            for buf in args.buffers:
                allocs.append((buf, machine.gmem.alloc(buf.size, buf.name, buf.region, init=buf.data,
                                                       address=buf.address, guard=buf.guard)))
            rep = machine.run(prog, grid=grid, args=values, pe_mapping=options.pe_mapping,
                              max_steps=options.max_steps, max_programs=options.max_programs)
        except SimError as e:
            raise _user_error(e) from None
        finally:        # unmapped, so a caller's Machine runs its next launch at the same addresses
            for _, alloc in allocs:
                machine.gmem.free(alloc)
        if machine.numerics:            # the run succeeded and computed its results: hand the bytes back
            for buf, alloc in allocs:
                buf.data[...] = alloc.data[: buf.data.size]
        return MtiaRunRecord(kernel=compiled.name, grid=tuple(grid), executor=self.name, cycles=int(rep.cycles),
                             seconds=rep.seconds, wall_seconds=time.perf_counter() - start,
                             programs=grid[0] * grid[1] * grid[2], numerics=machine.numerics, config=cfg.name,
                             roofline=rep.roofline, utilization=rep.utilization, report=rep,
                             broadcast_reads=broadcasts, switched_off=switched_off)


register_executor("mtia", MtiaExecutor())


def _stage(name: str):
    def produce(compiled):
        from .target import default_config
        return mtia_program(compiled, default_config())[1][name]
    return produce


# compiled.asm["mtia-asm"], ["cpp"], ["llvm"], ["json"], and the IR after each backend pass ["mtia.<pass>"],
# produced on first access for the current hardware config
for _name in ("mtia-asm", "cpp", "llvm", "json", "mtia.expand-combine", "mtia.scalarize-iter-args",
              "mtia.carry-row-offsets", "mtia.lower-memory", "mtia.select-boxes", "mtia.materialize-pointers", "mtia.licm", "mtia.coalesce-k",
              "mtia.map-engines", "mtia.bufferize", "mtia.allocate-ls"):
    register_stage(_name, _stage(_name))
