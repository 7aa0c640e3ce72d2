"""The chip: a grid of PEs over a shared memory system, running one launch of a program.

    m = Machine(load_config("mtia-2i"))
    x = m.gmem.alloc_array(np.ones(1024, np.float32), "x")
    report = m.run(program, grid=(4,), args={"x_ptr": x.base, "n": 1024})

Program ids are mapped onto PEs by a strategy (`pe_mapping`, `simulator.launch`); each PE runs its ids
one after another, starting `launch.overhead_ns` after the launch (the work-queue descriptors reach
the PEs). The run ends when every PE has finished and drained its commands; if events run out first,
the machine stops with a deadlock report of every PE instead of hanging, and a program that runs more
than the step limit (`max_steps`) is stopped with a StepLimitError; a grid of more programs than the
launch's limit (`max_programs`) is refused before anything is placed.

The LLC starts empty, unless the machine is given a `MemoryState` (`chip/memory_state.py`): then it
runs on that state's LLC, finding what earlier launches left there and leaving its own lines for the
next launch (each report counts the reads it found warm and the earlier dirty lines it wrote back),
and it ends when the DRAM write-backs of the dirty lines it evicted are through.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np
import simpy
from threadpoolctl import threadpool_limits

from isa import Program
from isa.re import ReSend
from isa.types import np_dtype

from . import launch, sampled_loop
from .chip.memory_system import MemorySystem
from .config import Config, get_config
from .errors import DeadlockError, ProgramError
from .event_loop import Environment
from .gc_pause import cycle_collection_paused
from .memory.global_memory import GlobalMemory
from .pe import scalar_blocks
from .pe.pe import PE
from .report import Report, build_report
from .semantics import load_all

load_all()
from .semantics import control  # noqa: E402,F401  (registers the control-core semantics)


class Machine:
    def __init__(self, cfg: Config | None = None, numerics: bool = True, trace=None,
                 max_steps: int | None = None, sanitize: bool = True, memory_state=None):
        self.cfg = cfg or get_config()
        if memory_state is not None and not memory_state.fits(self.cfg):
            raise ValueError(f"the memory state was made for config {memory_state.cfg.name}, whose LLC (size, line, "
                             f"ways, policy) differs from {self.cfg.name}'s: a launch cannot find its lines")
        self.numerics = numerics
        self.sanitize = sanitize and numerics      # uninitialised-read checks need real data
        self.tracer = trace
        self.max_steps = launch.max_steps(max_steps)     # control-core instructions per program
        self.steps_limit = self.max_steps                 # this run's (run(max_steps=) may override it)
        self.progress = None                              # a tqdm bar over programs, on long runs
        self.gmem = GlobalMemory(self.cfg.dram.capacity_gib << 30,
                                 (self.cfg.sram.size_mib - self.cfg.sram.llc_mib) << 20)
        self.memory_state = memory_state
        self.memsys = MemorySystem(self.cfg, self.gmem, memory_state.llc if memory_state is not None else None)
        self.kernel_name = "?"
        self.grid = (1, 1, 1)
        self._lines, self._source = [], "?"
        self._fresh()

    def _fresh(self) -> None:
        """Per-launch state: time restarts at 0 with idle PEs; memory contents and the LLC persist."""
        self.env = Environment()
        self.memsys.new_launch(self.env)
        self.pes = [PE(self, i) for i in range(self.cfg.num_pes)]
        self.log: list = []
        self._barrier_count = 0
        self._barrier_event = self.env.event()
        self._active = 0
        self._launched = False

    # ---- barrier ------------------------------------------------------------------------------
    def arrive_barrier(self, pe) -> simpy.Event:
        ev = self._barrier_event
        self._barrier_count += 1
        if self._barrier_count == self._active:
            self._barrier_count = 0
            self._barrier_event = self.env.event()
            ev.succeed()
        return ev

    def where(self, pe, pid, pc: int, ins) -> str:
        """How errors name a place: kernel, program id, PE, instruction and its kernel source line."""
        text = f"{self.kernel_name} program {pid} on PE {pe.index} {pe.coords}, instruction {pc} `{ins}`"
        lines = self._lines
        if lines and 0 <= pc < len(lines) and lines[pc]:
            text += f" ({self._source}:{lines[pc]})"
        return text

    def source_line(self, pc: int) -> tuple[str, int] | None:
        """The kernel source file and line that made instruction `pc` of the running program, if known."""
        lines = self._lines
        if lines and 0 <= pc < len(lines) and lines[pc]:
            return self._source, lines[pc]
        return None

    # ---- tracing hooks (a tracer sits outside the model) ----------------------------------------
    def trace_issue(self, pe, cmd) -> None:
        if self.tracer is not None:
            self.tracer.issue(pe, cmd)

    def trace_complete(self, pe, cmd) -> None:
        if self.tracer is not None:
            self.tracer.complete(pe, cmd)

    # ---- running ------------------------------------------------------------------------------
    def run(self, program: Program, grid: tuple = (1,), args: dict[str, Any] | None = None,
            pe_mapping: str = launch.DEFAULT_PE_MAPPING, max_steps: int | None = None,
            max_programs: int | None = None, programs_per_pe: int | None = None,
            loop_trips: int | None = None) -> Report:
        """Run `program` over `grid`; `max_steps` overrides the machine's step limit for this run, and
        `max_programs` the number of programs a launch may have (`simulator.launch.check_programs`).
        `programs_per_pe`: each PE runs only the first that many of its programs (the first waves of the
        launch, as the whole launch runs them: `simulator/sampling.py` extrapolates the rest).
        `loop_trips`: each program leaves its K loop (`sampled_loop.sampled_loop`) after that many trips;
        `loop_trips_seen` then holds the loop's whole trip counts, as the programs entered it."""
        wall = time.perf_counter()
        if self._launched:
            self._fresh()
        self._launched = True
        grid = tuple(grid) + (1,) * (3 - len(grid))
        if any(g < 0 for g in grid):
            raise ProgramError(f"grid {grid} must not be negative along any axis")
        launch.check_programs(grid, max_programs)        # before placing programs: 8 bytes each
        self.kernel_name = program.name
        self._lines = program.meta.get("lines") or []
        self._source = program.meta.get("source", "?")
        self.grid = grid
        self.steps_limit = self.max_steps if max_steps is None else launch.max_steps(max_steps)
        args = dict(args or {})
        missing = [a.name for a in program.args if a.name not in args]
        if missing:
            raise ProgramError(f"{program.name}: no value for argument(s) {', '.join(missing)}")
        unknown = sorted(set(args) - {a.name for a in program.args})
        if unknown:
            raise ProgramError(f"{program.name}: unknown argument(s) {', '.join(unknown)}")
        regs = [(a.reg, _arg_value(a, args[a.name])) for a in program.args]
        self.arg_addrs = [v for a, (_, v) in zip(program.args, regs) if a.kind == "ptr"]
        remote = {ins.cb for ins in program.instrs if type(ins) is ReSend}
        assignment = launch.map_programs(grid, len(self.pes), pe_mapping)
        if programs_per_pe is not None:
            assignment = [pids[:programs_per_pe] for pids in assignment]
        if remote and any(len(p) > 1 for p in assignment):
            n = grid[0] * grid[1] * grid[2]
            raise ProgramError(f"{program.name} sends over the reduction network (tl.mtia.re_reduce), which needs "
                               f"every program on its own PE at once: the grid has {n} programs for "
                               f"{len(self.pes)} PEs")
        self._active = sum(1 for pids in assignment if len(pids))
        site = None
        if loop_trips is not None:
            site = sampled_loop.sampled_loop(program)
            if site is None:
                raise ProgramError(f"{program.name} has no K loop to shorten (simulator/sampled_loop.py)")
        self.loop_trips_seen: set[int] = set()
        runs = scalar_blocks.runs(program)          # straight-line integer code, one function a run
        plans: dict = {}                            # each command decoded once, for every PE
        for pe, pids in zip(self.pes, assignment):
            pe.setup(program, remote, runs, plans)
            pe.pids = pids
            if site is not None:
                sampled_loop.cap(pe.core, site, loop_trips, self.loop_trips_seen)
            if len(pids):
                pe.core.start(pids, lambda pid: regs)
        self.progress = launch.progress(grid[0] * grid[1] * grid[2], program.name)
        # one BLAS thread: per-tile matmuls are small, and spare threads only fight parallel sweeps
        try:
            with threadpool_limits(1, "blas"), cycle_collection_paused():
                self.env.run()
        finally:
            if self.progress is not None:
                self.progress.close()
                self.progress = None
        stuck = [pe for pe, pids in zip(self.pes, assignment) if len(pids) and not pe.core.finished]
        if stuck:
            raise self._deadlock(stuck)
        if self.memory_state is not None:
            # the next launch on this memory would find the DRAM channels still writing back this one's
            # evicted dirty lines (posted writes that nothing here waits for): a launch on a carried state
            # ends when they are through, so that each launch pays the write-backs it caused
            through = float(self.memsys.dram.free_at.max())
            if through > self.env.now:
                self.env.run(until=through)
        report = build_report(self, program, time.perf_counter() - wall)
        if self.tracer is not None and hasattr(self.tracer, "power"):
            self.tracer.power(self, self.power_timeline)
        return report

    def _deadlock(self, stuck) -> DeadlockError:
        states = [pe.state() for pe in self.pes if len(pe.pids)]
        lines = [f"deadlock in {self.kernel_name} at cycle {self.env.now:.0f}: no event can proceed and "
                 f"{len(stuck)} PE(s) have work left"]
        lines += [f"  {b}" for b in self.memsys.pending_broadcasts()]
        for st in states:
            if st["finished"]:
                continue
            core = st["core"]
            lines.append(f"  PE {st['pe']} {st['coords']} program {st['program']}: core at instruction {core['pc']} "
                         f"`{core['instruction']}`" + (f", waiting for {core['waits_for']}" if core["waits_for"] else ""))
            for name, e in st["engines"].items():
                if e["head"] or e["queued"]:
                    head = e["head"]
                    lines.append(f"    {name}: " + (f"instruction {head['instruction']} `{head['text']}` waits for "
                                                     f"{e['waits_for']}" if head else "idle") + f"; {e['queued']} queued")
            for cb in st["cbs"]:
                lines.append(f"    CB {cb['cb']} ({cb['name']}): read ptr {cb['read_ptr']}, write ptr {cb['write_ptr']}, "
                             f"{cb['occupancy']}/{cb['slots']} slots full")
        return DeadlockError("\n".join(lines), {"cycle": self.env.now, "pes": states})


def _arg_value(decl, v) -> int | float:
    if decl.kind == "float":        # rounded to the argument's type, as Triton passes a Python float as fp32
        return float(np.asarray(v, np_dtype(decl.dtype)))
    if isinstance(v, np.generic):   # a numpy scalar (np.int64(10), np.bool_): its value (its `.base` is None)
        return int(v)
    if hasattr(v, "base"):          # an Allocation
        return int(v.base)
    return int(v)
