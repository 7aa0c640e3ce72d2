"""A circular buffer over the local store, as the Command Processor tracks it.

Slots are numbered by absolute position (0, 1, 2, ... never wrapping); slot s lives at
`base + (s % slots) * slot_bytes`. The pointers `rd` and `wr` move in *program order*, when commands
are issued, so which slot a command touches never depends on timing. Timing comes from events:

- `written(s)`: fires when the newest writer of slot s (a push, or an in-place `acc` update) completes;
- `released(s)`: fires when slot s has been popped and every command that read it has completed,
  which is when slot s + slots may be written.

Either side may ask for an event before the other side exists (a consumer issued before its
producer, a producer waiting for a slot whose pop is not issued yet): the event is created on first
request and handed to the other side when it arrives.
"""
from __future__ import annotations

from dataclasses import dataclass

import simpy

from isa.program import CBDecl

from ..errors import SanitizerError
from ..signal import Signal


@dataclass(slots=True)
class Version:
    """The newest write of a slot: the event readers wait for, and the engine that makes it."""
    event: Signal
    engine: object | None           # the engine whose completion fires it (None until claimed)
    readers: list                   # (completion event, engine) of the commands that read this version
    # the elements of the tile that hold data, per dimension (a masked dma.in's box clipped by its
    # valid and skip extents; None: all of them): the DPE counts useful work on these alone
    extents: tuple | None = None


class CircularBuffer:
    on_release = None       # a tracer's callback(cb), set per CB only while tracing: else one check

    def __init__(self, env: simpy.Environment, decl: CBDecl, pe_name: str):
        self.env = env
        self.decl = decl
        self.id = decl.id
        self.name = decl.name
        self.pe_name = pe_name
        self.base = decl.base
        self.slot_bytes = decl.slot_bytes
        self.slots = decl.slots
        self.rd = 0                     # slots popped, in program order
        self.wr = 0                     # slots reserved for writing, in program order
        self.versions: dict[int, Version] = {}
        self._released: dict[int, list] = {}   # slot -> [event, handed_out]
        self.core_reserved: list[int] = []     # slots the control core reserved and has not pushed
        self.remote_fed = False                # written by other PEs (reduction network)
        self.written_mask = None               # the PE's sanitizer map of initialised LS bytes
        # completed counts for reports and deadlock dumps
        self.pushed_done = 0
        self.popped_done = 0
        self.peak_occupancy = 0

    def address(self, slot: int) -> int:
        return self.base + (slot % self.slots) * self.slot_bytes

    # ---- events -------------------------------------------------------------------------------
    def version(self, slot: int) -> Version:
        v = self.versions.get(slot)
        if v is None:
            v = self.versions[slot] = Version(Signal(self.env), None, [])
        return v

    def claim_write(self, slot: int, engine) -> Signal:
        """A push to `slot` is issued: the event its completion fires."""
        v = self.version(slot)
        if v.engine is not None:
            raise AssertionError(f"slot {slot} of CB {self.id} written twice by push")
        v.engine = engine
        return v.event

    def new_version(self, slot: int, engine) -> tuple[Version, Version]:
        """An in-place update of `slot` is issued: (the version it reads, the version it makes)."""
        old = self.version(slot)
        new = Version(Signal(self.env), engine, [])
        self.versions[slot] = new
        return old, new

    def released(self, slot: int) -> Signal:
        """The event that fires when `slot` is free again (popped and read by everyone)."""
        entry = self._released.get(slot)
        if entry is None:
            ev = Signal(self.env)
            self._released[slot] = [ev, False]
            return ev
        # the second party to ask (producer or popper) removes the entry
        del self._released[slot]
        return entry[0]

    def check_pop(self, where, n: int = 1) -> None:
        """Popping `n` slots must not pass what was pushed; `where` is the error's context, or a function
        that makes it (only called on error)."""
        if self.rd + n > self.wr and not self.remote_fed:
            raise SanitizerError(f"{where() if callable(where) else where}: pops CB {self.id} ({self.name}) beyond "
                                 f"what was pushed: read pointer {self.rd}, write pointer {self.wr}, popping {n}")

    def pop_issued(self, slot: int) -> None:
        """Slot `slot` is popped in program order: it is released once all its readers complete."""
        rel = self.released(slot)
        v = self.versions.get(slot)
        if v is not None and (v.engine is not None or v.event.triggered):
            del self.versions[slot]     # else a producer not issued yet (another PE's send) claims it later
        pending = [e for e, _ in (v.readers if v else []) if not e.triggered]
        if v is not None and not v.event.triggered:
            pending.append(v.event)
        if not pending:
            self._release(rel, slot)
            return
        count = [len(pending)]

        def one_done(_):
            count[0] -= 1
            if count[0] == 0:
                self._release(rel, slot)
        for e in pending:
            e.callbacks.append(one_done)

    def _release(self, rel: Signal, slot: int) -> None:
        self.popped_done += 1
        if self.written_mask is not None:      # a freed slot holds no data until it is written again
            a = self.address(slot)
            self.written_mask[a: a + self.slot_bytes] = False
        rel.succeed()
        if self.on_release is not None:
            self.on_release(self)

    # ---- state for reports --------------------------------------------------------------------
    def occupancy(self) -> int:
        """Slots written and not yet released."""
        return self.pushed_done - self.popped_done

    def state(self) -> dict:
        return {"cb": self.id, "name": self.name, "slots": self.slots, "slot_bytes": self.slot_bytes,
                "read_ptr": self.rd, "write_ptr": self.wr, "pushed": self.pushed_done,
                "released": self.popped_done, "occupancy": self.occupancy()}

    def __repr__(self) -> str:
        return f"CB {self.id} ({self.name}) on {self.pe_name}"
