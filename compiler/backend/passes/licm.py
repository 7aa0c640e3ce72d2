"""Hoist loop-invariant scalar code out of loops.

The memory lowering computes addresses, strides and valid extents next to each access; inside a
loop most of that arithmetic does not depend on the iteration. Moving it before the loop saves the
control core those instructions every iteration (its issue rate is what limits small GEMMs).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...ir import Op
from ...ir.core import Operation
from ...ir.ops import OP_DEFS

LOOPS = (Op.FOR, Op.WHILE)


def _defined_inside(v, loop: Operation) -> bool:
    owner = v.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op
    while op is not None:
        if op is loop:
            return True
        op = op.parent_op
    return False


@dataclass(frozen=True)
class HoistLoopInvariants:
    name: ClassVar[str] = "licm"

    def run(self, module) -> None:
        for loop in [o for o in module.walk(post_order=True) if o.name in LOOPS]:
            moved = True
            while moved:
                moved = False
                for region in loop.regions:
                    for op in list(region.block.ops):
                        d = OP_DEFS.get(op.name)
                        if d is None or not d.pure or op.regions or d.terminator or not op.results:
                            continue
                        if any(r.type.is_block() for r in op.results):
                            continue
                        if any(_defined_inside(v, loop) for v in op.operands):
                            continue
                        op.move_before(loop)
                        moved = True
