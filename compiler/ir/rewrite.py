"""A greedy pattern-rewrite driver, tinygrad style: a table {op name: [rewrite functions]}.

A rewrite function gets the op and a Builder placed right before it; it returns the values that
replace the op's results (the op is then erased), or None when it does not apply:

    def fold_mul_by_one(op, b):
        if patterns.constant_value(op.operands[1]) == 1:
            return [op.operands[0]]

    rewrite_greedily(module, {Op.MULI: [fold_mul_by_one]})
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

from .builder import Builder
from .core import Operation, Value

RewriteFn = Callable[[Operation, Builder], "Sequence[Value] | None"]


def rewrite_greedily(module: Operation, table: Mapping[str, Sequence[RewriteFn]], max_rounds: int = 16) -> bool:
    """Apply the table until nothing changes (at most `max_rounds` sweeps). Returns True if anything changed."""
    table = {getattr(k, "value", k): v for k, v in table.items()}
    changed_any = False
    for _ in range(max_rounds):
        changed = False
        for op in list(module.walk()):
            if op.parent is None or op.name not in table:
                continue
            for fn in table[op.name]:
                b = Builder()
                b.set_insertion_point_before(op)
                b.loc = op.loc
                new = fn(op, b)
                if new is None:
                    continue
                new = list(new)
                if len(new) != len(op.results):
                    raise ValueError(f"rewrite of {op.name} returned {len(new)} values for {len(op.results)} results")
                for old, v in zip(op.results, new):
                    if v.name_hint is None:
                        v.name_hint = old.name_hint
                op.replace_all_uses_with(new)
                op.erase()
                changed = True
                break
        changed_any |= changed
        if not changed:
            break
    return changed_any
