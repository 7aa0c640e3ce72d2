"""The control core: interprets the scalar part of the program and issues commands to the engines.

Scalar instructions cost `cpi` cycles each (plus the taken-branch and load penalties). The core runs
ahead in its own local time and meets SimPy's clock only when it must: issuing a command (paying
for its operands and its push, `IssuePlan.issue_cycles`, and waiting while the target engine's
queue is full), blocking on a CB, a fence or a barrier. So a loop of address arithmetic costs no
events, and its runs of pure integer instructions are one generated function each (scalar_blocks.py).
"""
from __future__ import annotations

import types

from isa.instruction import ENGINES
from isa.re import ReSend
from isa.types import SRAM_BASE

from ..errors import SanitizerError, SimError, StepLimitError
from ..launch import program_id
from ..semantics import SEMANTICS
from . import command_processor
from .re import resolve_send
from .vector_core import VectorCore

SCALAR, ENGINE, BLOCKING, RUN = 0, 1, 2, 3


class _MeetClock(Exception):
    """A scalar load from global memory, raised before it reads while the core runs ahead of the clock:
    the core meets the clock first, so the load sees what other PEs have written by its time (a
    spin-wait on a flag another program sets would otherwise read the same value for ever)."""


class _InOrder(Exception):
    """A scalar access of global bytes that a transfer this PE issued before it still has to write (or,
    for a store, to read): raised before it accesses, with the events to wait for (DMA.earlier); the
    core waits on the clock, then runs the instruction again."""

    def __init__(self, events):
        self.events = events


class ControlCore:
    def __init__(self, pe):
        self.pe = pe
        self.env = pe.env
        c = pe.cfg.pe.scalar
        self.cpi = c.cpi
        self.branch = c.branch_taken_cycles
        self.ls_load = c.ls_load_cycles
        self.global_load = c.global_load_cycles
        self.x = [0] * 32
        self.f = [0.0] * 32
        self.vec = VectorCore(pe.cfg)     # RVV registers, vl, vtype
        self.dma = pe.engines["dma"]      # (its transfers order the core's scalar accesses of memory)
        self.pc = 0
        self.pid = (0, 0, 0)
        self.extra = 0.0             # stall cycles a scalar instruction adds (loads)
        self.instructions = 0
        self.issued = 0
        self.blocked_on = None       # what the core waits for, for deadlock reports
        self.finished = False
        self.busy = 0.0
        self.todo = iter(())         # the program ids left to run on this PE (run, next_program)
        self.args_for = None
        self.stop_at = 0
        self.on_clock = False        # whether the core's time is the clock's (a global load may read now)

    # ---- program ------------------------------------------------------------------------------
    def load_program(self, program, code) -> None:
        self.program = program
        self.labels = program.labels
        self.code = code

    def start(self, pids, args_for) -> None:
        """Start running the programs `pids` (linear indices into the grid) one after another."""
        self.proc = self.env.process(self.run(pids, args_for))

    def run(self, pids, args_for):
        env = self.env
        sleep = self.proc.sleep
        pe = self.pe
        machine = pe.machine
        code = self.code
        limit = machine.steps_limit
        launch = pe.cfg.launch_cycles
        if launch:                       # the job's descriptor reaches this PE (ISCA'25: under 1 us)
            yield env.timeout(launch)
        self.todo = iter(pids)          # (a persistent program takes the next ones itself: mtia.next_pid)
        self.args_for = args_for
        for index in self.todo:
            self.begin(index)
            pid = self.pid
            stop_at = self.stop_at          # the step limit, one comparison per instruction
            pc = 0
            t = 0.0
            while True:
                if pc >= len(code) or pc < 0:
                    raise SimError(f"{pe.machine.kernel_name} program {pid} on PE {pe.index}: control fell off "
                                   f"the end of the program (pc {pc}); end each program with halt")
                fn, ins, what, engine = code[pc]
                self.pc = pc
                if what == RUN:              # a run of pure integer instructions (scalar_blocks.py)
                    fn(self.x)
                    self.instructions += engine         # (its length)
                    if self.instructions > stop_at:
                        raise StepLimitError(self._step_limit_text(ins, limit))
                    cpi = self.cpi
                    for _ in range(engine):             # one addition each, as one at a time
                        t += cpi
                    pc += engine
                    continue
                self.instructions += 1
                if self.instructions > stop_at:
                    raise StepLimitError(self._step_limit_text(ins, limit))
                if what == SCALAR:
                    try:
                        nxt = fn(self, ins)
                    except _MeetClock:
                        self.instructions -= 1          # (run again once the core is on the clock)
                        if t:
                            yield sleep(t)
                            self.busy += t
                            t = 0.0
                        self.on_clock = True
                        continue
                    except _InOrder as e:               # (on the clock already: run again after them)
                        self.instructions -= 1
                        for ev in e.events:
                            if not ev.triggered:
                                self.blocked_on = ("memory order", None, None)
                                yield ev
                        self.blocked_on = None
                        self.on_clock = True
                        continue
                    t += self.cpi + self.extra
                    self.extra = 0.0
                    if nxt is None:
                        pc += 1
                    elif nxt < 0:
                        break
                    else:
                        t += self.branch
                        pc = nxt
                    continue
                t += fn.issue_cycles(self) if what == ENGINE else self.cpi
                yield sleep(t)
                self.busy += t
                t = 0.0
                if what == ENGINE:
                    cmd = fn.issue(self)
                    if type(ins) is ReSend:
                        resolve_send(pe, cmd)
                    self.issued += 1
                    pe.track(cmd)
                    if machine.tracer is not None:
                        machine.trace_issue(pe, cmd)
                    queued = engine.queue.put(cmd)
                    if queued is not None:          # the queue is full
                        self.blocked_on = ("queue", engine.kind, None)
                        yield queued
                        self.blocked_on = None
                else:
                    r = fn(self, ins)
                    if isinstance(r, types.GeneratorType):
                        yield from r
                    stop_at = self.stop_at          # (mtia.next_pid starts a program's count again)
                    pid = self.pid
                pc += 1
            if t:
                yield env.timeout(t)
                self.busy += t
            if machine.progress is not None:
                machine.progress.update(1)
        yield from self.fence()
        self.finished = True

    def begin(self, index) -> None:
        """Start program `index` (a linear index into the grid): its id, its step count, and the
        registers as the launch sets them (the arguments; everything else cleared)."""
        pid = program_id(int(index), self.pe.machine.grid)
        self.pid = pid
        self.stop_at = self.instructions + self.pe.machine.steps_limit
        self.x = [0] * 32
        self.f = [0.0] * 32
        self.vec.reset()
        for reg, val in self.args_for(pid):
            if reg[0] == "x":
                self.x[int(reg[1:])] = val
            else:
                self.f[int(reg[1:])] = val

    def next_program(self) -> bool:
        """Job replace (`mtia.next_pid`): begin this PE's next program id, if it has one left."""
        index = next(self.todo, None)
        if index is None:
            return False
        progress = self.pe.machine.progress
        if progress is not None:
            progress.update(1)
        self.begin(index)
        return True

    def _step_limit_text(self, ins, limit: int) -> str:
        return (f"{self.where(ins)}: the program ran more than {limit} steps (control-core instructions) and "
                f"was stopped here: it seems never to end. If it really runs that long, raise the limit (the "
                f"max_steps= launch option, or MTIASIM_MAX_STEPS)")

    # ---- blocking helpers (used by cb/sync semantics) -------------------------------------------
    def wait(self, ev, why):
        if not ev.triggered:
            self.blocked_on = why
            yield ev
            self.blocked_on = None

    def fence(self):
        """Wait until every command issued so far on this PE has completed."""
        pending = self.pe.pending
        for ev in pending:
            if not ev.triggered:
                self.blocked_on = ("fence", None, None)
                yield ev
        pending.clear()
        self.blocked_on = None

    def where(self, ins=None) -> str:
        return self.pe.machine.where(self.pe, self.pid, self.pc, ins if ins is not None else self.code[self.pc][1])

    # ---- scalar memory ----------------------------------------------------------------------------
    def load(self, addr: int, n: int, ins) -> bytes:
        ls = self.pe.ls
        if 0 <= addr and addr + n <= ls.size:
            self.extra += self.ls_load
            written = self.pe.ls_written
            if written is not None and not written[addr: addr + n].all():
                raise SanitizerError(f"{self.where(ins)}: scalar load of local-store bytes [{addr:#x}, {addr + n:#x}) "
                                     f"that were never written")
            return ls[addr: addr + n].tobytes()
        if addr >= SRAM_BASE:
            if not self.on_clock:
                raise _MeetClock
            a, off = self.pe.machine.gmem.locate(addr, addr + n,
                                                 lambda: f"{self.where(ins)}: out-of-bounds scalar load")
            self._in_order(addr, n, False)
            self.on_clock = False
            self.extra += self.global_load
            return a.data[off: off + n].tobytes()
        raise SanitizerError(f"{self.where(ins)}: scalar load of {n} bytes at {addr:#x} is outside the local store "
                             f"[0, {ls.size:#x}) and below global memory ({SRAM_BASE:#x}..)")

    def store(self, addr: int, raw: bytes, ins) -> None:
        ls = self.pe.ls
        n = len(raw)
        if 0 <= addr and addr + n <= ls.size:
            ls[addr: addr + n] = memoryview(raw)
            if self.pe.ls_written is not None:
                self.pe.ls_written[addr: addr + n] = True
            return
        if addr >= SRAM_BASE:
            a, off = self.pe.machine.gmem.locate(addr, addr + n,
                                                 lambda: f"{self.where(ins)}: out-of-bounds scalar store")
            self._in_order(addr, n, True)
            self.on_clock = False
            a.data[off: off + n] = memoryview(raw)
            self.extra += 1
            return
        raise SanitizerError(f"{self.where(ins)}: scalar store of {n} bytes at {addr:#x} is outside the local "
                             f"store [0, {ls.size:#x}) and below global memory ({SRAM_BASE:#x}..)")

    def _in_order(self, addr: int, n: int, write: bool) -> None:
        """Program order with this PE's transfers: a scalar access of bytes that an earlier transfer
        still writes (or, for a store, still has to read) waits for it, on the clock. Transfers only
        finish as time passes, so none found while the core runs ahead means none at its own time."""
        waits = self.dma.earlier(addr, addr + n, write)
        if waits:
            if not self.on_clock:
                raise _MeetClock
            raise _InOrder(waits)


def compile_code(pe, program, scalar_runs: dict | None = None, plans: dict | None = None) -> list:
    """(semantics function, instruction, kind, engine) for each instruction, looked up once; for a
    command, its issue plan in place of the function; where a run of pure integer instructions
    starts (`scalar_runs`, from scalar_blocks.runs), (the run's function, its first instruction,
    RUN, its length). `plans` ({instruction index: issue plan}), shared by the PEs of one launch,
    decodes each command once and rebinds it for the other PEs."""
    code = []
    for i, ins in enumerate(program.instrs):
        if scalar_runs and i in scalar_runs:
            fn, n = scalar_runs[i]
            code.append((fn, ins, RUN, n))
            continue
        cls = type(ins)
        unit = cls.unit
        if unit in ENGINES:
            engine = pe.engines[unit]
            first = plans.get(i) if plans is not None else None
            if first is None:
                plan = command_processor.IssuePlan(pe, ins, engine)
                if plans is not None:
                    plans[i] = plan
            else:
                plan = first.rebind(pe, engine)
            code.append((plan, ins, ENGINE, engine))
            continue
        fn = SEMANTICS.get(cls)
        if fn is None:
            raise SimError(f"instruction {i} `{ins}` has no semantics in the simulator")
        code.append((fn, ins, SCALAR if unit in ("scalar", "vector") else BLOCKING, None))
    return code

