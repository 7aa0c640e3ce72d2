"""`acc + tl.dot(a, b)` -> `tl.dot(a, b, acc)`, as Triton's own combine pass rewrites it.

GPU kernels write both forms (`accumulator += tl.dot(a, b)` in older versions of the matmul tutorial
and in Inductor's mm template, `tl.dot(a, b, acc)` in newer ones) and expect the same program from
them. Unfused, the dot's result is a tile of its own beside the accumulator, which on MTIA is a second
accumulator-sized CB in the local store (a 128x256 f32 block does not fit twice) and an SE add per K
step; fused, the DPE adds into the accumulator in place.

The rewrite applies when the dot's accumulator is a constant zero, the add is the dot's only use, both
are in one block and the add's type is the dot's. Both executors run the rewritten IR (the pass is in
the default pipeline), so they agree; the sum is `acc + a @ b` either way, rounded once, except that an
f32 product that underflows to -0 meets `acc` directly instead of through `+ 0` (so `-0 + -0` stays -0),
which is what the fused form computes on a GPU too.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..builder import Builder
from ..core import Operation
from ..ops import Op
from ..patterns import constant_value, defining_op

_ADDS = (Op.ADDF, Op.ADDI)


@dataclass(frozen=True)
class FuseDotAdd:
    name: ClassVar[str] = "fuse-dot-add"

    def run(self, module: Operation) -> bool:
        changed = False
        for op in list(module.walk()):
            if op.name not in _ADDS or op.parent is None:
                continue
            for i in (0, 1):
                dot = defining_op(op.operands[i], Op.DOT)
                if dot is not None and _fusable(dot, op):
                    _fuse(dot, op, op.operands[1 - i])
                    changed = True
                    break
        return changed


def _fusable(dot: Operation, add: Operation) -> bool:
    return (dot.parent is add.parent and len(dot.operands) == 3 and "kslices" not in dot.attrs
            and len(dot.result.uses) == 1 and dot.result.type == add.result.type
            and add.operands[0] is not add.operands[1] and constant_value(dot.operands[2]) == 0)


def _fuse(dot: Operation, add: Operation, acc) -> None:
    b = Builder()
    b.set_insertion_point_before(add)
    b.loc = dot.loc                     # errors about the dot still point at the tl.dot line
    fused = b.create1(Op.DOT, [dot.operands[0], dot.operands[1], acc], add.result.type, dict(dot.attrs))
    fused.name_hint = add.result.name_hint
    add.result.replace_all_uses_with(fused)
    add.erase()
    dot.erase()
