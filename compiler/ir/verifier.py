"""Verify IR: every op known and well-typed, regions terminated, and every use dominated by its def.

Dominance in structured IR is lexical: a value is visible after its definition in its own block
and in every region nested below that point; a block argument is visible in its block.
"""
from __future__ import annotations

from .core import Block, Operation
from .ops import OP_DEFS, TERMINATORS, VerifyError


def verify(op: Operation) -> None:
    """Raise VerifyError describing the first problem found."""
    _verify_block_tree(op, visible=set())


def _verify_block_tree(op: Operation, visible: set) -> None:
    try:
        _verify_op(op, visible)
    except VerifyError as e:
        if op.loc is not None and " (at " not in str(e):
            raise VerifyError(f"{e} (at {op.loc})") from None
        raise
    for region in op.regions:
        if len(region.blocks) != 1:
            raise VerifyError(f"'{op.name}' region must have exactly one block")
        _verify_block(region.block, set(visible), op)


def _verify_block(block: Block, visible: set, owner: Operation) -> None:
    visible.update(id(a) for a in block.args)
    for i, op in enumerate(block.ops):
        if op.parent is not block:
            raise VerifyError(f"'{op.name}' has a stale parent pointer")
        is_last = i == len(block.ops) - 1
        if op.name in TERMINATORS and not is_last:
            raise VerifyError(f"terminator '{op.name}' is not last in its block")
        _verify_block_tree(op, visible)
        visible.update(id(r) for r in op.results)
    if owner.name not in ("builtin.module",) and (not block.ops or block.ops[-1].name not in TERMINATORS):
        raise VerifyError(f"a region of '{owner.name}' does not end with a terminator")


def _verify_op(op: Operation, visible: set) -> None:
    d = OP_DEFS.get(op.name)
    if d is None:
        raise VerifyError(f"unknown op '{op.name}'")
    for i, v in enumerate(op.operands):
        if id(v) not in visible:
            raise VerifyError(f"operand #{i} of '{op.name}' does not dominate its use")
        if not any(u.op is op and u.index == i for u in v.uses):
            raise VerifyError(f"operand #{i} of '{op.name}' is missing from its value's use list")
    if d.results is not None and len(op.results) != d.results:
        raise VerifyError(f"'{op.name}' op needs {d.results} results, has {len(op.results)}")
    if len(op.regions) != d.regions:
        raise VerifyError(f"'{op.name}' op needs {d.regions} regions, has {len(op.regions)}")
    d.operand_segments(op)                  # raises when the operand count does not fit the declaration
    for a in d.attrs:
        if a not in op.attrs:
            raise VerifyError(f"'{op.name}' op requires attribute '{a}'")
    if d.check is not None:
        d.check(op)
