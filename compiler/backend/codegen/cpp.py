"""The readable C++ rendering of a kernel, written beside the instruction stream.

It is for people, not for a C++ compiler: scalar code reads as C, engine commands as calls on
named circular buffers (`dma_in(cb0, ...)`, `dpe_matmul(cb3 += cb0 x cb1)`), loops as loops.
"""
from __future__ import annotations

import re

from isa.types import Tile

from ...ir import Op
from ...ir.core import Operation, Value
from .emitter import Proto, VReg

_CTYPES = {"i1": "bool", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t", "u8": "uint8_t",
           "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t", "f16": "half", "bf16": "bfloat16",
           "f32": "float", "f64": "double"}
_BIN = {Op.ADDI: "+", Op.ADDF: "+", Op.SUBI: "-", Op.SUBF: "-", Op.MULI: "*", Op.MULF: "*", Op.DIVSI: "/",
        Op.DIVUI: "/", Op.DIVF: "/", Op.REMSI: "%", Op.REMUI: "%", Op.ANDI: "&", Op.ORI: "|", Op.XORI: "^",
        Op.SHLI: "<<", Op.SHRSI: ">>", Op.SHRUI: ">>"}
_CMP = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=", "ult": "<", "ule": "<=",
        "ugt": ">", "uge": ">=", "oeq": "==", "une": "!=", "olt": "<", "ole": "<=", "ogt": ">", "oge": ">="}


def ctype(t) -> str:
    if t.is_ptr():
        return f"{ctype(t.element_ty)}*"
    return _CTYPES.get(t.ir, t.ir)


def name(g, v: Value) -> str:
    if not v.type.is_block():
        c = g.const_int(v)
        if c is not None:
            return str(c)
        op = v.owner
        if isinstance(op, Operation) and op.name == Op.CONSTANT:
            return repr(op.attrs["value"])
    r = g.regs.get(v)
    if r is not None and r.hint:
        return r.hint
    return re.sub(r"\W", "_", v.name_hint or f"t{id(v) % 10000}")


def header(g) -> None:
    f = g.func
    args = ", ".join(f"{ctype(a.type)} {name(g, a)}" for a in f.body.args)
    g.e.cpp.append(f"void {f.attrs.get('sym_name', 'kernel')}({args}) {{")
    for st in g.plan.storages:
        g.e.line(f"// cb{st.id}: {st.name} ({st.nbytes} B per slot)")


def _operand(g, x) -> str:
    if isinstance(x, Tile):
        return f"cb{x.cb}" + ("" if x.mode == "keep" else f".{x.mode}")
    if isinstance(x, VReg):
        return x.hint or f"r{x.n}"
    if isinstance(x, (tuple, list)):
        return "{" + ", ".join(_operand(g, e) for e in x) + "}"
    return repr(x)


def tile_op(g, op: Operation, start: int) -> None:
    """One C++ call per engine command the op became."""
    for p in g.e.code[start:]:
        if not isinstance(p, Proto) or p.cls.unit not in ("dma", "dpe", "se", "re", "mlu"):
            continue
        fn = p.cls.mnemonic.replace(".", "_")
        args = ", ".join(f"{k}={_operand(g, v)}" if not isinstance(v, Tile) else _operand(g, v)
                         for k, v in p.fields.items() if v not in ((), None))
        shape = ""
        out = next((v for v in p.fields.values() if isinstance(v, Tile) and v.mode in ("push", "acc")), None)
        if out is not None:
            shape = f"   // {out.dtype}[{'x'.join(map(str, out.shape))}]"
        line = f"  (line {op.loc.line})" if op.loc else ""
        g.e.line(f"{fn}({args});{shape}{line}")


def scalar_op(g, op: Operation) -> None:
    if not op.results:
        if op.name == Op.STORE:
            g.e.line(f"*{name(g, op.ptr)} = {name(g, op.value)};")
        return
    r = op.results[0]
    if op.operands and g.regs.get(r) is not None and g.regs.get(r) is g.regs.get(op.operands[0]):
        return                                   # the same register under another type: no code
    lhs = f"{ctype(r.type)} {name(g, r)}"
    o = op.operands
    if op.name in _BIN:
        rhs = f"{name(g, o[0])} {_BIN[op.name]} {name(g, o[1])}"
    elif op.name in (Op.CMPI, Op.CMPF):
        rhs = f"{name(g, o[0])} {_CMP.get(op.attrs['predicate'], '?')} {name(g, o[1])}"
    elif op.name == Op.ADDPTR:
        rhs = f"{name(g, o[0])} + {name(g, o[1])}"
    elif op.name == Op.GET_PROGRAM_ID:
        rhs = f"mtia::program_id({op.attrs['axis']})"
    elif op.name == Op.GET_NUM_PROGRAMS:
        rhs = f"mtia::num_programs({op.attrs['axis']})"
    elif op.name == Op.LOAD:
        rhs = f"*{name(g, o[0])}"
    elif op.name == Op.SELECT:
        rhs = f"{name(g, o[0])} ? {name(g, o[1])} : {name(g, o[2])}"
    elif op.name == Op.ABSI:
        rhs = f"abs({name(g, o[0])})"
    elif len(o) == 1:
        rhs = f"({ctype(r.type)}){name(g, o[0])}"
    else:
        rhs = f"{op.name.split('.')[-1]}({', '.join(name(g, v) for v in o)})"
    g.e.line(f"{lhs} = {rhs};")


def loop_open(g, op: Operation, iv) -> None:
    lb, ub, step = op.lower, op.upper, op.step
    i = name(g, op.body.args[0])
    g.e.line(f"for ({ctype(lb.type)} {i} = {name(g, lb)}; {i} < {name(g, ub)}; {i} += {name(g, step)}) {{")


def if_open(g, op: Operation) -> None:
    g.e.line(f"if ({name(g, op.cond)}) {{")
    g.e.indent += 1
