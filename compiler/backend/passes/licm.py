"""Hoist loop-invariant scalar code (and fills of small blocks) out of loops.

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
from .. import dialect as mtia

LOOPS = (Op.FOR, Op.WHILE)
# Blocks of one value this small are hoisted too: the one-element offset, compare and value tiles the
# memory lowering makes for a scalar atomic (a spin lock's tl.atomic_cas) are filled once instead of
# by three SE commands every iteration. Larger fills stay: a hoisted tile holds local store all loop.
SMALL_FILL_BYTES = 64
# A load is pure (it changes nothing) but reads memory: it may leave a loop only when nothing in the
# loop writes memory (a store, an atomic, a descriptor store, a DMA out), or it would read the value
# from before the loop's first write (Triton's test_nested_while: a counter in memory read once). A
# volatile load never leaves: other programs may write what it reads (a spin-wait on a flag).
MEMORY_READS = (Op.LOAD, Op.DESCRIPTOR_LOAD)
MEMORY_WRITES = (Op.STORE, Op.ATOMIC_RMW, Op.ATOMIC_CAS, Op.DESCRIPTOR_STORE,
                 mtia.STORE_BOX, mtia.SCATTER, mtia.ATOMIC, mtia.ATOMIC_BOX, mtia.CAS)


def _defined_inside(v, loop: Operation) -> bool:
    owner = v.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op
    while op is not None:
        if op is loop:
            return True
        op = op.parent_op
    return False


def _writes_memory(loop: Operation) -> bool:
    """Whether an op in the loop may write memory (an op this pass does not know counts as a write)."""
    return any(op.name in MEMORY_WRITES or op.name not in OP_DEFS for op in loop.walk())


def _small_fill(op: Operation) -> bool:
    t = op.results[0].type
    return op.name in (Op.CONSTANT, Op.SPLAT) and t.numel * t.scalar.itemsize <= SMALL_FILL_BYTES


@dataclass(frozen=True)
class HoistLoopInvariants:
    name: ClassVar[str] = "licm"

    def run(self, module) -> None:
        for loop in [o for o in module.walk(post_order=True) if o.name in LOOPS]:
            loads_stay = _writes_memory(loop)
            moved = True
            while moved:
                moved = False
                for region in loop.regions:
                    for op in list(region.block.ops):
                        d = OP_DEFS.get(op.name)
                        if d is None or not d.pure or op.regions or d.terminator or not op.results:
                            continue
                        if op.name in MEMORY_READS and (loads_stay or op.attrs.get("is_volatile")):
                            continue
                        if any(r.type.is_block() for r in op.results) and not _small_fill(op):
                            continue
                        if any(_defined_inside(v, loop) for v in op.operands):
                            continue
                        op.move_before(loop)
                        moved = True
