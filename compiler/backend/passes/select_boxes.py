"""tl.where under a box mask -> mtia.select_box: `tl.where(offs < n, x, 0)` keeps the first n elements of
x, and needs no mask tile to say so.

A select whose condition is "the first valid_k indices of each dimension" (backend/analysis/masks.py: an
`arange` plus scalars compared with a scalar bound, the ands and broadcasts of such compares) becomes
one SE command whose valid extents scalar code computes, as a masked load's box gets them. The SE
then neither builds the index block nor compares it, and no mask tile holds the answer: for a
reduction's `tl.where(cols < n, x, 0.0)` that is two commands fewer a block and, over a row of
32,768, a 128 KiB tile of the local store less. The mask's ops die when nothing else reads them.
Selects of pointers are address arithmetic: materialize-pointers keeps those.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...ir import Builder, Op
from ...ir.core import Operation
from ...ir.types import PointerType
from .. import dialect as mtia
from ..analysis.masks import analyze_mask
from .lower_memory import box_valid
from .util import erase_dead


@dataclass(frozen=True)
class SelectBoxes:
    name: ClassVar[str] = "select-boxes"

    def run(self, module) -> None:
        for func in module.functions:
            for op in [o for o in func.walk() if o.name == Op.SELECT]:
                _rewrite(op)
        erase_dead(module)


def _rewrite(op: Operation) -> None:
    t = op.result.type
    if not t.is_block() or not op.cond.type.is_block() or isinstance(t.scalar, PointerType):
        return
    box = analyze_mask(op.cond)
    if box is None:
        return
    if not box.bounds:                  # the mask keeps everything
        op.result.replace_all_uses_with(op.true_value)
        op.erase()
        return
    b = Builder()
    b.set_insertion_point_before(op)
    b.loc = op.loc
    shape = tuple(t.shape)
    valid = box_valid(b, box, shape)
    val = b.create1(mtia.SELECT_BOX, [op.true_value, op.false_value, *valid], t, {"rank": len(shape)})
    val.name_hint = op.result.name_hint
    op.result.replace_all_uses_with(val)
    op.erase()
