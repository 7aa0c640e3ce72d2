"""The Command Processor: turns a custom instruction from the control core into a `Command`.

At issue, in program order, it reads the scalar operands out of the core's registers, resolves every
tile operand to a CB slot and its local-store address, moves the CB pointers, and collects the
events the command must wait for (its inputs written, its outputs' slots released, in-place targets
no longer being read). The engine that runs the command waits for those events; the CP never
blocks on timing except when an engine's queue is full.
"""
from __future__ import annotations

import simpy

from isa import fields as K
from isa.instruction import Instr
from isa.types import F, Tile, X

from ..errors import ProgramError, SanitizerError

# how each field of an instruction is read at issue time
LITERAL, XREG, REF, LIST, TILE = range(5)
_PLANS: dict[type, tuple] = {}


def plan(cls: type[Instr]) -> tuple:
    p = _PLANS.get(cls)
    if p is None:
        out = []
        for name, kind, _ in cls.fields:
            if issubclass(kind, K.TileKind):
                code = TILE
            elif issubclass(kind, K.Src):
                code = REF          # a tile or a scalar: decided per value
            elif kind in (K.XReg,):
                code = XREG
            elif issubclass(kind, (K.XOrImm, K.FOrImm)):
                code = REF
            elif issubclass(kind, K.XList):
                code = LIST
            else:
                code = LITERAL
            out.append((name, code))
        p = _PLANS[cls] = tuple(out)
    return p


class Command:
    __slots__ = ("ins", "engine", "pc", "pid", "vals", "addr", "tiles", "deps", "writes", "done",
                 "issued", "start", "end", "seq")

    def __init__(self, ins, engine, pc, pid, env):
        self.ins = ins
        self.engine = engine
        self.pc = pc
        self.pid = pid
        self.vals: dict = {}
        self.addr: dict[str, int] = {}
        self.tiles: list[tuple[str, Tile]] = []
        self.deps: list = []          # (event, why) pairs; why = (what, cb id, slot[, writer's kind])
        self.writes: list = []        # (cb, event, mode)
        self.done: simpy.Event = env.event()
        self.issued = env.now
        self.start = self.end = None

    def where(self) -> str:
        return self.engine.pe.machine.where(self.engine.pe, self.pid, self.pc, self.ins)

    def oob(self, kind: str):
        """Context for an out-of-bounds error of this command, built only if one is raised."""
        return lambda: f"{self.where()}: out-of-bounds {kind}"


def _scalar(core, v):
    if isinstance(v, X):
        return core.x[v.n]
    if isinstance(v, F):
        return core.f[v.n]
    return v


def issue(pe, core, ins: Instr, engine) -> Command:
    """Build the command for `ins`, resolving registers and CB slots in program order.

    Tiles read are resolved before tiles written, so an in-place update (`acc`) of a slot the same
    command also reads sees the old version, and does not wait for itself."""
    cmd = Command(ins, engine, core.pc, core.pid, pe.env)
    vals = cmd.vals
    tiles = []
    for name, code in plan(type(ins)):
        v = getattr(ins, name)
        if code == LITERAL:
            vals[name] = v
        elif code == XREG:
            vals[name] = core.x[v]
        elif code == LIST:
            vals[name] = tuple(core.x[e.n] if isinstance(e, X) else e for e in v)
        elif code == REF and not isinstance(v, Tile):
            vals[name] = _scalar(core, v)
        elif v is not None:
            tiles.append((name, v, _cb(pe, cmd, name, v)))
    pops = []
    for name, t, cb in tiles:
        if t.mode == "pop" or t.mode == "keep":
            _read(cmd, name, t, cb, engine, pops)
    for name, t, cb in tiles:
        if t.mode == "push" or t.mode == "acc":
            _write(cmd, name, t, cb, engine)
    if pops:
        _pop(pe, cmd, pops)
    return cmd


def _cb(pe, cmd, name, t: Tile):
    cb = pe.cbs.get(t.cb)
    if cb is None:
        raise ProgramError(f"{cmd.where()}: CB {t.cb} is not declared (declared: "
                           f"{', '.join(str(c) for c in sorted(pe.cbs)) or 'none'})")
    if t.nbytes > cb.slot_bytes:
        raise SanitizerError(f"{cmd.where()}: tile {name} = {t} is {t.nbytes} bytes but the slots of "
                             f"CB {cb.id} ({cb.name}) hold {cb.slot_bytes}: it would overwrite the next slot")
    cmd.tiles.append((name, t))
    return cb


def _read(cmd, name, t: Tile, cb, engine, pops) -> None:
    if t.offset >= cb.slots:
        raise SanitizerError(f"{cmd.where()}: tile {name} = {t} reads {t.offset} slots past the read pointer of "
                             f"CB {cb.id} ({cb.name}), which has {cb.slots} slots: it could never be written")
    slot = cb.rd + t.offset
    v = cb.version(slot)
    if not (engine.in_order and v.engine is engine):
        cmd.deps.append((v.event, ("data", cb.id, slot, _kind(v.engine))))
    v.readers.append((cmd.done, engine))
    if t.mode == "pop":
        pops.append((cb, slot))
    cmd.addr[name] = cb.address(slot)


def _write(cmd, name, t: Tile, cb, engine) -> None:
    if t.mode == "push":
        slot = cb.wr
        cb.wr += 1
        if slot >= cb.slots:
            cmd.deps.append((cb.released(slot - cb.slots), ("space", cb.id, slot - cb.slots)))
        cmd.writes.append((cb, cb.claim_write(slot, engine), "push"))
    else:
        slot = cb.rd + t.offset
        old, new = cb.new_version(slot, engine)
        in_order = engine.in_order
        if not (in_order and old.engine is engine):
            cmd.deps.append((old.event, ("data", cb.id, slot, _kind(old.engine))))
        for ev, eng in old.readers:      # write after read: earlier readers finish first
            if ev is not cmd.done and not (in_order and eng is engine):
                cmd.deps.append((ev, ("readers", cb.id, slot)))
        cmd.writes.append((cb, new.event, "acc"))
    cmd.addr[name] = cb.address(slot)


def _kind(engine) -> str | None:
    """The kind of engine that writes a slot version ("dma", "se", ...), for stall reports."""
    return getattr(engine, "kind", None)


def _pop(pe, cmd, pops) -> None:
    by_cb: dict = {}
    for cb, slot in pops:
        by_cb.setdefault(cb, []).append(slot)
    for cb, slots in by_cb.items():
        if sorted(slots) != list(range(cb.rd, cb.rd + len(slots))):
            raise SanitizerError(f"{cmd.where()}: pops of CB {cb.id} ({cb.name}) must release its oldest slots "
                                 f"{list(range(cb.rd, cb.rd + len(slots)))}, not {sorted(slots)}")
        check_pop(cmd.where, cb, len(slots))
        for s in sorted(slots):
            cb.pop_issued(s)
        cb.rd += len(slots)


def check_pop(where, cb, n: int = 1) -> None:
    """`where` is the error's context, or a function that makes it (only called on error)."""
    if cb.rd + n > cb.wr and not cb.remote_fed:
        raise SanitizerError(f"{where() if callable(where) else where}: pops CB {cb.id} ({cb.name}) beyond what was pushed: read pointer "
                             f"{cb.rd}, write pointer {cb.wr}, popping {n}")
