"""Coalesce a matmul loop's K steps in pairs: per two steps, one box of [BM, 2BK], one of [2BK, BN] and
one DPE command over K = 2BK.

Triton's matmul tutorial and Inductor's mm template issue three commands per K step: two box loads
and a dpe.mm. Commands are what a control core pays to issue and what the simulator pays to model, so
a loop that loads A [BM, BK] and B [BK, BN] as boxes whose bases move on by exactly BK along K each
iteration, and accumulates `acc = tl.dot(a, b, acc)` (or `acc += tl.dot(a, b)`), becomes

    for k2 in range(lo, hi + step if lo < hi else hi, 2 * step):
        k = max(lo, k2 - step)                   # the body as written runs at k: steps 0, 1-2, 3-4, ...
        run = k2 - k + 1 (over step)             # the steps this iteration runs: 1, then 2
        used = min(run, the steps left)          # (1 also at the end of an even count)
        a = load_box(ptr_a, ..., K extent min(V_a(k), used * BK))      # [BM, 2BK]
        b = load_box(ptr_b, ..., K extent min(V_b(k), used * BK))      # [2BK, BN]
        acc = tl.dot(a, b, acc, used) {kslices = 2}
        ptr_a += run * step_a; ...

The DPE sums the two K halves one after the other, rounding between them, as two commands do
(isa/dpe.py `kslices`), and skips the second when `used` is 1: the numbers are those of the loop as
written, and so is the DPE's time. The first iteration runs one step so that a program's first
dpe.mm waits for one step's data, as in the loop as written; with a whole pair it waited for two, while
the program's other loads shared the DMA's bandwidth (1.7% more cycles on the tutorial). The loop keeps
num_stages // 2 + 1 slots per tile: as many steps of loads ahead as written, not more bytes in flight.

Masks along K stay right when the K extent V(k) a mask gives the box shrinks by exactly BK per step
(the tutorial's `offs_k < K - k * BLOCK_SIZE_K`, Inductor's `offs_k < K - k_idx * BLOCK_K`): the second
step's extent is then the doubled box's extent less BK, the same elements. An unmasked K reads BK per
step. Anything else is left as it is: another step of the extent, a mask that is no box, another op on
the tiles, a loop-carried value that is neither the accumulator nor a pointer or offset moving by a
loop-invariant step, a pointer read after the loop, a dot the DPE does not run, a step that is not a
positive constant; and small tiles (`min_step_bytes`: half as many loads in flight would expose the
DMA's latency, pipeline.py). Whether the doubled tiles fit the local store is known only once the
buffers are planned: the pipeline compiles the loop as written when they do not at full depth.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from ...ir import Builder, Op
from ...ir.core import Operation, Value, is_inside
from ...ir.ops import OP_DEFS
from ...ir.types import BlockType, i1, i64
from .. import dialect as mtia
from ..analysis.affine import ZERO, Poly
from ..target import unit_of
from .util import constant_value

SLICES = 2          # K steps per coalesced step


@dataclass(frozen=True)
class CoalesceK:
    dpe_dtypes: tuple[str, ...] = ()     # what the config's DPE multiplies (another dot is not a DPE command)
    num_stages: int = 3                  # the launch's (a loop's own tl.range num_stages wins)
    min_step_bytes: int = 0              # a K step's A and B tiles at least this (see pipeline.py)
    name: ClassVar[str] = "coalesce-k"

    def run(self, module) -> None:
        for func in module.functions:
            done = 0
            for loop in [op for op in func.walk() if op.name == Op.FOR]:
                plan = _Match(loop, self.dpe_dtypes).plan()
                if plan is not None and _step_bytes(plan[0]) >= self.min_step_bytes:
                    _rewrite(loop, int(loop.attrs.get("tt.num_stages") or self.num_stages), *plan)
                    done += 1
            if done:
                func.attrs["mtia.coalesced_k"] = done


def _step_bytes(dot: Operation) -> int:
    """The bytes of one K step's A and B tiles."""
    return sum(v.type.scalar.itemsize * math.prod(v.type.shape) for v in (dot.a, dot.b))


def may_apply(module) -> bool:
    """Whether any loop holds a tl.dot (the pipeline keeps a copy of the module only then)."""
    return any(op.name == Op.DOT and op.parent_op is not None and op.parent_op.name == Op.FOR
               for op in module.walk())


class _Match:
    """Checks one loop against the shape above; `plan()` is what _rewrite needs, or None."""

    def __init__(self, loop: Operation, dpe_dtypes: tuple[str, ...]):
        self.loop, self.body, self.dpe_dtypes = loop, loop.body, dpe_dtypes
        self.step = constant_value(loop.step)
        self.memo: dict = {}

    def plan(self):
        body, step = self.body, self.step
        if not isinstance(step, int) or isinstance(step, bool) or step <= 0:
            return None
        dots = [op for op in body.ops if op.name == Op.DOT]
        if len(dots) != 1:
            return None
        dot = dots[0]
        if len(dot.a.type.shape) != 2 or dot.kused is not None or unit_of(dot, self.dpe_dtypes) != "dpe" or \
                dot.a.type.scalar.ir not in self.dpe_dtypes:
            return None
        acc = self.accumulator(dot)
        if acc is None:
            return None
        j_acc, add = acc
        bk = dot.a.type.shape[1]
        loads = [self.operand(dot.a, 1, bk), self.operand(dot.b, 0, bk)]
        if None in loads:
            return None
        tiles = {dot, add, body.terminator, *(ld for ld, _, _ in loads)}
        for op in body.ops:                   # the rest is pure scalar code
            if op not in tiles and (op.regions or any(r.type.is_block() for r in op.results) or
                                    not OP_DEFS[op.name].pure):
                return None
        steps = []                            # every other carried value moves by an invariant step
        for j in range(len(self.loop.inits)):
            if j == j_acc:
                continue
            s = self.stepping(j)
            if s is None or self.loop.results[j].uses:
                return None
            steps.append(s)
        return dot, add, bk, loads, steps

    def accumulator(self, dot: Operation):
        """(iter-arg index, the add of `acc += dot`, or None) of the dot's accumulator, when the dot adds
        into a carried tile that nothing else reads."""
        body = self.body
        args, y = body.args[1:], body.terminator
        r = dot.result
        if dot.c in args:
            j = args.index(dot.c)
            if len(dot.c.uses) == 1 and len(r.uses) == 1 and y.values[j] is r:
                return j, None
            return None
        # acc += tl.dot(a, b): the same sums when the dot's zero adds nothing (f32 / i32: no rounding)
        if constant_value(dot.c) not in (0, 0.0) or r.type.scalar.ir not in ("f32", "i32") or len(r.uses) != 1:
            return None
        add = r.uses[0].op
        if add.name not in (Op.ADDF, Op.ADDI) or add.parent is not body:
            return None
        other = add.operands[1 - r.uses[0].index]
        if other not in args:
            return None
        j = args.index(other)
        s = add.result
        if len(other.uses) == 1 and len(s.uses) == 1 and y.values[j] is s and s.type == r.type:
            return j, add
        return None

    def operand(self, v: Value, kdim: int, bk: int):
        """(load, K extent operand index, whether a mask shrinks it) of a dot operand loaded as a box
        [.., BK] whose base moves on by BK along K each iteration, or None."""
        ld = v.owner
        if not isinstance(ld, Operation) or ld.name != mtia.LOAD_BOX or ld.parent is not self.body or \
                ld.attrs.get("rank") != 2 or ld.other is not None or len(v.uses) != 1 or ld.attrs.get("skip_args") or \
                (ld.attrs.get("remap") and ld.attrs.get("remap_dim") == kdim):
            return None
        strides, valid = ld.strides, ld.valid
        if any(self.delta(x) != ZERO for x in (*strides, valid[1 - kdim], *ld.remap)):
            return None
        moves = self.delta(ld.ptr)
        if moves is None or moves - _expand(strides[kdim]).scale(bk):
            return None
        extent = valid[kdim]
        d = self.delta(extent)
        c = constant_value(extent)
        if d is not None and d.is_const and d.value == -bk:
            masked = True
        elif isinstance(c, int) and c >= bk:
            masked = False                     # the whole BK every iteration
        else:
            return None
        return ld, 1 + 2 + kdim, masked

    def stepping(self, j: int):
        """The yield's add of carried value j when it is `arg + step` with step loop-invariant."""
        arg = self.body.args[j + 1]
        y = self.body.terminator.values[j]
        op = y.owner
        if arg.type.is_block() or not isinstance(op, Operation) or op.name not in (Op.ADDPTR, Op.ADDI) or \
                op.parent is not self.body or len(y.uses) != 1:
            return None
        i = 0 if op.operands[0] is arg else 1 if op.name == Op.ADDI and op.operands[1] is arg else None
        if i is None or self.delta(op.operands[1 - i]) != ZERO:
            return None
        return op, 1 - i

    def delta(self, v: Value) -> Poly | None:
        """v(k + step) - v(k) over values the loop does not change, for scalar integer (and pointer)
        arithmetic that moves linearly with the iterations; None where it does not (or is unknown)."""
        if v in self.memo:
            return self.memo[v]
        self.memo[v] = None                   # (a cycle through carried values: unknown)
        d = self.memo[v] = self._delta(v)
        return d

    def _delta(self, v: Value) -> Poly | None:
        body = self.body
        op = v.owner
        if v.type.is_block():
            return None
        if not isinstance(op, Operation):     # a block argument
            if v not in body.args:
                return ZERO                   # the function's (or an outer loop's): fixed here
            j = body.args.index(v)
            if j == 0:
                return Poly.const(self.step)
            s = self.stepping(j - 1)
            return None if s is None else _expand(s[0].operands[s[1]])
        if op.parent is not body:
            return ZERO if not is_inside(op, self.loop) else None
        if op.name == Op.CONSTANT:
            return ZERO
        ds = [self.delta(x) for x in op.operands]
        if None in ds or op.regions or not OP_DEFS[op.name].pure:
            return None
        if not any(ds):
            return ZERO                       # computed from fixed values: fixed
        if op.name in (Op.ADDI, Op.ADDPTR):
            return ds[0] + ds[1]
        if op.name == Op.SUBI:
            return ds[0] - ds[1]
        if op.name == Op.MULI and not (ds[0] and ds[1]):
            return _expand(op.operands[0]) * ds[1] if ds[1] else ds[0] * _expand(op.operands[1])
        if op.name in (Op.EXTSI, Op.EXTUI, Op.TRUNCI):
            return ds[0]                      # without overflow, as the memory lowering assumes
        return None


def _expand(v: Value) -> Poly:
    """A fixed scalar as a polynomial over the values it is computed from (sums, products, casts)."""
    op = v.owner
    if isinstance(op, Operation):
        c = constant_value(v)
        if isinstance(c, int) and not isinstance(c, bool):
            return Poly.const(c)
        if op.name in (Op.ADDI, Op.SUBI, Op.MULI):
            a, b = (_expand(x) for x in op.operands)
            return a + b if op.name == Op.ADDI else a - b if op.name == Op.SUBI else a * b
        if op.name in (Op.EXTSI, Op.EXTUI, Op.TRUNCI):
            return _expand(op.x)
    return Poly.var(v)


def _rewrite(loop: Operation, stages: int, dot: Operation, add: Operation | None, bk: int, loads: list,
             steps: list) -> None:
    body = loop.body
    step = constant_value(loop.step)
    ty = loop.lower.type
    unsigned = ty.is_int_unsigned()
    lo, hi = loop.lower, loop.upper
    b = Builder()
    b.set_insertion_point_before(loop)
    b.loc = loop.loc
    s = b.constant(step, ty)
    # iteration t runs K steps 2t - 1 and 2t (the first only step 0), counted by k2 = lo + 2t * step
    some = b.create1(Op.CMPI, [lo, hi], i1, {"predicate": "ult" if unsigned else "slt"})
    loop.set_operand(1, b.create1(Op.SELECT, [some, b.create1(Op.ADDI, [hi, s], ty), hi], ty))
    loop.set_operand(2, b.constant(SLICES * step, ty))
    # loads run as many K steps ahead as in the loop as written (stages - 1), in whole pairs
    loop.attrs["tt.num_stages"] = stages // SLICES + 1
    b.block, b.index = body, 0
    kp = body.args[0]
    uses = list(kp.uses)
    back = b.create1(Op.SUBI, [kp, s], ty)
    if unsigned:                              # (k2 - step wraps around below 0)
        later = b.create1(Op.CMPI, [kp, lo], i1, {"predicate": "ugt"})
        first = b.create1(Op.SELECT, [later, back, lo], ty)
    else:
        first = b.create1(Op.MAXSI, [lo, back], ty)
    for u in uses:                            # the body as written runs at the iteration's first step
        u.op.set_operand(u.index, first)
    here = b.create1(Op.SUBI, [kp, first], ty)                # 0 in the first iteration, else one step
    left = b.create1(Op.SUBI, [hi, first], ty)
    if step > 1:
        here = b.create1(Op.DIVSI, [here, s], ty)
        left = b.create1(Op.DIVSI, [b.create1(Op.ADDI, [left, b.constant(step - 1, ty)], ty), s], ty)
    here = b.create1(Op.ADDI, [here, b.constant(1, ty)], ty)   # the steps this iteration runs: 1, then 2
    used = b.create1(Op.MINUI if unsigned else Op.MINSI, [here, left], ty)   # (1 at an even end)
    wide = {}

    def as_type(v: Value, t) -> Value:
        if v.type == t:
            return v
        if (v, t) not in wide:
            b.block, b.index = body, body.ops.index(used.owner) + 1 + len(wide)
            wide[v, t] = b.create1(Op.EXTUI if unsigned else Op.EXTSI, [v], t)
        return wide[v, t]

    used64 = as_type(used, i64)
    b.block, b.index = body, body.ops.index(used64.owner) + 1
    span = b.create1(Op.MULI, [used64, b.constant(bk, i64)], i64)          # the K elements it reads
    clipped = {}                               # K extent -> min(extent, span): A's and B's are often one
    for ld, at, masked in loads:
        t = ld.result.type
        kdim = at - 3
        ld.result.type = BlockType(tuple(n * SLICES if d == kdim else n for d, n in enumerate(t.shape)), t.scalar)
        extent = ld.operands[at]
        if masked and extent not in clipped:
            b.set_insertion_point_before(ld)
            clipped[extent] = b.create1(Op.MINSI, [extent, span], i64)
        ld.set_operand(at, clipped[extent] if masked else span)
    for op, i in steps:                       # pointers and offsets move on by the steps run
        d = op.operands[i]
        n = as_type(here, d.type)
        b.set_insertion_point_before(op)
        op.set_operand(i, b.create1(Op.MULI, [d, n], d.type))
    attrs = dict(dot.attrs, kslices=SLICES)
    if add is None:
        dot.set_operands([dot.a, dot.b, dot.c, used64])
        dot.attrs = attrs
        return
    acc = add.operands[0] if add.operands[1] is dot.result else add.operands[1]
    b.set_insertion_point_before(add)
    b.loc = dot.loc
    new = b.create1(Op.DOT, [dot.a, dot.b, acc, used64], add.result.type, attrs)
    new.name_hint = add.result.name_hint
    add.result.replace_all_uses_with(new)
    add.erase()
    dot.erase()
