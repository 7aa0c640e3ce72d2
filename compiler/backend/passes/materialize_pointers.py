"""The general fallback for pointer blocks: hold the addresses themselves in the local store.

What the memory lowering could not turn into boxes or root-relative gathers (pointer blocks
carried through loops whose start is not affine, such as the tutorial matmul's `% M` wrap-around,
or pointers selected between two arrays) is rewritten here: every pointer block becomes an i64
block of byte addresses computed by the SE (`addptr` multiplies by the element size), loops carry
those blocks like any other, and the accesses become element-wise gathers, scatters and atomics
from address 0. Correct for any pointer arithmetic Triton allows, and as slow as per-element
transactions are on the hardware.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...ir import Builder, Op
from ...ir.core import Operation
from ...ir.types import BlockType, PointerType, i64
from .. import dialect as mtia
from .util import error_at

_RETYPE = (Op.BROADCAST, Op.EXPAND_DIMS, Op.RESHAPE, Op.TRANS, Op.SELECT, Op.JOIN, Op.SPLIT, Op.CAT,
           Op.EXTRACT_SLICE)
_MEMORY = (Op.LOAD, Op.STORE, Op.ATOMIC_RMW, Op.ATOMIC_CAS)


def _is_ptr_block(t) -> bool:
    return t.is_block() and t.scalar.is_ptr()


def _addr_type(t):
    return BlockType(tuple(t.shape), i64)


@dataclass(frozen=True)
class MaterializePointers:
    name: ClassVar[str] = "materialize-pointers"

    def run(self, module) -> None:
        for func in module.functions:
            elem = {}                     # value -> pointee type, remembered before retyping
            for op in func.walk():
                for v in list(op.results) + [a for r in op.regions for a in r.block.args]:
                    if _is_ptr_block(v.type):
                        elem[v] = v.type.scalar.element_ty
            if not elem:   # (a pointer block never dereferenced is one too: pointers selected and stored as ints)
                continue
            for op in list(func.walk()):
                _rewrite(op, elem)
            for v in elem:
                v.type = _addr_type(v.type)


def _rewrite(op: Operation, elem: dict) -> None:
    b = Builder()
    b.set_insertion_point_before(op) if op.parent is not None else None
    b.loc = op.loc
    name = op.name
    if name == Op.SPLAT and op.results[0] in elem:
        addr = b.create1(Op.PTR_TO_INT, [op.src], i64)
        op.set_operand(0, addr)
    elif name == Op.ADDPTR and op.results[0] in elem:
        isz = elem[op.results[0]].itemsize
        off = op.offset
        t = _addr_type(off.type)
        if off.type.scalar != i64:
            off = b.create1(Op.EXTUI if off.type.scalar.is_int_unsigned() else Op.EXTSI, [off], t)
        if isz != 1:
            off = b.create1(Op.MULI, [off, b.constant(isz, t)], t)
        new = b.create1(Op.ADDI, [op.ptr, off], t)
        new.name_hint = op.results[0].name_hint
        elem[new] = elem[op.results[0]]          # still an address block, for the ops that read it
        op.results[0].replace_all_uses_with(new)
        op.erase()
    elif name in (Op.INT_TO_PTR, Op.PTR_TO_INT, Op.PTR_BITCAST) and op.x.type.is_block():
        op.results[0].replace_all_uses_with(op.x)
        op.erase()
    elif name in _MEMORY and op.ptr in elem:
        # the element type is what the access moves (a bitcast pointer may have changed it)
        _memory(b, op, _pointee(op))
    elif name in (mtia.STORE_BOX, mtia.SCATTER) and op.ptr not in elem:
        pass                               # addresses stored as data (int64): the value block is i64 once retyped
    elif name in _RETYPE or name in (Op.FOR, Op.IF, Op.WHILE, Op.YIELD, Op.CONDITION):
        pass                               # result types follow the operands once retyped
    elif any(v in elem for v in op.operands):
        raise error_at(op, f"{name} on a block of pointers is not supported by the MTIA backend")


def _pointee(op: Operation):
    if op.name == Op.STORE:
        return op.value.type.scalar
    return op.results[0].type.scalar


def _memory(b: Builder, op: Operation, pointee) -> None:
    isz = pointee.itemsize
    addr = op.ptr
    t = _addr_type(addr.type)
    offs = b.create1(Op.DIVSI, [addr, b.constant(isz, t)], t)     # element index from address 0
    null = b.create1(Op.INT_TO_PTR, [b.constant(0, i64)], PointerType(pointee))
    name = op.name
    if name == Op.LOAD:
        mask, other = op.mask, op.other
        val = b.create1(mtia.GATHER, [null, offs] + ([mask] if mask is not None else []), op.result.type, {"pad": 0})
        if other is not None:
            val = b.create1(Op.SELECT, [mask, val, other], op.result.type)
        val.name_hint = op.result.name_hint
        op.result.replace_all_uses_with(val)
    elif name == Op.STORE:
        b.create(mtia.SCATTER, [null, offs, op.value] + ([op.mask] if op.mask is not None else []), [])
    elif name == Op.ATOMIC_RMW:
        from .lower_memory import RMW_KINDS
        used = bool(op.result.uses)          # no tile of old values nobody reads
        res = b.create(mtia.ATOMIC, [null, offs, op.val] + ([op.mask] if op.mask is not None else []),
                       [op.result.type] if used else [], {"kind": RMW_KINDS[op.attrs["atomic_rmw_op"]]})
        if used:
            op.result.replace_all_uses_with(res.results[0])
    else:
        val = b.create1(mtia.CAS, [null, offs, op.cmp, op.val], op.result.type)
        op.result.replace_all_uses_with(val)
    op.erase()
