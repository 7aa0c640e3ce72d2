"""Dead code elimination: erase side-effect-free ops whose results nobody reads."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..core import Operation
from ..ops import PURE_OPS


@dataclass(frozen=True)
class DeadCodeElimination:
    name: ClassVar[str] = "dce"

    def run(self, module: Operation) -> bool:
        """Returns True if anything was erased. Post-order walk: users die before their operands."""
        changed = True
        any_change = False
        while changed:
            changed = False
            for op in list(module.walk(post_order=True)):
                if op.name in PURE_OPS and op.parent is not None and not any(r.uses for r in op.results):
                    op.erase()
                    changed = any_change = True
        return any_change
