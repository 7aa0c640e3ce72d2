"""Constant folding: evaluate pure ops whose operands are all constants, plus a few identities.

The folder evaluates ops with the reference interpreter's definitions (`interpreter.ops.EVAL`), so a
folded value is by construction what the op would have computed at run time. Only results that are
uniform (a scalar, or a block holding one value) become `arith.constant`s; identities remove
`x + 0`, `x - 0`, `x * 1` on integers and `x * 1.0` on floats, and casts to the same type. An
`scf.if` on a constant condition is replaced by the branch it takes (Inductor's templates test
compile-time strides that way), so the analyses after it see the values that branch computes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..core import Operation
from ..ops import OP_DEFS, Op
from ..patterns import constant_value
from ..types import STORAGE_FP8, PointerType

_SHAPE_OPS = {Op.SPLAT, Op.BROADCAST, Op.EXPAND_DIMS, Op.RESHAPE, Op.TRANS}
_POINTER_OPS = {Op.ADDPTR, Op.INT_TO_PTR, Op.PTR_TO_INT, Op.PTR_BITCAST}


def _is_const(v) -> bool:
    owner = v.owner
    return isinstance(owner, Operation) and owner.name == Op.CONSTANT


def _uniform(arr: np.ndarray):
    arr = np.asarray(arr)
    first = arr.reshape(-1)[0] if arr.size else None
    if first is None:
        return None
    wide = arr.astype(np.float64) if arr.dtype.kind in "fV" else arr
    f = wide.reshape(-1)[0]
    same = np.all(wide == f) or (wide.dtype.kind == "f" and np.isnan(f) and np.all(np.isnan(wide)))
    if not same:
        return None
    val = first.item()
    if isinstance(val, float) and arr.dtype.kind in "iu":
        val = int(val)
    return val


@dataclass(frozen=True)
class ConstantFold:
    name: ClassVar[str] = "constant-fold"

    def run(self, module: Operation) -> bool:
        from ...interpreter.ops import EVAL
        changed = False
        for op in list(module.walk()):
            if op.name == Op.IF and op.parent is not None and _is_const(op.cond):
                _inline_taken_branch(op)
                changed = True
                continue
            if op.parent is None or len(op.results) != 1 or op.regions:
                continue
            d = OP_DEFS.get(op.name)
            if d is None or not d.pure or op.name in _POINTER_OPS or op.name == Op.CONSTANT:
                continue
            if not (d.elementwise or op.name in _SHAPE_OPS) or isinstance(op.result.type.scalar, PointerType):
                continue
            new = self._identity(op)
            if new is not None:
                op.result.replace_all_uses_with(new)
                op.erase()
                changed = True
                continue
            if not op.operands or not all(_is_const(v) for v in op.operands):
                continue
            args = [EVAL[Op.CONSTANT](None, v.owner, [])[0] for v in op.operands]
            with np.errstate(all="ignore"):
                try:
                    result = EVAL[op.name](None, op, args)[0]
                except Exception:   # leave anything the evaluator rejects to run time
                    continue
            # a storage-only fp8 constant holds its code: no float type holds the value (fp8_storage.py)
            val = _uniform(result.view(np.uint8) if op.result.type.scalar in STORAGE_FP8 else result)
            if val is None:
                continue
            c = Operation(Op.CONSTANT, [], [op.result.type], {"value": val}, loc=op.loc)
            op.parent.insert_before(op, c)
            c.result.name_hint = op.result.name_hint
            op.result.replace_all_uses_with(c.result)
            op.erase()
            changed = True
        return changed

    @staticmethod
    def _identity(op: Operation):
        """The value `op` reduces to by an exact algebraic identity, if any."""
        if len(op.operands) == 1 and op.operands[0].type == op.result.type and op.name not in _SHAPE_OPS \
                and op.name in (Op.BITCAST, Op.EXTF, Op.TRUNCF):
            return op.operands[0]
        if len(op.operands) != 2:
            return None
        a, b = op.operands
        cb, ca = constant_value(b), constant_value(a)
        if op.name in (Op.ADDI, Op.SUBI, Op.ORI, Op.XORI, Op.SHLI, Op.SHRSI, Op.SHRUI) and cb == 0 \
                and cb is not None and not isinstance(cb, bool):
            return a
        if op.name in (Op.ADDI, Op.ORI, Op.XORI) and ca == 0 and ca is not None and not isinstance(ca, bool):
            return b
        if op.name in (Op.MULI, Op.DIVSI, Op.DIVUI) and cb == 1 and not isinstance(cb, bool):
            return a
        if op.name == Op.MULI and ca == 1 and not isinstance(ca, bool):
            return b
        if op.name in (Op.MULF, Op.DIVF) and cb == 1.0:
            return a
        if op.name == Op.MULF and ca == 1.0:
            return b
        return None


def _inline_taken_branch(op: Operation) -> None:
    """Move the ops of the branch a constant condition takes before the `scf.if`; its yield's values
    replace the if's results."""
    taken = 0 if op.cond.owner.attrs["value"] else 1
    block = op.regions[taken].block
    for inner in list(block.ops):
        if inner is block.terminator:
            break
        inner.move_before(op)
    for r, v in zip(op.results, block.terminator.operands):
        r.replace_all_uses_with(v)
    op.erase()
