"""Broadcast reads: which box loads the programs placed together read alike, so that one read serves
them all (`dma.in ... bcast=N`, isa/dma.py).

A broadcast group is N consecutive PEs of a grid row (N divides the columns), or of a grid column
(`bcast_col=1`, N divides the rows: ISCA'25 broadcasts weights across PE columns). A load takes the
largest row group it is read alike by; one read alike by no row group, the largest column group (a
matmul's B tiles are shared along a grid row, its A tiles down a column). The k-th broadcast read
of every member is one transfer, which starts when the last member has issued it: the members run in
lockstep at each such read (within their buffers' depth), as the hardware's multicast needs every
receiver's slot ready. So a load may broadcast only where the launch guarantees, for every group,
that its members run the same number of programs and that the j-th programs of the members issue
the load the same number of times with the same descriptor each time. Which programs run together
depends on the grid, the arguments and the placement (`pe_mapping`), so this is decided at launch:

- the scalar code outside loops (program ids, arguments, address arithmetic) is evaluated for every
  program at once (numpy arrays over program indices, with the interpreter's definition of each op);
- inside loops a value is the same across a group when everything it is computed from is: a loop's
  counter when its bounds are, a loop-carried value when its start and every update are (a greatest
  fixpoint over the carried values);
- a load broadcasts to groups of N when every scalar of its descriptor is the same across each
  group, every loop and branch around it runs alike across the group, and the group structure holds
  (the largest such N is taken);
- and only when every loop and branch of the kernel runs alike across the groups: members doing
  unequal work would wait for the slowest at each broadcast read (this is a choice of speed, not of
  correctness: causal attention under zigzag placement was 1.16x slower with its K tiles broadcast).

Kernels that may synchronise programs through memory get no broadcasts (a member spinning on a flag
another member sets would never issue its read): none in a kernel with atomics, cross-PE reductions,
or a load of an array the kernel also writes; and the broadcast array itself is read-only.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from simulator.launch import map_programs

from ...interpreter.ops import EVAL, np_type
from ...ir.core import BlockArgument
from ...ir.ops import Op
from .. import dialect as mtia

# scalar ops computed the same way on the same operands in every program
_PURE_SCALAR = frozenset(n.value if hasattr(n, "value") else n for n in (
    Op.CONSTANT, Op.ADDI, Op.SUBI, Op.MULI, Op.DIVSI, Op.DIVUI, Op.REMSI, Op.REMUI, Op.ANDI, Op.ORI, Op.XORI,
    Op.SHLI, Op.SHRSI, Op.SHRUI, Op.MAXSI, Op.MINSI, Op.MAXUI, Op.MINUI, Op.ABSI, Op.CMPI, Op.SELECT,
    Op.EXTSI, Op.EXTUI, Op.TRUNCI, Op.INT_TO_PTR, Op.PTR_TO_INT, Op.BITCAST, Op.PTR_BITCAST, Op.ADDPTR,
    Op.ADDF, Op.SUBF, Op.MULF, Op.DIVF, Op.NEGF, Op.SITOFP, Op.UITOFP, Op.FPTOSI, Op.FPTOUI, Op.EXTF, Op.TRUNCF,
    Op.CMPF, Op.MAXNUMF, Op.MINNUMF, Op.MAXIMUMF, Op.MINIMUMF))
# ops whose value differs by program: evaluated per program outside loops, never alike inside them
_PER_PROGRAM = frozenset(n.value for n in (Op.GET_PROGRAM_ID, Op.GET_NUM_PROGRAMS, Op.GET_PE_ID))
# ops through which programs can wait on each other
_SYNCHRONISING = frozenset((mtia.ATOMIC, mtia.ATOMIC_BOX, mtia.CAS, Op.ATOMIC_RMW.value, Op.ATOMIC_CAS.value, Op.RE_REDUCE.value))
_WRITES = frozenset((mtia.STORE_BOX, mtia.SCATTER))
_READS = frozenset((mtia.LOAD_BOX, mtia.GATHER, mtia.LOAD_ROWS))
# Planning holds each scalar of the kernel's top level for every program at once (8 bytes a program per
# value, and the placement's program lists): past this many programs a launch plans nothing and takes no
# broadcast reads (a choice of speed only), so its memory does not grow with the grid (2^31 programs: 16 GiB
# an array). Windows take the same bound (window_bounds.py).
PLAN_MAX_PROGRAMS = 1 << 20


def box_loads(func) -> list:
    """The function's box loads in walk order (a plan names them by their index in this list)."""
    return [op for op in func.walk() if op.name == mtia.LOAD_BOX]


class Group(NamedTuple):
    """A load's broadcast group: `size` PEs along a grid row, or down a grid column when `column`."""
    size: int
    column: bool = False


def plan(func, grid: tuple, args: list, buffers: list, mapping: str, num_pes: int, cols: int) -> dict[int, Group]:
    """{index in box_loads(func): its Group} for each load that may broadcast in this launch.
    `args`: one value per function argument (pointers as byte addresses); `buffers`: the buffer each
    argument points into (None for scalars), to see a read-only array written through another one."""
    loads = _read_only_loads(func, buffers)
    if not loads:
        return {}
    n = int(grid[0]) * int(grid[1]) * int(grid[2])
    if n > PLAN_MAX_PROGRAMS:
        return {}
    values = evaluate_outside_loops(func, grid, args, n, num_pes, mapping)
    rows = num_pes // cols
    out: dict[int, Group] = {}
    for column, span in ((False, cols), (True, rows)):          # row groups first: a load keeps its row group
        for size in sorted((d for d in range(2, span + 1) if span % d == 0), reverse=True):
            members = _groups(grid, num_pes, mapping, size, cols if column else 1)
            if members is None:
                continue
            alike = _Alike(func, values, members)
            if not _work_alike(func, alike):
                continue
            for i, load in loads.items():
                if i not in out and alike.load(load):
                    out[i] = Group(size, column)
    return out


def _work_alike(func, alike) -> bool:
    """Whether every loop and branch of the kernel runs alike across each group. A broadcast read makes
    its members wait for the last of them, so members doing unequal work between two broadcast reads
    (causal attention's rows, whose loops grow with the program id) would wait for the slowest at
    every one: the imbalance the placement spread out comes back as waiting."""
    return all(alike._control(op) for op in func.walk() if op.name in (Op.FOR.value, Op.IF.value, Op.WHILE.value))


# ---- which loads could broadcast at all -------------------------------------------------------------

def _read_only_loads(func, buffers: list) -> dict[int, object]:
    """The box loads of arrays nothing in the kernel writes, or none at all when the kernel may make
    programs wait on each other (atomics, cross-PE reductions, a load of an array it writes)."""
    ops = list(func.walk())
    if any(op.name in _SYNCHRONISING for op in ops):
        return {}
    written = [pointer_roots(op.operands[0]) for op in ops if op.name in _WRITES]
    read = [pointer_roots(op.operands[0]) for op in ops if op.name in _READS]
    if any(r is None for r in written + read):
        return {}
    written_buffers = {id(buffers[a.index]) for roots in written for a in roots}
    if any(id(buffers[a.index]) in written_buffers for roots in read for a in roots):
        return {}
    return dict(enumerate(box_loads(func)))


def pointer_roots(ptr) -> set | None:
    """The function arguments a pointer is derived from (None when it cannot be told)."""
    out, todo, seen = set(), [ptr], set()
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if isinstance(v, BlockArgument):
            owner = v.owner.parent_op if v.owner.parent is not None else None
            if owner is not None and owner.name == Op.FUNC.value:
                out.add(v)
            elif owner is not None and owner.name == Op.FOR.value and v.index > 0:
                todo += [owner.inits[v.index - 1], owner.body.terminator.operands[v.index - 1]]
            else:
                return None
        elif v.owner.name in (Op.ADDPTR.value, Op.PTR_BITCAST.value):
            todo.append(v.owner.operands[0])
        elif v.owner.name == Op.SELECT.value:
            todo += list(v.owner.operands[1:])
        else:
            return None
    return out


# ---- per-program values and groups ------------------------------------------------------------------

def evaluate_outside_loops(func, grid, args, n: int, num_pes: int, mapping: str) -> dict:
    """The scalar values of the function's top level, one entry per program (index order)."""
    from simulator.launch import pe_of
    index = np.arange(n, dtype=np.int64)
    gx, gy = int(grid[0]), int(grid[1])
    ctx = SimpleNamespace(pid=(index % gx, index // gx % gy, index // (gx * gy)), grid=grid,
                          pe_id=pe_of(index, n, num_pes, mapping))
    values = {}
    for a, v in zip(func.body.args, args):
        if not a.type.shape:
            values[a] = np.asarray(v, dtype=np_type(a.type))
    with np.errstate(all="ignore"):
        for op in func.body.ops:
            if op.regions or not op.results or any(r.type.shape for r in op.results):
                continue
            if op.name not in _PURE_SCALAR and op.name not in _PER_PROGRAM:
                continue
            if any(v not in values for v in op.operands):
                continue
            try:
                results = EVAL[op.name](ctx, op, [values[v] for v in op.operands])
            except Exception:         # (an op the vector form does not fit): its value stays unknown, not alike
                continue
            for r, v in zip(op.results, results):
                values[r] = np.asarray(v)
    return values


def _groups(grid, num_pes: int, mapping: str, size: int, step: int = 1) -> np.ndarray | None:
    """Rows of `size` program indices that run together on one broadcast group (the j-th program of
    each member), or None when some group's members run different numbers of programs. A group is
    `size` PEs `step` apart: 1 along a grid row, the grid's columns down a column."""
    per_pe = map_programs(grid, num_pes, mapping)
    rows = []
    for first in range(num_pes):
        if (first // step) % size:              # not the first member of its group
            continue
        members = [per_pe[first + j * step] for j in range(size)]
        if len({len(m) for m in members}) != 1:
            return None
        if len(members[0]):
            rows.append(np.stack(members, axis=1))
    return np.concatenate(rows) if rows else np.zeros((0, size), np.int64)


class _Alike:
    """Whether scalar values are the same across every group of programs that run together."""

    def __init__(self, func, values: dict, members: np.ndarray):
        self.values, self.members, self.func = values, members, func
        self.memo: dict = {}
        carried = [a for op in func.walk() if op.name == Op.FOR.value for a in op.body.args[1:]]
        self.assumed = set(carried)
        while True:                       # greatest fixpoint: drop carried values an update breaks
            self.memo = {}
            broken = {a for a in self.assumed if not self._carried_holds(a)}
            if not broken:
                break
            self.assumed -= broken

    def _carried_holds(self, arg) -> bool:
        loop = arg.owner.parent_op
        i = arg.index - 1
        return self._control(loop) and self.value(loop.inits[i]) and self.value(loop.body.terminator.operands[i])

    def load(self, load) -> bool:
        parent = load.parent_op
        while parent is not None and parent is not self.func:
            if not self._control(parent):
                return False
            parent = parent.parent_op
        return all(self.value(v) for v in load.operands)

    def _control(self, op) -> bool:
        """Whether the op runs alike (same trips, same branch) across each group."""
        if op.name == Op.FOR.value:
            return all(self.value(v) for v in (op.lower, op.upper, op.step))
        if op.name == Op.IF.value:
            return self.value(op.cond)
        return False

    def value(self, v) -> bool:
        hit = self.memo.get(v)
        if hit is None:
            hit = self.memo[v] = self._value(v)
        return hit

    def _value(self, v) -> bool:
        if v in self.values:
            x = self.values[v]
            if x.ndim == 0 or not self.members.size:
                return True
            seen = x[self.members]
            same = seen == seen[:, :1]
            if seen.dtype.kind == "f":
                same |= np.isnan(seen) & np.isnan(seen[:, :1])
            return bool(same.all())
        if v.type.shape:
            return False
        if isinstance(v, BlockArgument):
            owner = v.owner.parent_op
            if owner is None or owner.name != Op.FOR.value:
                return False
            return self._control(owner) if v.index == 0 else v in self.assumed
        op = v.owner
        if op.name == Op.FOR.value:
            return self._control(op) and op.body.args[v.index + 1] in self.assumed
        if op.name == Op.IF.value:
            return self.value(op.cond) and all(self.value(r.block.terminator.operands[v.index]) for r in op.regions)
        if op.name in _PURE_SCALAR and not op.regions:
            return all(self.value(x) for x in op.operands)
        return False
