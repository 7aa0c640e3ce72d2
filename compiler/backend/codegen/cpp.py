"""The C++ rendering of a kernel (`compiled.asm["cpp"]`), written beside the instruction stream.

It is for people, and it compiles: `g++ -std=c++20 -fsyntax-only` accepts it against
`mtia_intrinsics.h` (see intrinsics.py). Scalar code reads as C++ on the kernel's own names, each
engine command as a call with its fields by name (`mtia::dpe_mm({.out = cb0.acc, .a = cb1.pop, ...})`)
on the kernel's circular buffers (`cb0`, declared at the top with the storage they hold), loops as
loops whose carried scalars are assigned at the back edge.
"""
from __future__ import annotations

import json
import math
import re

from isa.types import Tile

from ...ir import Op
from ...ir.core import Operation, Value
from .emitter import Proto, VReg
from .intrinsics import ENGINE_UNITS

_CTYPES = {"i1": "bool", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t", "u8": "uint8_t",
           "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t", "f16": "mtia::half", "bf16": "mtia::bfloat16",
           "f32": "float", "f64": "double", "f8e4m3": "mtia::f8e4m3", "f8e5m2": "mtia::f8e5m2"}
_BIN = {Op.ADDI: "+", Op.ADDF: "+", Op.SUBI: "-", Op.SUBF: "-", Op.MULI: "*", Op.MULF: "*", Op.DIVSI: "/",
        Op.DIVUI: "/", Op.DIVF: "/", Op.PRECISE_DIVF: "/", Op.REMSI: "%", Op.REMUI: "%", Op.ANDI: "&", Op.ORI: "|",
        Op.XORI: "^", Op.SHLI: "<<", Op.SHRSI: ">>", Op.SHRUI: ">>", Op.ADDPTR: "+"}
_CMP = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=", "ult": "<", "ule": "<=",
        "ugt": ">", "uge": ">=", "oeq": "==", "une": "!=", "one": "!=", "olt": "<", "ole": "<=", "ogt": ">",
        "oge": ">="}
_CASTS = (Op.EXTSI, Op.EXTUI, Op.TRUNCI, Op.SITOFP, Op.UITOFP, Op.FPTOSI, Op.FPTOUI, Op.EXTF, Op.TRUNCF,
          Op.FP_TO_FP, Op.PTR_TO_INT, Op.INT_TO_PTR, Op.PTR_BITCAST)
_CALLS = {Op.MAXSI: "maxsi", Op.MINSI: "minsi", Op.MAXUI: "maxui", Op.MINUI: "minui", Op.MAXNUMF: "maxnumf",
          Op.MINNUMF: "minnumf", Op.MAXIMUMF: "maximumf", Op.MINIMUMF: "minimumf", Op.SQRT: "sqrt",
          Op.PRECISE_SQRT: "sqrt", Op.ABSI: "absi"}
# names a kernel variable may not take in C++ (keywords, alternative tokens, the listing's own)
_RESERVED = set("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return
co_yield decltype default delete do double dynamic_cast else enum explicit export extern false float for
friend goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
protected public register reinterpret_cast requires return short signed sizeof static static_assert
static_cast struct switch template this thread_local throw true try typedef typeid typename union unsigned
using virtual void volatile wchar_t while xor xor_eq mtia std main""".split())


def ctype(t) -> str:
    if t.is_ptr():
        return f"{ctype(t.element_ty)}*"
    return _CTYPES.get(t.ir, t.ir)


def literal(c, t=None) -> str:
    """A C++ literal for a Python constant (of IR type t when known)."""
    if isinstance(c, bool):
        return "true" if c else "false"
    if isinstance(c, int):
        if t is not None and t.is_floating():
            return f"{float(c)!r}"
        if not -(1 << 63) <= c < 1 << 63:
            return f"{c}ULL"
        return str(c) if -(1 << 31) <= c < 1 << 31 else f"{c}LL"
    if math.isnan(c):
        return "mtia::nan"
    if math.isinf(c):
        return "mtia::inf" if c > 0 else "-mtia::inf"
    return repr(float(c))


class CppListing:
    """Collects the C++ lines; the codegen tells it what it lowered, in program order."""

    def __init__(self, g):
        self.g = g
        self.lines: list[str] = []
        self.indent = 1
        self.taken: set[str] = set(_RESERVED)
        self.names: dict[Value, str] = {}
        self.types: dict[str, str] = {}                # variable -> its C++ type

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def line(self, text: str) -> None:
        self.lines.append("  " * self.indent + text)

    # ---- names -------------------------------------------------------------------------------
    def fresh(self, hint: str | None) -> str:
        """A new C++ identifier from a value's name: sanitised and unique in the listing."""
        base = re.sub(r"\W", "_", hint or "v")
        if base[0].isdigit():
            base = "v" + base
        cand, k = base, 0
        while cand in self.taken or re.fullmatch(r"cb\d+", cand):
            k += 1
            cand = f"{base}_{k}"
        self.taken.add(cand)
        return cand

    def name(self, v: Value) -> str:
        """A scalar constant's literal, else the value's variable (values sharing a register share it)."""
        if not v.type.is_block():
            op = v.owner
            if isinstance(op, Operation) and op.name == Op.CONSTANT:
                return literal(op.attrs["value"], v.type)
        if v in self.names:
            return self.names[v]
        r = self.g.regs.get(v)
        if r is not None and r.hint and self.types.get(r.hint, ctype(v.type)) == ctype(v.type):
            return r.hint                            # the register's variable, of this type
        # a value of its own, or one sharing a register with a value of another C++ type (an i32
        # sign-extended in place to i64): a variable of its own, declared with a cast
        hint = v.name_hint or (r.hint if r is not None and r.hint else f"v{r.n}" if r is not None else "v")
        name = self.names[v] = self.fresh(hint)
        self.types[name] = ctype(v.type)
        return name

    def declare(self, v: Value, rhs: str | None = None) -> None:
        self.line(f"{ctype(v.type)} {self.name(v)}" + (f" = {rhs};" if rhs is not None else ";"))

    def _operand(self, x) -> str:
        if isinstance(x, Tile):
            return f"cb{x.cb}.{x.mode}"
        if isinstance(x, VReg):
            return x.hint
        if isinstance(x, (tuple, list)):
            return "{" + ", ".join(self._operand(e) for e in x) + "}"
        if isinstance(x, str):
            return json.dumps(x)
        return literal(x)

    # ---- what the codegen lowered ------------------------------------------------------------
    def header(self) -> None:
        f = self.g.func
        args = ", ".join(f"{ctype(a.type)} {self.name(a)}" for a in f.body.args)
        self.lines.append('#include "mtia_intrinsics.h"')
        self.lines.append("")
        self.lines.append(f"void {self.fresh(f.attrs.get('sym_name', 'kernel'))}({args}) {{")
        for st in self.g.plan.storages:
            self.line(f"const mtia::buffer cb{st.id}{{{st.id}}};   // {st.name}: {st.nbytes} B per slot")

    def finish(self) -> None:
        self.indent = 0
        self.line("}")

    def commands(self, op: Operation | None, protos) -> None:
        """One call per engine command the op became (their tile modes final: pops marked)."""
        for p in protos:
            if not isinstance(p, Proto) or p.cls.unit not in ENGINE_UNITS:
                continue
            fields = ", ".join(f".{k} = {self._operand(v)}" for k, v in p.fields.items() if v not in ((), None))
            out = next((v for v in p.fields.values() if isinstance(v, Tile) and v.mode in ("push", "acc")), None)
            note = f"   // {out.dtype}[{'x'.join(map(str, out.shape))}]" if out is not None else ""
            if op is not None and op.loc:
                note += f"{'  ' if note else '   //'} (line {op.loc.line})"
            self.line(f"mtia::{p.cls.mnemonic.replace('.', '_')}({{{fields}}});{note}")

    def cb_pop(self, sid: int, why: str = "") -> None:
        self.line(f"mtia::cb_pop(cb{sid});" + (f"   // {why}" if why else ""))

    def fetch(self, v: Value, sid: int) -> None:
        self.declare(v, f"mtia::cb_read<{ctype(v.type)}>(cb{sid})")

    def scalar_op(self, op: Operation) -> None:
        n = self.name
        if op.name == Op.STORE:
            store = f"*{n(op.ptr)} = {n(op.value)};"
            self.line(f"if ({n(op.mask)}) {store}" if op.mask is not None else store)
            return
        if op.name == Op.DEBUG_BARRIER:
            self.line("mtia::fence();")
            return
        if not op.results:
            return
        r = op.results[0]
        if op.operands and self.name(r) == self.name(op.operands[0]):
            return                                   # the same register and C++ type: no code
        self.declare(r, self._expression(op))

    def _expression(self, op: Operation) -> str:
        n, o, r = self.name, op.operands, op.results[0]
        if op.name in _BIN:
            return f"{n(o[0])} {_BIN[op.name]} {n(o[1])}"
        if op.name in (Op.CMPI, Op.CMPF):
            pred = op.attrs["predicate"]
            if pred in ("ord", "uno"):
                return f"{'!' if pred == 'uno' else ''}mtia::ordered({n(o[0])}, {n(o[1])})"
            return f"{n(o[0])} {_CMP[pred]} {n(o[1])}"
        if op.name == Op.GET_PROGRAM_ID:
            return f"mtia::program_id({op.attrs['axis']})"
        if op.name == Op.GET_NUM_PROGRAMS:
            return f"mtia::num_programs({op.attrs['axis']})"
        if op.name == Op.GET_PE_ID:
            return "mtia::pe_id()"
        if op.name == Op.LOAD:
            if op.mask is None:
                return f"*{n(op.ptr)}"
            other = n(op.other) if op.other is not None else "0"
            return f"{n(op.mask)} ? {ctype(r.type)}(*{n(op.ptr)}) : {ctype(r.type)}({other})"
        if op.name == Op.SELECT:
            return f"{n(o[0])} ? {n(o[1])} : {n(o[2])}"
        if op.name == Op.NEGF:
            return f"-{n(o[0])}"
        if op.name == Op.EXTUI and ctype(o[0].type).startswith("int"):     # zero-extend: through unsigned
            return f"({ctype(r.type)})(u{ctype(o[0].type)}){n(o[0])}"
        if op.name in (Op.FPTOSI, Op.FPTOUI):            # a C cast of a value out of range is undefined
            return f"mtia::fptoi_sat<{ctype(r.type)}>({n(o[0])})"
        if op.name in _CASTS:
            return f"({ctype(r.type)}){n(o[0])}"
        if op.name == Op.BITCAST:
            return f"mtia::bitcast<{ctype(r.type)}>({n(o[0])})"
        if op.name in _CALLS:
            return f"mtia::{_CALLS[op.name]}({', '.join(n(v) for v in o)})"
        raise ValueError(f"the C++ listing cannot spell {op.name}")

    def device_assert(self, op: Operation, flag_cb: int | None) -> None:
        """On the scalar condition, or on the flag the RE wrote into storage `flag_cb` (then popped)."""
        flag = self.name(op.cond) if flag_cb is None else f"mtia::cb_read<bool>(cb{flag_cb})"
        self.line(f"mtia::device_assert({flag}, {json.dumps(str(op.attrs.get('message', 'assertion failed')))});")
        if flag_cb is not None:
            self.cb_pop(flag_cb)

    def rvv_loop(self, op: Operation, mnemonic: str, out: Tile, sources) -> None:
        """`sources`: each operand's tile, or its scalar (a Value or a constant)."""
        a, b = (self.name(s) if isinstance(s, Value) else self._operand(s) for s in sources)
        where = f"   // (line {op.loc.line})" if op.loc else ""
        self.line(f'mtia::rvv_loop("{mnemonic}", {self._operand(out)}, {a}, {b});{where}')

    def re_reduce(self, op: Operation, value: int, partial: int, total: int) -> None:
        self.line(f'mtia::re_all_reduce("{op.attrs.get("op", "sum")}", cb{value}.keep, cb{partial}.keep, '
                  f"cb{total}.keep);   // a chain over the reduction network, then a broadcast")

    def early_return(self) -> None:
        self.line("return;")

    # ---- structured control flow -------------------------------------------------------------
    def _assign(self, pairs) -> None:
        """dst_i = src_i all at once (a source that is also a destination is read first)."""
        pairs = [(d, s) for d, s in pairs if d != s]
        dests = {d for d, _ in pairs}
        staged = []
        for d, s in pairs:
            if s in dests:
                t = self.fresh(f"{d}_next")
                self.line(f"const auto {t} = {s};")
                s = t
            staged.append((d, s))
        for d, s in staged:
            self.line(f"{d} = {s};")

    def _scalars(self, values):
        return [v for v in values if not v.type.is_block()]

    def for_open(self, op: Operation) -> None:
        for init, arg in zip(op.inits, op.body.args[1:]):
            if not arg.type.is_block():
                self.declare(arg, self.name(init))
        i = self.name(op.body.args[0])
        self.line(f"for ({ctype(op.lower.type)} {i} = {self.name(op.lower)}; {i} < {self.name(op.upper)}; "
                  f"{i} += {self.name(op.step)}) {{")
        self.indent += 1

    def for_close(self, op: Operation) -> None:
        y = op.body.terminator
        self._assign([(self.name(a), self.name(v)) for a, v in zip(op.body.args[1:], y.values)
                      if not a.type.is_block()])
        self.indent -= 1
        self.line("}")

    def if_open(self, op: Operation) -> None:
        for r in self._scalars(op.results):
            self.declare(r)
        self.line(f"if ({self.name(op.cond)}) {{")
        self.indent += 1

    def if_branch_end(self, op: Operation, region_index: int) -> None:
        y = op.regions[region_index].block.terminator
        self._assign([(self.name(r), self.name(v)) for r, v in zip(op.results, y.values) if not r.type.is_block()])
        self.indent -= 1
        self.line("} else {" if region_index == 0 and len(op.regions) > 1 else "}")
        if region_index == 0 and len(op.regions) > 1:
            self.indent += 1

    def while_open(self, op: Operation) -> None:
        before, after = op.regions[0].block, op.regions[1].block
        for init, arg in zip(op.inits, before.args):
            if not arg.type.is_block():
                self.declare(arg, self.name(init))
        for arg in self._scalars(after.args):
            self.declare(arg)
        self.line("while (true) {")
        self.indent += 1

    def while_test(self, op: Operation) -> None:
        cond = op.regions[0].block.terminator
        after = op.regions[1].block
        self._assign([(self.name(a), self.name(v)) for a, v in zip(after.args, cond.values) if not a.type.is_block()])
        self.line(f"if (!{self.name(cond.cond)}) break;")

    def while_close(self, op: Operation) -> None:
        before, y = op.regions[0].block, op.regions[1].block.terminator
        self._assign([(self.name(a), self.name(v)) for a, v in zip(before.args, y.values) if not a.type.is_block()])
        self.indent -= 1
        self.line("}")
