"""Common subexpression elimination: reuse an identical pure op that dominates (same block or an
enclosing one, earlier). Memory reads are never merged (a store may sit between them)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from ..core import Block, Operation
from ..ops import PURE_OPS, Op

_NOT_MERGED = {Op.LOAD, Op.DESCRIPTOR_LOAD}


def _freeze(v):
    if isinstance(v, (list, tuple)):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    if isinstance(v, float) and v != v:
        return "nan"
    if isinstance(v, float) and v == 0.0:        # -0.0 == 0.0, but they are different constants
        return ("float", math.copysign(1.0, v), 0.0)
    return (type(v).__name__, v)


def _key(op: Operation):
    return (op.name, tuple(id(v) for v in op.operands), _freeze(op.attrs), tuple(r.type for r in op.results))


@dataclass(frozen=True)
class CommonSubexpressionElimination:
    name: ClassVar[str] = "cse"

    def run(self, module: Operation) -> bool:
        changed = [False]
        for region in module.regions:
            for block in region.blocks:
                self._block(block, {}, changed)
        return changed[0]

    def _block(self, block: Block, seen: dict, changed: list) -> None:
        seen = dict(seen)   # values of enclosing blocks dominate this one; ours do not leak out
        for op in list(block.ops):
            if op.regions:
                for region in op.regions:
                    for b in region.blocks:
                        self._block(b, seen, changed)
                continue
            if op.name not in PURE_OPS or op.name in _NOT_MERGED or not op.results:
                continue
            k = _key(op)
            prev = seen.get(k)
            if prev is None:
                seen[k] = op
                continue
            for old, new in zip(op.results, prev.results):
                old.replace_all_uses_with(new)
            op.erase()
            changed[0] = True
