"""Bufferize: give every block value a place in the local store, as a slot of a circular buffer.

Each `Storage` becomes one CB. A value lives in a storage with a tile dtype and shape (`TileLoc`),
following the `engine` map-engines gave its op:
- most ops produce a fresh storage (their engine pushes a slot);
- a "view" shows its source's storage (another shape, the smaller tile the SE broadcasts, or
  transposed for the DPE); a "uniform" block has no storage (its readers take the scalar), and a
  constant or splat the SE fills has one;
- an element-wise op whose input dies there writes its result in place over that input (`acc`),
  which is also how loop-carried accumulators stay in one slot across iterations;
- a for loop's carried block that each iteration makes afresh and only yields (a block computed one
  iteration ahead: software pipelining) rotates through two slots of its storage: the new value is
  pushed into the next slot and the old one popped by its last reader in the body, so no copy is
  made at the yield (`min_slots = 2` on its declaration).
Each storage is popped by its last reader in the block that defines it, or by a `cb.pop` after
the loop or `if` that reads it last. The plan is written into the IR (`analysis/plan.py` says how: storage
declarations, tiles, in-place marks, pops), where allocate-ls and codegen read it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ...ir import Op
from ...ir.core import Block, Operation, Value
from .. import dialect as mtia
from ..analysis.plan import (
    Plan,
    Storage,
    TileLoc,
    Uniform,
    dtype_of,
    nbytes,
    reads_tiles,
    tile_shape,
    wants_register,
)
from ..target import NARROWED_BY_WRITER, TILE_ON_SCALARS, VIEW_OPS, WIDE_ONLY, WIDENED_BY_READERS, is_elementwise_block
from .util import error_at


@dataclass
class Buffer(Storage):
    """A storage while it is planned: the block that owns it, the op that makes it, its values."""
    home: Block | None = None
    defined_by: Operation | None = None
    values: list = field(default_factory=list)
    temp: bool = False              # a scratch slot one op pushes and pops itself
    min_slots: int = 1              # a rotating carried storage needs two: the old value and the new


@dataclass(frozen=True)
class Bufferize:
    rotate: bool = True             # rotate carried tiles made afresh each iteration (else copy them)
    name: ClassVar[str] = "bufferize"

    def run(self, module) -> None:
        for func in module.functions:
            plan = Plan()
            _own_constant_inits(func)
            planner = _Planner(plan, self.rotate)
            planner.block(func.body, 0)
            _deaths(plan, planner.rotations)
            _write(func, plan)


def _own_constant_inits(func: Operation) -> None:
    """A block constant (`tl.zeros`, `tl.full`) that starts a loop's carried block and is read elsewhere
    too gets a copy of its own just before that loop. The loop then takes the copy's tile as its
    carried storage, where sharing one constant (as common subexpression elimination leaves three
    accumulators' `tl.zeros`) would keep the constant's tile from its first reader to its last and
    copy it into each loop: one SE fill each instead of a copy each, and the tile free between."""
    sites = []                                  # (loop, operand index, its first init's index)
    for loop in [op for op in func.walk() if op.name in (Op.FOR, Op.WHILE)]:
        first = len(loop.operands) - len(loop.inits)
        for i in range(first, len(loop.operands)):
            init = loop.operands[i]
            const = init.owner
            if isinstance(const, Operation) and const.name in (Op.CONSTANT, Op.SPLAT) and \
                    init.type.is_block() and len(init.uses) > 1:
                sites.append((loop, i, first))
    for loop, i, first in sites:
        init = loop.operands[i]
        const = init.owner
        copy = const.clone()
        copy.results[0].name_hint = loop.results[i - first].name_hint or init.name_hint   # the tile's name
        loop.parent.insert_before(loop, copy)
        loop.set_operand(i, copy.results[0])
        if not init.uses:
            const.erase()


def _write(func: Operation, plan: Plan) -> None:
    """The plan into the IR (analysis/plan.py says how it reads): storage declarations, then the ops' tiles,
    in-place marks, pops, scratch slots and carried storages."""
    for st in reversed(plan.storages):
        attrs = {"id": st.id, "name": st.name, "bytes": st.nbytes, "producer": st.producer, "depth": st.loop_depth}
        if st.line is not None:
            attrs["line"] = st.line
        if st.min_slots > 1:
            attrs["min_slots"] = st.min_slots
        stages = _loop_stages(st.home)
        if stages is not None:
            attrs["stages"] = stages
        func.body.insert(0, Operation(mtia.CB, attrs=attrs, loc=st.defined_by.loc if st.defined_by else None))
    for op in func.walk():
        if op.name not in (Op.FOR, Op.WHILE):         # loop results are their carried storages
            tiles = [_tile_attr(plan.loc.get(r)) for r in op.results]
            if any(t is not None for t in tiles):
                op.attrs["tiles"] = tiles
        if op in plan.inplace:
            op.attrs["inplace"] = True
        for key, table in (("pops", plan.pops), ("pop_after", plan.pop_after), ("temps", plan.temps)):
            if op in table:
                op.attrs[key] = list(table[op])
        widened = [plan.widen.get(r) for r in op.results]
        if any(sid is not None for sid in widened):
            op.attrs["widen"] = widened
        if op in plan.carried:
            n = len(op.inits)
            op.attrs["carried"] = [plan.carried[op].get(j) for j in range(n)]


def _loop_stages(blk: Block | None) -> int | None:
    """The `num_stages` hint of the innermost loop around a block (`tl.range(..., num_stages=n)`)."""
    while blk is not None and blk.parent is not None:
        loop = blk.parent.parent
        if loop is None:
            return None
        if loop.attrs.get("tt.num_stages"):
            return int(loop.attrs["tt.num_stages"])
        blk = loop.parent
    return None


def _tile_attr(loc) -> dict | None:
    if not isinstance(loc, TileLoc):
        return None
    t = {"cb": loc.sid, "dtype": loc.dtype, "shape": list(loc.shape)}
    if loc.trans:
        t["trans"] = True
    return t


class _Planner:
    def __init__(self, plan: Plan, rotate: bool = True):
        self.plan = plan
        self.rotate_carried = rotate
        self.rotating: dict = {}        # a loop's yielded value -> (body, sid of the carried storage it rotates into)
        self.rotated: set = set()       # values living in a rotating storage's next slot
        self.rotations: list = []       # (loop body, sid, the value pushed each iteration)

    # ---- storages ---------------------------------------------------------------------------
    def new_storage(self, v: Value, home: Block, depth: int, producer: str) -> TileLoc:
        op = v.owner if isinstance(v.owner, Operation) else None
        # a result written narrow (a folded cast, map_engines' `mtia.writes`) is stored in that type
        dtype = (op.attrs.get("mtia.writes") if op is not None else None) or dtype_of(v.type)
        shape = tile_shape(v.type)
        if v in self.rotating:                  # pushed into the next slot of the loop's carried storage
            body, sid = self.rotating.pop(v)
            loc = TileLoc(sid, dtype, shape)
            self.map(v, loc)
            self.rotated.add(v)
            self.plan.storages[sid].min_slots = 2
            self.rotations.append((body, sid, v))
            return loc
        st = Buffer(len(self.plan.storages), v.name_hint or _default_name(op), nbytes(dtype, shape), producer, depth,
                    op.loc.line if op is not None and op.loc else None, home=home, defined_by=op)
        self.plan.storages.append(st)
        loc = TileLoc(st.id, dtype, shape)
        self.map(v, loc)
        return loc

    def map(self, v: Value, loc) -> None:
        self.plan.loc[v] = loc
        if isinstance(loc, TileLoc):
            st = self.plan.storages[loc.sid]
            st.values.append(v)
            st.nbytes = max(st.nbytes, nbytes(loc.dtype, loc.shape))

    # ---- walking ----------------------------------------------------------------------------
    def block(self, blk: Block, depth: int) -> None:
        for op in list(blk.ops):
            self.op(op, blk, depth)

    def op(self, op: Operation, blk: Block, depth: int) -> None:
        name = op.name
        plan = self.plan
        if name == Op.FOR:
            self.loop(op, blk, depth)
            return
        if name == Op.IF:
            self.if_(op, blk, depth)
            return
        if name == Op.WHILE:
            self.while_(op, blk, depth)
            return
        if name == Op.RE_REDUCE:                 # the result, and two slots the neighbours' sends fill
            r = op.results[0]
            loc = self.new_storage(r, blk, depth, "re")
            plan.temps[op] = [self.temp_storage(op, blk, depth, loc.dtype, loc.shape, nm, "re")
                              for nm in ("re_partial", "re_total")]
            self.widen_if_fetched(r, blk, depth)
            return
        if self.needs_temp(op, blk, depth) or name == Op.YIELD or not op.results:
            return
        res = op.results
        engine = op.attrs.get("engine")
        if not any(r.type.is_block() for r in res) and name not in TILE_ON_SCALARS:
            if engine == "se":                           # scalar math the core cannot do: a one-element SE tile
                self.new_storage(res[0], blk, depth, "se")
                self.widen_if_fetched(res[0], blk, depth)
            elif name == mtia.TO_SCALAR:
                self.widen(res[0], blk, depth)
            return                                       # scalar code
        if engine == "uniform":
            plan.loc[res[0]] = Uniform(op.attrs["value"] if name == Op.CONSTANT else op.src)
            return
        if engine == "view":
            self.view(op)
            return
        if name in (Op.CONSTANT, Op.SPLAT) and engine == "se":     # a uniform block some reader needs whole
            self.new_storage(res[0], blk, depth, "se")
            return
        if engine in ("se", "rvv") and is_elementwise_block(op):
            self.elementwise(op, blk, depth)
            return
        if name == Op.DOT and engine == "dpe" and self.dot_in_place(op):
            return
        for r in res:
            if len(res) > 1 and not r.uses:
                continue                               # e.g. argmax's values nobody reads: not computed
            if r.type.is_block() or name in TILE_ON_SCALARS:
                self.new_storage(r, blk, depth, engine or "mlu")
                self.widen_if_fetched(r, blk, depth)

    def widen_if_fetched(self, v: Value, blk: Block, depth: int) -> None:
        if wants_register(v):
            self.widen(v, blk, depth)

    def widen(self, v: Value, blk: Block, depth: int) -> None:
        """A f16/bf16 value read into a register (which holds floats as f32) gets a one-element f32
        slot: the SE widens the value into it and the control core loads that."""
        if dtype_of(v.type) in WIDE_ONLY:
            self.plan.widen[v] = self.temp_storage(v.owner, blk, depth, "f32", (1,), "widen_tmp", "se")

    def temp_storage(self, op: Operation, blk: Block, depth: int, dtype: str, shape, name: str,
                     producer: str) -> int:
        st = Buffer(len(self.plan.storages), name, nbytes(dtype, shape), producer, depth,
                    op.loc.line if op.loc else None, home=blk, defined_by=op, temp=True)
        self.plan.storages.append(st)
        return st.id

    def needs_temp(self, op: Operation, blk: Block, depth: int) -> bool:
        """Scalar work the control core cannot do alone gets a one-element scratch slot: asserting
        a block condition, and scalar loads and stores of f16, bf16 and f64 (converted by the SE)."""
        name = op.name
        if name == Op.ASSERT and op.cond.type.is_block():
            dtype, shape = "i1", (1,)
        elif name == Op.LOAD and not op.ptr.type.is_block() and dtype_of(op.results[0].type) in WIDE_ONLY:
            dtype, shape = dtype_of(op.results[0].type), (1,)     # the DMA's element; `widen` converts it
            self.widen(op.results[0], blk, depth)
        elif name == Op.STORE and not op.ptr.type.is_block() and dtype_of(op.value.type) in WIDE_ONLY:
            dtype, shape = "f32", (1,)
        else:
            return False
        self.plan.temps[op] = [self.temp_storage(op, blk, depth, dtype, shape, f"{name.split('.')[-1]}_tmp", "se")]
        return True

    def view(self, op: Operation) -> None:
        """The result shows the source's bytes (map-engines decided it is a view): in another shape
        (expand_dims, reshape), as the smaller tile the SE broadcasts (broadcast, splat of a 0-d
        tile), transposed for the DPE (trans), or in its narrow type for SE readers that widen it as
        they compute (a folded cast)."""
        src = self.plan.loc[_view_source(op)]
        if op.name in VIEW_OPS:
            loc = TileLoc(src.sid, src.dtype, tile_shape(op.result.type))
        elif op.name == Op.TRANS:
            loc = TileLoc(src.sid, src.dtype, src.shape, trans=True)
        else:
            loc = TileLoc(src.sid, src.dtype, src.shape)
        self.map(op.result, loc)

    def elementwise(self, op: Operation, blk: Block, depth: int) -> None:
        r = op.results[0]
        dtype, shape = op.attrs.get("mtia.writes") or dtype_of(r.type), tile_shape(r.type)
        if op.attrs["engine"] == "rvv":          # the vector core writes a fresh slot, never in place
            self.new_storage(r, blk, depth, "rvv")
            return
        for v in op.operands:
            loc = self.plan.loc.get(v)
            # in place when the input dies here; a narrowing result (f32 -> f16) may share it too,
            # since element i is written no later than element i is read
            if isinstance(loc, TileLoc) and not loc.trans and loc.shape == shape and \
                    nbytes(dtype, shape) <= nbytes(loc.dtype, loc.shape) and self.dies_at(loc.sid, op):
                self.plan.inplace[op] = loc.sid
                self.map(r, TileLoc(loc.sid, dtype, shape))
                return
        self.new_storage(r, blk, depth, "se")

    def dot_in_place(self, op: Operation) -> bool:
        acc = op.c
        loc = self.plan.loc.get(acc)
        r = op.results[0]
        if isinstance(loc, TileLoc) and not loc.trans and loc.shape == tile_shape(r.type) and \
                loc.dtype == dtype_of(r.type) and self.dies_at(loc.sid, op):
            self.plan.inplace[op] = loc.sid
            self.map(r, TileLoc(loc.sid, loc.dtype, loc.shape))
            return True
        return False

    def dies_at(self, sid: int, op: Operation) -> bool:
        """Whether `op` may overwrite storage `sid` in place: it reads a value of the storage defined
        in its own block, and nothing reads the storage after it (a loop's entry use of its init
        value comes before the body; a value from outside a loop is read again every iteration, so
        it is never overwritten inside one)."""
        blk = op.parent
        idx = blk.ops.index(op)
        direct = False
        for v in self.plan.storages[sid].values:
            if v in self.rotated:
                continue                    # it lives in the storage's other slot
            local = _defined_in(self.viewed(v, sid), blk)
            for u in v.uses:
                if u.op is op:
                    direct = direct or local
                    continue
                if _is_ancestor(u.op, op):
                    continue
                a = _ancestor_in(u.op, blk)
                if a is None or a is op or blk.ops.index(a) > idx:
                    return False            # read later, or inside op's own regions while it runs
        return direct

    def viewed(self, v: Value, sid: int) -> Value:
        """The value whose bytes view v shows (v itself when it is no view): a view made inside a
        loop of a tile from outside it must not let the loop overwrite that tile."""
        while isinstance(v.owner, Operation) and (v.owner.name in (*VIEW_OPS, Op.BROADCAST, Op.TRANS) or
                                                  _folded_cast(v.owner)):
            src = _view_source(v.owner)
            loc = self.plan.loc.get(src)
            if not (isinstance(loc, TileLoc) and loc.sid == sid):
                break
            v = src
        return v

    # ---- control flow -----------------------------------------------------------------------
    def loop(self, op: Operation, blk: Block, depth: int) -> None:
        body = op.body
        carried = self.carry(op, op.inits, body.args[1:], blk, depth)
        if self.rotate_carried:
            self.rotate(body, carried)
        self.block(body, depth + 1)
        for j, sid in carried.items():
            self.map(op.results[j], TileLoc(sid, dtype_of(op.results[j].type), tile_shape(op.results[j].type)))

    def rotate(self, body: Block, carried: dict) -> None:
        """Carried blocks a for loop can rotate (see the module docstring): the yielded value is
        made by an op of the body that writes a fresh tile and is read by nothing else, and the old
        value is read in the body but not yielded. Whether the op writes a fresh tile is known when
        the walk reaches it (`new_storage`)."""
        y = body.terminator
        for j, sid in carried.items():
            v, arg = y.values[j], body.args[1 + j]
            owner = v.owner
            if isinstance(owner, Operation) and owner.parent is body and len(v.uses) == 1 and arg.uses and \
                    tile_shape(v.type) == tile_shape(arg.type) and dtype_of(v.type) == dtype_of(arg.type) and \
                    v not in y.values[:j] + y.values[j + 1:] and all(u.op is not y for u in arg.uses):
                self.rotating[v] = (body, sid)

    def carry(self, op: Operation, inits, args, blk: Block, depth: int) -> dict:
        """Storages for a loop's block-typed carried values (the init's own when it dies there)."""
        plan = self.plan
        carried = {}
        for j, (init, arg) in enumerate(zip(inits, args)):
            if not arg.type.is_block():
                continue
            loc = plan.loc.get(init)
            if isinstance(loc, TileLoc) and not loc.trans and loc.shape == tile_shape(arg.type) and \
                    loc.dtype == dtype_of(arg.type) and self.dies_at(loc.sid, op) and \
                    sum(1 for u in init.uses if u.op is op) == 1:
                sid = loc.sid                         # the init's storage becomes the accumulator
            else:
                sid = self.new_storage(arg, blk, depth, "se").sid
                plan.storages[sid].values.remove(arg)
                plan.storages[sid].defined_by = op
            carried[j] = sid
            self.map(arg, TileLoc(sid, dtype_of(arg.type), tile_shape(arg.type)))
        plan.carried[op] = carried
        return carried

    def while_(self, op: Operation, blk: Block, depth: int) -> None:
        plan = self.plan
        before, after = op.regions[0].block, op.regions[1].block
        self.carry(op, op.inits, before.args, blk, depth)
        self.block(before, depth + 1)
        cond = before.terminator
        for k, f in enumerate(cond.values):
            if not f.type.is_block():
                continue
            loc = plan.loc.get(f)
            home = plan.storages[loc.sid].home if isinstance(loc, TileLoc) else None
            if not isinstance(loc, TileLoc) or home is before:
                raise error_at(op, "this while loop forwards a block computed in its condition to its body; the "
                                   "MTIA backend forwards only the loop's carried blocks")
            plan.loc[after.args[k]] = loc
            plan.storages[loc.sid].values.append(after.args[k])
            plan.loc[op.results[k]] = loc
        self.block(after, depth + 1)
        for r in op.results:
            if isinstance(plan.loc.get(r), TileLoc):
                plan.storages[plan.loc[r].sid].values.append(r)

    def if_(self, op: Operation, blk: Block, depth: int) -> None:
        for r in op.results:
            if r.type.is_block():
                self.new_storage(r, blk, depth, "se")     # each branch pushes what it yields
        for region in op.regions:
            self.block(region.block, depth)


def _folded_cast(op: Operation) -> bool:
    """A cast map-engines made a view: its SE readers convert the narrow tile themselves, or its
    SE writer wrote the narrow tile."""
    return op.name in (*WIDENED_BY_READERS, *NARROWED_BY_WRITER) and op.attrs.get("engine") == "view"


def _view_source(op: Operation) -> Value:
    return op.x if _folded_cast(op) else op.src


def _defined_in(v: Value, blk: Block) -> bool:
    owner = v.owner
    return owner is blk or (isinstance(owner, Operation) and owner.parent is blk)


def _is_ancestor(a: Operation, op: Operation) -> bool:
    op = op.parent_op
    while op is not None:
        if op is a:
            return True
        op = op.parent_op
    return False


def _ancestor_in(op: Operation, blk: Block) -> Operation | None:
    while op is not None and op.parent is not blk:
        op = op.parent_op
    return op


def _default_name(op) -> str:
    if op is None:
        return "arg"
    return op.name.split(".")[-1]


def _tile_reader(u) -> bool:
    """Whether a use reads the value's tile: scalar code reading a 0-d value from its register does not."""
    v = u.op.operands[u.index]
    return not (wants_register(v) and not reads_tiles(u.op) and u.op.name not in (Op.FOR, Op.IF, Op.WHILE, Op.YIELD))


def _deaths(plan: Plan, rotations) -> None:
    """Where each storage is popped: by its last reader in its home block, or after that op; a
    rotating storage also by the last reader of its old value in the loop body, each iteration."""
    for body, sid, new in rotations:
        old = [v for v in plan.storages[sid].values if v is not new and _defined_in(v, body)]
        _pop_at_last_read(plan, sid, old, body, new.owner)
    for st in plan.storages:
        if not st.temp:
            _pop_at_last_read(plan, st.id, st.values, st.home, st.defined_by)


def _pop_at_last_read(plan: Plan, sid: int, values, blk: Block, made_by: Operation | None) -> None:
    """Pop storage `sid` at the last op of `blk` that reads one of `values` (or after it, when the
    read is inside it or it updates the storage in place); never read: right after `made_by`."""
    last, last_i, direct = None, -1, False
    for v in values:
        for u in v.uses:
            if not _tile_reader(u):
                continue
            a = _ancestor_in(u.op, blk)
            if a is None:
                continue
            i = blk.ops.index(a)
            if i > last_i:
                last, last_i, direct = a, i, a is u.op
            elif i == last_i and a is u.op:
                direct = True
    if last is None:                                  # never read: pop right after it is made
        anchor = made_by
        if anchor is not None and anchor.parent is not blk:
            anchor = _ancestor_in(anchor, blk)
        if anchor is not None:
            plan.pop_after.setdefault(anchor, []).append(sid)
        return
    if direct and last.name not in (Op.FOR, Op.IF, Op.WHILE) and plan.inplace.get(last) != sid:
        plan.pops.setdefault(last, []).append(sid)
    else:
        plan.pop_after.setdefault(last, []).append(sid)
