"""The Command Processor: turns a custom instruction from the control core into a `Command`.

At issue, in program order, it reads the scalar operands out of the core's registers, resolves every
tile operand to a CB slot and its local-store address, moves the CB pointers, and collects the
events the command must wait for (its inputs written, its outputs' slots released, in-place targets
no longer being read). The engine that runs the command waits for those events; the CP never
blocks on timing except when an engine's queue is full.

What an instruction's operands are (which fields are literals, which registers to read, which CB
each tile names and its size) does not change between issues, so `IssuePlan` works it out once per
instruction when the program is loaded (on the first PE; the others get it rebound to their own
engine and CBs, `IssuePlan.rebind`); issuing a command then only reads registers and moves CB
pointers.

The control core pays for each command's issue what its operands cost to send (`issue_cycles`
here): every operand is a 64-bit word (each tile's CB fields, each register, each list element, and
one word for the literal fields), written `operand_words_per_write` at a time by custom instructions
before the push. A command issued through a context (`ctx=c`) sends only the words that differ from
those the context holds; its auto-increment (`inc=`) advances the held address as it advances the
base register, so a loop's next address is not sent either.
"""
from __future__ import annotations

import dataclasses
import math

from isa import fields as K
from isa.dma import DmaIn
from isa.dpe import DpeMatmul
from isa.instruction import Instr
from isa.types import F, Tile, X, itemsize

from ..errors import ProgramError, SanitizerError
from ..semantics.scalar import wrap
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
                 "cost", "skips_semantics", "ctx", "inc", "flags", "push_cycles", "per_write", "write_cycles",
                 "full_cycles", "words", "f_words", "extents")

    def __init__(self, pe, ins: Instr, engine):
        self.ins = ins
        self.engine = engine
        self.vals: dict = {}
        self.regs: list = []           # (field, register file "x"/"f", register number)
        self.lists: list = []          # (field, XList value): registers and immediates
        self.reads: list = []          # (field, tile, cb, is pop) for pop and keep, in declaration order
        self.writes: list = []         # (field, tile, cb, is push) for push and acc
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
        self._operand_costs(pe)
        # where tiles' data extents are tracked (Version.extents): a box load sets them, a matmul reads
        # those of its operands, so that the report counts its useful work apart from the padding
        self.extents = "in" if type(ins) is DmaIn else "mm" if type(ins) is DpeMatmul else None

    def rebind(self, pe, engine) -> "IssuePlan":
        """This plan for another PE of the same launch (the same program and config): the decoded
        operands and costs shared, the engine and the tiles' CBs that PE's own. Decoding the fields
        of every command once per PE cost a 64-PE launch tens of milliseconds."""
        plan = object.__new__(IssuePlan)
        for name in IssuePlan.__slots__:
            setattr(plan, name, getattr(self, name))
        plan.engine = engine
        plan.cost = plan.skips_semantics = None        # (the engine fills them at the first issue)
        cbs = pe.cbs
        plan.reads = [(name, t, cbs.get(t.cb), pop) for name, t, _, pop in self.reads]
        plan.writes = [(name, t, cbs.get(t.cb), push) for name, t, _, push in self.writes]
        return plan

    def _operand_costs(self, pe) -> None:
        """The issue's cost without a context, and what a context and an auto-increment need."""
        ins = self.ins
        defaults = {f.name: f.default for f in dataclasses.fields(ins)}
        regs = {name for name, _, _ in self.regs} | {name for name, _ in self.lists}
        self.flags = tuple((name, v) for name, v in self.vals.items()
                           if name not in regs and v != defaults.get(name, dataclasses.MISSING))
        scalar = pe.cfg.pe.scalar
        self.push_cycles = scalar.issue_cycles
        self.per_write = scalar.operand_words_per_write
        self.write_cycles = scalar.operand_write_cycles
        words = len(self.tiles) + len(self.regs) + sum(len(v) for _, v in self.lists) + (1 if self.flags else 0)
        self.full_cycles = self.push_cycles + math.ceil(words / self.per_write) * self.write_cycles
        # what a context compares and holds: (0, the word itself) or (1 / 2, its x / f register), in the
        # order tiles, registers, list elements, literal fields (one word for all of them)
        self.words = [(0, t) for _, t in self.tiles] + [(1 if file == "x" else 2, n) for _, file, n in self.regs]
        self.words += [(1, e.n) if isinstance(e, X) else (0, e) for _, v in self.lists for e in v]
        self.words.append((0, self.flags))
        self.f_words = any(src == 2 for src, _ in self.words)
        self.ctx = getattr(ins, "ctx", 0)
        if self.ctx and self.error is None and not 1 <= self.ctx <= pe.cfg.pe.command_contexts:
            self.error = ProgramError, (f"ctx={self.ctx}: the {self.engine.kind} engine has command contexts 1 to "
                                        f"{pe.cfg.pe.command_contexts} (pe.command_contexts)")
        self.inc = None          # an auto-increment's base register, element size and place among the words
        if getattr(ins, "inc", 0) != 0:
            tile = next(t for _, t in self.tiles)
            at = len(self.tiles) + next(i for i, (name, _, _) in enumerate(self.regs) if name == "base")
            self.inc = (self.regs[at - len(self.tiles)][2], itemsize(tile.dtype), at)

    def issue_cycles(self, core) -> float:
        """The control core's cycles to send this command's operands and push it."""
        if not self.ctx:
            return self.full_cycles
        x, f = core.x, core.f
        words = [v if src == 0 else x[v] if src == 1 else f[v] for src, v in self.words]
        contexts = self.engine.contexts
        held = contexts.get(self.ctx)
        if held is None or held[0] is not type(self.ins) or len(held[1]) != len(words):
            sent = len(words)
        elif self.f_words:      # (a float register may hold NaN: the same object, yet a word to send)
            sent = sum((src == 2 or a is not b) and a != b for (src, _), a, b in zip(self.words, words, held[1]))
        else:                   # (tiles, flags and most registers are the very objects held: no compares)
            sent = 0
            for a, b in zip(words, held[1]):
                if a is not b and a != b:
                    sent += 1
        if self.inc is not None:           # the CP advances the address it holds, as the core its register
            n, scale, at = self.inc
            words[at] = wrap(x[n] + self._inc_bytes(core, scale))
        contexts[self.ctx] = (type(self.ins), words)
        return self.push_cycles + math.ceil(sent / self.per_write) * self.write_cycles

    def _inc_bytes(self, core, scale: int) -> int:
        inc = self.ins.inc
        return (core.x[inc.n] if isinstance(inc, X) else inc) * scale

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
        if t.mode in ("pop", "keep"):
            self.reads.append((name, t, cb, t.mode == "pop"))
        else:
            self.writes.append((name, t, cb, t.mode == "push"))

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
        if self.inc is not None:           # auto-increment: the base register moves on once read
            n, scale, _ = self.inc
            if n:
                core.x[n] = wrap(core.x[n] + self._inc_bytes(core, scale))
        engine = self.engine
        in_order = engine.in_order
        done, deps, addr = cmd.done, cmd.deps, cmd.addr
        pops = None
        for name, t, cb, pop in self.reads:
            slot = cb.rd + t.offset
            if t.offset >= cb.slots:
                _beyond(cmd, name, t, cb)
            v = cb.versions.get(slot) or cb.version(slot)
            if not (in_order and v.engine is engine):
                deps.append((v.event, ("data", cb.id, slot, _kind(v.engine))))
            v.readers.append((done, engine))
            if pop:
                if pops is None:
                    pops = [(cb, slot)]
                else:
                    pops.append((cb, slot))
            addr[name] = cb.base + (slot % cb.slots) * cb.slot_bytes      # (cb.address, written out)
        if self.extents == "mm":
            vals["extents"] = tuple(cb.version(cb.rd + t.offset).extents for _, t, cb, _ in self.reads[:2])
        for name, t, cb, push in self.writes:
            addr[name] = _write(cmd, t, cb, engine, push)
        if self.extents == "in" and (vals["valid"] or vals["skip"]):
            _, t, cb, push = self.writes[0]
            cb.version(cb.wr - 1 if push else cb.rd + t.offset).extents = _box_extents(t.shape, vals)
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


def _beyond(cmd, name, t: Tile, cb) -> None:
    raise SanitizerError(f"{cmd.where()}: tile {name} = {t} reads {t.offset} slots past the read pointer of "
                         f"CB {cb.id} ({cb.name}), which has {cb.slots} slots: it could never be written")


def _write(cmd, t: Tile, cb, engine, push: bool) -> int:
    """Resolve a tile written (pushed, or updated in place): its dependencies; returns its address."""
    if push:
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
        done = cmd.done
        for ev, eng in old.readers:      # write after read: earlier readers finish first
            if ev is not done and not (in_order and eng is engine):
                cmd.deps.append((ev, ("readers", cb.id, slot)))
        cmd.writes.append((cb, new.event, "acc"))
    return cb.address(slot)


def _box_extents(shape, vals) -> tuple:
    """How many indices of each dimension of a box load hold data: skip[k] <= i_k < valid[k]."""
    valid, skip = vals["valid"] or shape, vals["skip"] or (0,) * len(shape)
    return tuple(max(0, min(int(v), n) - max(int(s), 0)) for v, s, n in zip(valid, skip, shape))


def _kind(engine) -> str | None:
    """The kind of engine that writes a slot version ("dma", "se", ...), for stall reports."""
    return getattr(engine, "kind", None)


def _pop(cmd, pops) -> None:
    if len(pops) == 1 and pops[0][1] == pops[0][0].rd:     # one pop of the oldest slot (most commands)
        cb, slot = pops[0]
        cb.check_pop(cmd.where)
        cb.pop_issued(slot)
        cb.rd += 1
        return
    by_cb: dict = {}
    for cb, slot in pops:
        by_cb.setdefault(cb, []).append(slot)
    for cb, slots in by_cb.items():
        if sorted(slots) != list(range(cb.rd, cb.rd + len(slots))):
            raise SanitizerError(f"{cmd.where()}: pops of CB {cb.id} ({cb.name}) must release its oldest slots "
                                 f"{list(range(cb.rd, cb.rd + len(slots)))}, not {sorted(slots)}")
        cb.check_pop(cmd.where, len(slots))
        for s in sorted(slots):
            cb.pop_issued(s)
        cb.rd += len(slots)
