"""The bufferize plan, written into the IR and read back from it.

Bufferize decides where every block value lives; it writes the decision into the function, so that
the printed IR after bufferize holds all that allocate-ls and codegen use (and any of them can run
on IR text):

- each storage (one circular buffer) is declared at the top of the function:
      mtia.cb {id = 0, name = "acc", bytes = 16384, producer = "se", depth = 1, line = 12}
  (`depth`: loops around its definition; `min_slots = 2` on a loop's rotating carried tile;
  allocate-ls adds `slots` and `base`);
- an op whose results live in storages lists their tiles, one entry per result (none: no tile):
      tiles = [{cb = 0, dtype = "f32", shape = [64, 64]}]      (a transposed view adds trans = true)
- `inplace = true`: the op overwrites its result's storage instead of pushing a slot;
- `pops = [1]`: the op's read of storage 1 is its last (the read pops the slot);
  `pop_after = [2]`: a cb.pop of storage 2 follows the op (a loop or `if` read it last);
- `temps = [3]`: scratch slots the op pushes and pops itself;
- `widen = [4]`: per result, the one-element f32 slot through which the SE widens a f16/bf16 value
  that scalar code reads (the control core holds floats as f32), or none;
- a loop's `carried = [0, none]`: the storage each block-typed iter_arg lives in.
What follows from these is not written: a loop copies an init or a yielded value into its carried
storage when the value lives elsewhere, an `if` pushes what its branches yield, an op whose engine
is "uniform" is its scalar, and a 0-d tile that scalar code reads is loaded into a register.
`read_plan(func)` gives codegen the plan as a `Plan`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from isa.types import itemsize

from ...ir import Op
from ...ir.core import Operation, Value
from .. import dialect as mtia
from ..target import NO_RESULT_DMA, scalar_on_se


@dataclass
class Storage:
    """One circular buffer: `nbytes` per slot, `slots` of them from `base` (set by allocate-ls)."""
    id: int
    name: str
    nbytes: int
    producer: str                   # the engine that fills it (tiles a DMA fills in loops run ahead)
    loop_depth: int
    line: int | None = None
    slots: int = 1
    base: int = 0
    decl: Operation | None = None   # its mtia.cb op (whose loc is the storage's defining op's)


@dataclass(frozen=True)
class TileLoc:
    """Where a value lives: storage `sid`, seen as a `dtype` tile of `shape`, maybe transposed."""
    sid: int
    dtype: str
    shape: tuple[int, ...]
    trans: bool = False


@dataclass(frozen=True)
class Uniform:
    """A block whose elements are all one scalar: a constant or a scalar SSA value."""
    value: object


@dataclass
class Plan:
    storages: list[Storage] = field(default_factory=list)
    loc: dict = field(default_factory=dict)            # Value -> TileLoc | Uniform
    inplace: dict = field(default_factory=dict)        # op -> sid it overwrites (its result's storage)
    fill_at_def: set = field(default_factory=set)      # uniform values materialised into a storage
    pops: dict = field(default_factory=dict)           # op -> [sid] the op pops (its last read)
    pop_after: dict = field(default_factory=dict)      # op -> [sid] popped by cb.pop after the op
    init_copies: dict = field(default_factory=dict)    # loop -> [(carried sid, init value)]
    yield_copies: dict = field(default_factory=dict)   # yield op -> [(target sid, value, mode)]
    carried: dict = field(default_factory=dict)        # loop -> {iter index: sid}
    fetch: set = field(default_factory=set)            # 0-d tile values also wanted in a register
    temps: dict = field(default_factory=dict)          # op -> [sid] of its scratch slots
    widen: dict = field(default_factory=dict)          # f16/bf16 value read into a register -> f32 slot


def dtype_of(t) -> str:
    s = t.scalar
    return "i64" if s.is_ptr() else s.ir


def nbytes(dtype: str, shape) -> int:
    n = itemsize(dtype)
    for d in shape:
        n *= d
    return n


def tile_shape(t) -> tuple[int, ...]:
    """A 0-d value kept in the local store is a one-element tile."""
    return tuple(t.shape) or (1,)


def reads_tiles(op: Operation) -> bool:
    """Whether the op reads its operands as tiles (scalar code reads a 0-d tile from a register)."""
    return bool(op.results and op.results[0].type.is_block()) or op.name in NO_RESULT_DMA or \
        scalar_on_se(op)


def wants_register(v: Value) -> bool:
    """A 0-d value in a tile that scalar code reads: the control core loads it once it is made."""
    return not v.type.is_block() and any(not reads_tiles(u.op) for u in v.uses)


# ---- reading the plan back ------------------------------------------------------------------------

def read_plan(func: Operation) -> Plan:
    plan = Plan()
    for op in func.body.ops:
        if op.name == mtia.CB:
            a = op.attrs
            plan.storages.append(Storage(a["id"], a["name"], a["bytes"], a["producer"], a["depth"], a.get("line"),
                                         a.get("slots", 1), a.get("base", 0), op))
    if [st.id for st in plan.storages] != list(range(len(plan.storages))):
        raise ValueError("the mtia.cb declarations must number the storages 0, 1, 2, ... in order")
    _read_block(func.body, plan)
    return plan


def _read_block(blk, plan: Plan) -> None:
    for op in blk.ops:
        _read_op(op, plan)


def _read_op(op: Operation, plan: Plan) -> None:
    a = op.attrs
    for r, t in zip(op.results, a.get("tiles", ())):
        if t is not None:
            plan.loc[r] = TileLoc(t["cb"], t["dtype"], tuple(t["shape"]), bool(t.get("trans", False)))
            if wants_register(r):
                plan.fetch.add(r)
    if a.get("engine") == "uniform":
        plan.loc[op.result] = Uniform(a["value"] if op.name == Op.CONSTANT else op.src)
    elif op.name in (Op.CONSTANT, Op.SPLAT) and a.get("engine") == "se" and op.results[0].type.is_block():
        plan.fill_at_def.add(op.result)
    if a.get("inplace"):
        plan.inplace[op] = a["tiles"][0]["cb"]
    for key, table in (("pops", plan.pops), ("pop_after", plan.pop_after), ("temps", plan.temps)):
        if key in a:
            table[op] = list(a[key])
    for r, sid in zip(op.results, a.get("widen", ())):
        if sid is not None:
            plan.widen[r] = sid
    if op.name == Op.FOR:
        _carried(op, op.inits, op.body.args[1:], plan)
        _read_block(op.body, plan)
        _yield_copies(op.body.terminator, plan.carried[op], plan)
        for j, sid in plan.carried[op].items():
            plan.loc[op.results[j]] = _whole(sid, op.results[j])
    elif op.name == Op.WHILE:
        before, after = op.regions[0].block, op.regions[1].block
        _carried(op, op.inits, before.args, plan)
        _read_block(before, plan)
        for k, v in enumerate(before.terminator.values):
            if v.type.is_block():
                plan.loc[after.args[k]] = plan.loc[op.results[k]] = plan.loc[v]
        _read_block(after, plan)
        _yield_copies(after.terminator, plan.carried[op], plan)
    elif op.name == Op.IF:
        targets = {j: t["cb"] for j, t in enumerate(a.get("tiles", ())) if t is not None}
        for region in op.regions:
            _read_block(region.block, plan)
            y = region.block.terminator
            plan.yield_copies[y] = [(sid, y.values[j], "push") for j, sid in targets.items()]


def _whole(sid: int, v: Value) -> TileLoc:
    return TileLoc(sid, dtype_of(v.type), tile_shape(v.type))


def _carried(op: Operation, inits, args, plan: Plan) -> None:
    """The loop's carried storages, and the inits that must be copied in (they live elsewhere)."""
    carried = {j: sid for j, sid in enumerate(op.attrs.get("carried", ())) if sid is not None}
    plan.carried[op] = carried
    plan.init_copies[op] = []
    for j, sid in carried.items():
        plan.loc[args[j]] = _whole(sid, args[j])
        loc = plan.loc.get(inits[j])
        if not (isinstance(loc, TileLoc) and loc.sid == sid):
            plan.init_copies[op].append((sid, inits[j]))


def _yield_copies(y: Operation, carried: dict, plan: Plan) -> None:
    """A yielded value not already in its carried storage (as a whole tile) is copied into it."""
    copies = []
    for j, sid in carried.items():
        v = y.values[j]
        loc = plan.loc.get(v)
        if not (isinstance(loc, TileLoc) and loc.sid == sid and loc.shape == tile_shape(v.type)):
            copies.append((sid, v, "acc"))
    plan.yield_copies[y] = copies
