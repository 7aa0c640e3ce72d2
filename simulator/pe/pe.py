"""One processing element: control core, command processor, engines, local store and its CBs."""
from __future__ import annotations

import numpy as np

from isa.dma import DmaIn

from ..chip.link import Link
from ..errors import ProgramError, SanitizerError
from ..memory.circular_buffer import CircularBuffer
from ..semantics import SEMANTICS
from .control_core import ControlCore, compile_code
from .dma import DMA
from .dpe import DPE
from .mlu import MLU
from .re import RE
from .se import SE
from .timing_only import is_blind

BULK_ENGINES = ("dpe", "se", "re", "mlu")   # what timing-only mode may skip


class PE:
    def __init__(self, machine, index: int):
        self.machine = machine
        self.env = machine.env
        self.cfg = machine.cfg
        self.gmem = machine.gmem
        self.index = index
        self.row, self.col = divmod(index, self.cfg.grid.cols)
        self.coords = (self.row, self.col)
        self.ls = np.zeros(self.cfg.ls_bytes, np.uint8)
        ls_bpc = self.cfg.gbps_to_bpc(self.cfg.pe.local_store_gbps)
        # one local-store port (the published 1 TB/s is reads plus writes), shared by the engines and the DMA
        self.ls_port = Link(f"pe{index}.ls", ls_bpc)
        self.cbs: dict[int, CircularBuffer] = {}
        self.engines = {"dma": DMA(self), "dpe": DPE(self), "se": SE(self), "re": RE(self), "mlu": MLU(self)}
        self.engine_list = list(self.engines.values())
        self.core = ControlCore(self)
        self.pending: list = []          # completion events of commands since the last fence
        self.compact_at = 64             # its length at which the completed ones are dropped
        # which local-store bytes hold data: reads of anything else are reported (sanitizer)
        self.ls_written = np.zeros(self.cfg.ls_bytes, np.bool_) if machine.sanitize else None
        self.pids: list = []

    def setup(self, program, remote_cbs: set[int], scalar_runs: dict | None = None,
              plans: dict | None = None) -> None:
        ls = self.cfg.ls_bytes
        spans = []
        for d in program.cbs:
            if d.id in self.cbs:
                raise ProgramError(f"{program.name}: CB {d.id} is declared twice")
            if d.slots < 1 or d.slot_bytes < 1 or d.base < 0:
                raise ProgramError(f"{program.name}: CB {d.id} ({d.name}) needs slots >= 1, slot bytes >= 1 "
                                   f"and base >= 0; got {d}")
            if d.base + d.nbytes > ls:
                used = max((b + n for b, n, _ in spans), default=0)
                raise ProgramError(
                    f"{program.name}: CB {d.id} ({d.name}) needs local store bytes [{d.base}, {d.base + d.nbytes}) "
                    f"({d.slots} slots x {d.slot_bytes} B) but the local store of {self.cfg.name} holds {ls} bytes "
                    f"(pe.local_store_kib = {self.cfg.pe.local_store_kib}; allowed range for this CB: base + "
                    f"slots x slot bytes <= {ls}; {used} bytes already taken by earlier CBs)")
            for b, n, other in spans:
                if d.base < b + n and b < d.base + d.nbytes:
                    raise ProgramError(f"{program.name}: CB {d.id} ({d.name}) overlaps CB {other.id} ({other.name}) "
                                       f"in the local store")
            spans.append((d.base, d.nbytes, d))
            cb = CircularBuffer(self.env, d, f"PE {self.index}")
            cb.remote_fed = d.id in remote_cbs
            cb.written_mask = self.ls_written
            self.cbs[d.id] = cb
        self.core.load_program(program, compile_code(self, program, scalar_runs, plans))
        # timing-only: whether the program's tile data can be skipped (timing_only.py)
        self.blind = not self.machine.numerics and is_blind(program)

    def track(self, cmd) -> None:
        p = self.pending
        p.append(cmd.done)
        if len(p) > self.compact_at:
            # drop the completed ones; the next compaction waits for twice what stays, so this costs
            # O(1) per command and the list holds about twice the commands in flight (a fixed 4096 let
            # every PE keep thousands of finished events alive: memory, and time, grew with the run)
            p = self.pending = [e for e in p if not e.triggered]
            self.compact_at = max(64, 2 * len(p))

    def run_semantics(self, cmd) -> None:
        plan = cmd.plan
        skip = plan.skips_semantics
        if skip is None:
            skip = plan.skips_semantics = self.blind and (cmd.engine.kind in BULK_ENGINES or type(cmd.ins) is DmaIn)
        if skip:
            return
        fn = SEMANTICS[type(cmd.ins)]
        written = self.ls_written
        if written is not None:
            self.check_initialized(cmd, written)
        try:
            fn(self, cmd)
        except SanitizerError as e:
            msg = str(e)
            raise SanitizerError(msg if " on PE " in msg else f"{cmd.where()}: {msg}") from None
        if written is not None:
            for name, t in cmd.tiles:
                if t.mode in ("push", "acc"):
                    a = cmd.addr[name]
                    written[a: a + t.nbytes] = True

    def check_initialized(self, cmd, written) -> None:
        """A tile read must cover local-store bytes something wrote (an engine, a DMA or the core).
        An `acc` output is read only by the DPE (out + a @ b); other engines just write it in place
        (the SE widening a loaded f16 into an f32 in its own slot writes bytes the DMA did not)."""
        for name, t in cmd.tiles:
            if t.mode in ("pop", "keep") or (t.mode == "acc" and (name != "out" or cmd.ins.unit == "dpe")):
                a = cmd.addr[name]
                if not written[a: a + t.nbytes].all():
                    bad = a + int(np.argmin(written[a: a + t.nbytes]))
                    raise SanitizerError(
                        f"{cmd.where()}: reads {name} = {t}, but local-store byte {bad:#x} of that slot was never "
                        f"written (a slot pushed without data, e.g. cb.reserve/cb.push with no store between)")

    def complete(self, cmd, semantics: bool = True) -> None:
        if semantics and cmd.plan.skips_semantics is not True:      # (True: known to skip, no call)
            self.run_semantics(cmd)
        for cb, ev, mode in cmd.writes:
            if mode == "push":
                cb.pushed_done += 1
                occ = cb.pushed_done - cb.popped_done
                if occ > cb.peak_occupancy:
                    cb.peak_occupancy = occ
            ev.succeed()
        cmd.done.succeed()
        if self.machine.tracer is not None:
            self.machine.trace_complete(self, cmd)

    def state(self) -> dict:
        core = self.core
        engines = {}
        for name, eng in self.engines.items():
            head = eng.current
            engines[name] = {
                "queued": len(eng.queue.items),
                "head": None if head is None else {"instruction": head.pc, "text": str(head.ins)},
                "waits_for": describe(eng.waiting),
            }
        return {
            "pe": self.index, "coords": self.coords, "program": core.pid, "finished": core.finished,
            "core": {"pc": core.pc, "instruction": str(core.code[core.pc][1]) if core.code else None,
                     "waits_for": describe(core.blocked_on)},
            "engines": engines,
            "cbs": [cb.state() for cb in self.cbs.values()],
        }


def describe(why) -> str | None:
    if why is None:
        return None
    what, a, b = why[:3]
    text = {
        "data": lambda: f"CB {a} slot {b} to be written",
        "space": lambda: f"space in CB {a}: its slot {b} is still in use",
        "readers": lambda: f"readers of CB {a} slot {b} to finish",
        "queue": lambda: f"room in the {a} queue",
        "fence": lambda: "all issued commands to complete (fence)",
        "memory order": lambda: "an earlier transfer of the bytes a scalar load or store accesses",
        "barrier": lambda: "the other PEs to reach the barrier",
        "store": lambda: f"an in-flight store to [{a:#x}, {b:#x}) to land",
        "outstanding": lambda: f"one of {a} DMA transfers in flight to finish",
    }.get(what)
    return text() if text else str(why)
