"""Builder: creates ops at an insertion point, stamping each with the current source location."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Sequence

import numpy as np

from .core import Block, Loc, Operation, Region, Value
from .types import Type


class Builder:
    def __init__(self, block: Block | None = None):
        self.block = block
        self.index: int | None = None   # None: append at the end of the block
        self.loc: Loc | None = None

    # --- insertion point ---
    def set_insertion_point_to_end(self, block: Block) -> None:
        self.block, self.index = block, None

    def set_insertion_point_before(self, op: Operation) -> None:
        self.block, self.index = op.parent, op.parent.ops.index(op)

    @contextmanager
    def at_end(self, block: Block):
        """Temporarily append to `block`."""
        saved = (self.block, self.index)
        self.set_insertion_point_to_end(block)
        try:
            yield self
        finally:
            self.block, self.index = saved

    @contextmanager
    def at_loc(self, loc: Loc | None):
        saved = self.loc
        self.loc = loc or saved
        try:
            yield self
        finally:
            self.loc = saved

    # --- creation ---
    def insert(self, op: Operation) -> Operation:
        if self.block is None:
            raise RuntimeError("builder has no insertion point")
        if self.index is None:
            self.block.append(op)
        else:
            self.block.insert(self.index, op)
            self.index += 1
        return op

    def create(self, name: str, operands: Sequence[Value] = (), result_types: Sequence[Type] = (),
               attrs: dict | None = None, regions: Sequence[Region] = (), loc: Loc | None = None) -> Operation:
        return self.insert(Operation(name, operands, result_types, attrs, regions, loc or self.loc))

    def create1(self, name: str, operands: Sequence[Value], result_type: Type, attrs: dict | None = None) -> Value:
        """Create a single-result op and return its result."""
        return self.create(name, operands, [result_type], attrs).results[0]

    def constant(self, value, type: Type) -> Value:
        """A constant; a float is rounded to its element type first (`x_f16 * 0.1` multiplies by
        f16(0.1), as Triton does), so every stage and executor sees the same number."""
        if isinstance(value, float) and type.scalar.is_floating():
            with np.errstate(over="ignore"):        # past the type's range: inf, as on the device
                value = float(type.scalar.np_dtype.type(value))
        return self.create1("arith.constant", [], type, {"value": value})
