"""The Command Processor: turns a custom instruction from the control core into a `Command`.

At issue, in program order, it reads the scalar operands out of the core's registers, resolves every
tile operand to a CB slot and its local-store address, moves the CB pointers, and collects the
events the command must wait for (its inputs written, its outputs' slots released, in-place targets
no longer being read). The engine that runs the command waits for those events; the CP never
blocks on timing except when an engine's queue is full.

What an instruction's operands are (which fields are literals, which registers to read, which CB
each tile names and its size) does not change between issues, so `IssuePlan` works it out once per
instruction and PE when the program is loaded; issuing a command then only reads registers and
moves CB pointers.
"""
from __future__ import annotations

from isa import fields as K
from isa.instruction import Instr
from isa.types import F, Tile, X

from ..errors import ProgramError, SanitizerError
from ..signal import Signal

# how each field of an instruction is read at issue time
LITERAL, XREG, FREF, LIST, TILE = range(5)


class Command:
    __slots__ = ("ins", "engine", "pc", "pid", "vals", "addr", "tiles", "deps", "writes", "done",
                 "issued", "start", "end", "seq", "plan")

    def __init__(self, plan, pc, pid, env):
        self.plan = plan
        self.ins = plan.ins
        self.engine = plan.engine
        self.pc = pc
        self.pid = pid
        self.tiles: tuple[tuple[str, Tile], ...] = plan.tiles
        self.addr: dict[str, int] = {}
        self.deps: list = []          # (event, why) pairs; why = (what, cb id, slot[, writer's kind])
        self.writes: list = []        # (cb, event, mode)
        self.done = Signal(env)
        self.issued = env.now
        self.start = self.end = None

    def where(self) -> str:
        return self.engine.pe.machine.where(self.engine.pe, self.pid, self.pc, self.ins)

    def oob(self, kind: str):
        """Context for an out-of-bounds error of this command, built only if one is raised."""
        return lambda: f"{self.where()}: out-of-bounds {kind}"


class IssuePlan:
    """How to issue one instruction on one PE: its operands decoded once.

    `vals` holds every scalar field in declaration order (literals filled in, registers read at
    issue); `reads` and `writes` are its tiles by mode, each with its CB; `tiles` all of them in
    declaration order (`Command.tiles`); `ls_bytes` the local-store traffic of its tiles. `cost` is
    the engine's to fill: what the command costs when that depends on the instruction alone (its
    cycles, operations), and `skips_semantics` whether timing-only runs leave out its math."""
    __slots__ = ("ins", "engine", "vals", "regs", "lists", "tiles", "reads", "writes", "error", "ls_bytes",
                 "cost", "skips_semantics")

    def __init__(self, pe, ins: Instr, engine):
        self.ins = ins
        self.engine = engine
        self.vals: dict = {}
        self.regs: list = []           # (field, register file "x"/"f", register number)
        self.lists: list = []          # (field, XList value): registers and immediates
        self.reads: list = []          # (field, tile, cb) for pop and keep, in declaration order
        self.writes: list = []         # (field, tile, cb) for push and acc
        self.error = None              # the issue-time error of a tile that cannot be resolved
        self.ls_bytes = 0
        self.cost = None
        self.skips_semantics = None
        tiles = []
        for name, kind, _ in type(ins).fields:
            v = getattr(ins, name)
            code = _code(kind, v)
            if code == TILE:
                if v is not None:
                    tiles.append((name, v))
                    self._tile(pe, name, v)
            elif code == XREG:
                self.vals[name] = None
                self.regs.append((name, "x", v if type(v) is int else v.n))
            elif code == FREF:
                self.vals[name] = None
                self.regs.append((name, "f", v.n))
            elif code == LIST:
                self.vals[name] = None
                self.lists.append((name, v))
            else:
                self.vals[name] = v
        self.tiles = tuple(tiles)

    def _tile(self, pe, name: str, t: Tile) -> None:
        cb = pe.cbs.get(t.cb)
        if self.error is None:      # issue raises the first tile's error, in declaration order
            if cb is None:
                self.error = ProgramError, (f"CB {t.cb} is not declared (declared: "
                                            f"{', '.join(str(c) for c in sorted(pe.cbs)) or 'none'})")
            elif t.nbytes > cb.slot_bytes:
                self.error = SanitizerError, (f"tile {name} = {t} is {t.nbytes} bytes but the slots of CB {cb.id} "
                                              f"({cb.name}) hold {cb.slot_bytes}: it would overwrite the next slot")
        self.ls_bytes += t.nbytes * (2 if t.mode == "acc" else 1)
        (self.reads if t.mode in ("pop", "keep") else self.writes).append((name, t, cb))

    def issue(self, core) -> Command:
        """Build the command, resolving registers and CB slots in program order.

        Tiles read are resolved before tiles written, so an in-place update (`acc`) of a slot the
        same command also reads sees the old version, and does not wait for itself."""
        cmd = Command(self, core.pc, core.pid, core.env)
        if self.error is not None:
            cls, msg = self.error
            raise cls(f"{cmd.where()}: {msg}")
        vals = cmd.vals = self.vals.copy()
        if self.regs:
            x, f = core.x, core.f
            for name, file, n in self.regs:
                vals[name] = x[n] if file == "x" else f[n]
        for name, v in self.lists:
            vals[name] = tuple(core.x[e.n] if isinstance(e, X) else e for e in v)
        engine = self.engine
        pops = None
        for name, t, cb in self.reads:
            if t.mode == "pop":
                if pops is None:
                    pops = []
                _read(cmd, name, t, cb, engine, pops)
            else:
                _read(cmd, name, t, cb, engine, None)
        for name, t, cb in self.writes:
            _write(cmd, name, t, cb, engine)
        if pops:
            _pop(cmd, pops)
        return cmd


def _code(kind, v) -> int:
    """How a field holding `v` is read at issue: a tile, a register, a list or a literal."""
    if issubclass(kind, K.TileKind):
        return TILE
    if kind is K.XReg:
        return XREG
    if issubclass(kind, (K.Src, K.XOrImm, K.FOrImm)):   # a tile or a scalar: decided by the value
        if isinstance(v, Tile):
            return TILE
        if isinstance(v, X):
            return XREG
        if isinstance(v, F):
            return FREF
        return LITERAL
    if issubclass(kind, K.XList):
        return LIST
    return LITERAL


def _read(cmd, name, t: Tile, cb, engine, pops) -> None:
    if t.offset >= cb.slots:
        raise SanitizerError(f"{cmd.where()}: tile {name} = {t} reads {t.offset} slots past the read pointer of "
                             f"CB {cb.id} ({cb.name}), which has {cb.slots} slots: it could never be written")
    slot = cb.rd + t.offset
    v = cb.version(slot)
    if not (engine.in_order and v.engine is engine):
        cmd.deps.append((v.event, ("data", cb.id, slot, _kind(v.engine))))
    v.readers.append((cmd.done, engine))
    if pops is not None:
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


def _pop(cmd, pops) -> None:
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
