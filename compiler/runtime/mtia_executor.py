"""The MTIA executor: compile the kernel's IR for the launch's hardware config with the MTIA backend,
run it on the simulated chip, and return the simulation record.

This is where the compiler and the simulator meet. Each argument buffer is copied into simulated
memory at the address the runtime gave it (256-byte aligned, as the backend assumes, with guard
zones around it), the program runs on the config the launch resolved (runtime/target.py), and the buffers are copied back only
when the run finishes without error and computed its results (not in a timing-only run); the runtime
then commits them into the user's arrays. The backend's output is cached per compiled kernel and config, so a
second launch with the same specialisation does not compile again.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from simulator.errors import DeviceAssertionError as SimDeviceAssertionError
from simulator.errors import SanitizerError, SimError
from simulator.errors import StepLimitError as SimStepLimitError
from simulator.launch import check_cooperative_grid, check_programs

from ..errors import (
    DeviceAssertionError,
    KernelRuntimeError,
    OutOfBoundsError,
    StepLimitError,
)
from .compiled import register_stages
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
                                                           # (compiler/backend/launch/broadcast.py: size, column)
    # switches the launch turned off itself: ("index_windows",) where a window would leave its array
    switched_off: tuple = ()

    def __str__(self) -> str:
        return str(self.report)


def new_memory_state(cfg):
    """An empty chip memory state for `cfg` (`simulator.chip.memory_state`): what a model run's launches
    pass as `memory_state=` to carry the LLC from kernel to kernel."""
    from simulator.chip.memory_state import MemoryState
    return MemoryState(cfg)


def mtia_program(compiled, cfg, num_stages: int = 3, options=None):
    """The MTIA program of a compiled kernel for `cfg` and its IR stages, as the backend compiles and keeps
    it (compiler/backend/launch/specialize.py; imported there when first asked, as `import compiler` does
    not load the backend)."""
    from ..backend.launch.specialize import mtia_program as compiled_program
    return compiled_program(compiled, cfg, num_stages, options)


class MtiaExecutor:
    name = "mtia"
    # a timing-only run's cycles depend only on the launch (and, for a program that reads its data, the
    # data): the runtime reuses an identical launch's record (launch_memo.py)
    reusable_timing = True

    def __init__(self, numerics: bool = True):
        self.numerics = numerics

    def reads_data(self, compiled, options) -> bool:
        """Whether the kernel's tile data can reach an address or a branch on the launch's config (a gather's
        indices, a data-dependent loop), so that its timing depends on the data (simulator.pe.timing_only).
        The launch's own variants of the program (without windows, with broadcast reads) move and load
        the same things, so the compiled program answers for them."""
        from simulator.pe.timing_only import is_blind

        from .target import resolve
        options = resolve(options)
        program = mtia_program(compiled, options.config, options.num_stages, options.mtia_options)[0]
        return not is_blind(program)

    def launch(self, compiled, grid: tuple, args: KernelArgs, options: LaunchOptions) -> MtiaRunRecord:
        from simulator.machine import Machine

        from .target import resolve
        options = resolve(options)      # the runtime resolved it already; a direct caller may not have
        machine = options.machine                       # a caller's Machine (a tracer on it, a warm LLC)
        if machine is not None and options.memory_state is not None:
            raise ValueError("a launch takes machine= (a Machine with its own LLC) or memory_state= (the LLC "
                             "earlier launches left), not both")
        if machine is None:
            numerics = self.numerics if options.numerics is None else options.numerics
            machine = Machine(options.config, numerics=numerics, memory_state=options.memory_state)
        cfg = machine.cfg
        check_cooperative_grid(options.launch_cooperative_grid, grid, cfg.num_pes)
        check_programs(grid, options.max_programs)     # before any planning over the programs
        from ..backend.launch.specialize import specialize
        arg_values = [v.address if isinstance(v, PointerArg) else v for v in args.values]
        arg_buffers = [v.buffer if isinstance(v, PointerArg) else None for v in args.values]
        try:            # an i32 block one box moves wrong in this launch: refused (backend/launch/i32_crossings.py)
            launched = specialize(compiled, cfg, grid, arg_values, arg_buffers, options.pe_mapping,
                                  options.mtia_options, options.num_stages)
        except SimError as e:
            raise _user_error(e) from None
        prog = launched.program
        values = {}
        for decl, v in zip(prog.args, args.values):
            values[decl.name] = v.address if isinstance(v, PointerArg) else v
        allocs = []
        start = time.perf_counter()
        try:
            for buf in args.buffers:
                allocs.append((buf, machine.gmem.alloc(buf.size, buf.name, buf.region,
                                                       init=None if buf.lazy else buf.data,
                                                       address=buf.address, guard=buf.guard)))
            rep = _sampled_run(machine, prog, grid, values, options, allocs) \
                if _samples(options, machine, grid, prog) else None
            if rep is None:
                rep = machine.run(prog, grid=grid, args=values, pe_mapping=options.pe_mapping,
                                  max_steps=options.max_steps, max_programs=options.max_programs)
        except SimError as e:
            raise _user_error(e) from None
        finally:        # unmapped, so a caller's Machine runs its next launch at the same addresses
            for _, alloc in allocs:
                machine.gmem.free(alloc)
        if options.num_stages not in (None, DEFAULT_NUM_STAGES) and not _has_loop(prog):
            hint = (f"num_stages={options.num_stages} changed nothing: {compiled.name} has no loop to pipeline "
                    f"(stages overlap a loop's iterations); drop it, or loop over K or rows")
            if hint not in rep.hints:
                rep.hints.append(hint)
        if machine.numerics:            # the run succeeded and computed its results: hand the bytes back
            for buf, alloc in allocs:
                if not buf.lazy:
                    buf.data[...] = alloc.data[: buf.data.size]
        return MtiaRunRecord(kernel=compiled.name, grid=tuple(grid), executor=self.name, cycles=int(rep.cycles),
                             seconds=rep.seconds, wall_seconds=time.perf_counter() - start,
                             programs=grid[0] * grid[1] * grid[2], numerics=machine.numerics, config=cfg.name,
                             roofline=rep.roofline, utilization=rep.utilization, report=rep,
                             broadcast_reads=launched.broadcasts, switched_off=launched.switched_off)


DEFAULT_NUM_STAGES = 3        # LaunchOptions' default, as Triton's


def _samples(options, machine, grid: tuple, program) -> bool:
    """Whether this launch runs sampled (simulator/sampling.py): asked for, timing only, on a machine of its
    own without a tracer, and of enough waves on its busiest PE or with a K loop to shorten."""
    from isa.re import ReSend
    from simulator import launch, sampled_loop, sampling
    if not options.sample_waves or machine.numerics or options.machine is not None or machine.tracer is not None:
        return False
    if any(type(ins) is ReSend for ins in program.instrs):
        return False
    assignment = launch.map_programs(grid, machine.cfg.num_pes, options.pe_mapping)
    return sampling.waves(assignment) >= sampling.MIN_WAVES or sampled_loop.sampled_loop(program) is not None


def _sampled_run(machine, program, grid: tuple, values: dict, options, allocs: list):
    """The launch from runs of its first waves (m1 and m2 programs per PE) and of its programs' K loop cut
    after t1 and t2 trips, each run on a machine of its own with a copy of the memory state, extended to
    the whole launch (simulator/sampling.py); None where neither applies or the extension is not to be
    trusted (`sampling.steady`): the caller then runs the launch whole. An accepted sample's state is the
    one its last run leaves."""
    import copy

    from simulator import launch, sampled_loop, sampling
    from simulator.machine import Machine
    from simulator.pe.timing_only import is_blind
    assignment = launch.map_programs(grid, machine.cfg.num_pes, options.pe_mapping)
    waves = sampling.waves(assignment)
    ms = sampling.SAMPLE_WAVES if waves >= sampling.MIN_WAVES else (None,)
    ts = sampling.LOOP_TRIPS if sampled_loop.sampled_loop(program) is not None else (None,)
    runs = {}
    blind = is_blind(program)           # (its data reaches no address or branch: the runs need none of it)

    def run(m, t):
        state = copy.deepcopy(options.memory_state) if options.memory_state is not None else None
        mach = Machine(machine.cfg, numerics=False, memory_state=state)
        for buf, _ in allocs:
            mach.gmem.alloc(buf.size, buf.name, buf.region, init=None if buf.lazy or blind else buf.data,
                            address=buf.address, guard=buf.guard)
        rep = mach.run(program, grid=grid, args=values, pe_mapping=options.pe_mapping, max_steps=options.max_steps,
                       max_programs=options.max_programs, programs_per_pe=m, loop_trips=t)
        runs[m, t] = (rep, state)
        return mach.loop_trips_seen

    trips = None
    if ts[0] is not None:
        seen = run(ms[0], ts[0])
        trips = next(iter(seen)) if len(seen) == 1 else None
        if trips is None or trips < sampling.MIN_TRIPS:     # trips that differ between programs, or too few
            ts, trips = (None,), None
    if ms[0] is None and trips is None:
        return None
    for m in ms:
        for t in ts:
            if (m, t) not in runs:
                run(m, t)
    programs = grid[0] * grid[1] * grid[2]
    done = [sum(min(len(p), m) for p in assignment) for m in ms] if ms[0] is not None else []

    def along_waves(t):
        if ms[0] is None:
            return runs[None, t][0]
        return sampling.extrapolate(runs[ms[0], t][0], runs[ms[1], t][0], *ms, waves, programs, tuple(done), grid)
    report = along_waves(ts[0]) if trips is None else \
        sampling.extend_loop(along_waves(ts[0]), along_waves(ts[1]), *ts, trips, grid)
    last, state = runs[ms[-1], ts[-1]]
    if not sampling.steady(last, report, machine.cfg.sram.llc_mib << 20):
        return None
    if options.memory_state is not None:
        options.memory_state.adopt(state)
    return report


def _has_loop(program) -> bool:
    """Whether the program branches back to an earlier instruction: a loop that num_stages can pipeline."""
    for i, ins in enumerate(program.instrs):
        target = getattr(ins, "target", None)
        if isinstance(target, str) and program.labels.get(target, len(program.instrs)) <= i:
            return True
    return False


register_executor("mtia", MtiaExecutor())


def _stage(name: str):
    def produce(compiled):
        from .target import default_config
        return mtia_program(compiled, default_config())[1][name]
    return produce


def _mtia_stages() -> dict:
    """compiled.asm["mtia-asm"], ["cpp"], ["llvm"], ["json"], and the IR after each backend pass
    ["mtia.<pass>"] (the names the pipeline gives them, compiler/backend/pipeline.py), produced on first
    access for the current hardware config."""
    from ..backend.pipeline import stage_names
    from .target import default_config
    return {name: _stage(name) for name in stage_names(default_config())}


register_stages(_mtia_stages)
