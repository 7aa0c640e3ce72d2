"""The control code as LLVM IR (`compiled.asm["llvm"]`), written beside the instruction stream.

What the control core runs, in the form LLVM tools read (`llvm-as` accepts it; LLVM 14 with
`-opaque-pointers`): the kernel's scalar code as typed SSA instructions, structured control flow as
basic blocks with phis, and every engine command, circular-buffer pop and read as a call to an
external `@mtia.<mnemonic>` function. A command's arguments follow its ISA fields in order: a tile
is two i32 (its CB and mode: 0 keep, 1 pop, 2 push, 3 acc; CB -1 is no tile), a list is its length
then its elements, a name is a string constant, numbers are i64 and double. Block values live in
CBs, so they appear only as CB numbers.
"""
from __future__ import annotations

import re
import struct

from isa.types import Tile

from ...ir import Op
from ...ir.core import Operation, Value
from .emitter import Proto, VReg
from .intrinsics import ENGINE_UNITS

_MODES = {"keep": 0, "pop": 1, "push": 2, "acc": 3}
_INT = {Op.ADDI: "add", Op.SUBI: "sub", Op.MULI: "mul", Op.DIVSI: "sdiv", Op.DIVUI: "udiv", Op.REMSI: "srem",
        Op.REMUI: "urem", Op.ANDI: "and", Op.ORI: "or", Op.XORI: "xor", Op.SHLI: "shl", Op.SHRSI: "ashr",
        Op.SHRUI: "lshr"}
_FLOAT = {Op.ADDF: "fadd", Op.SUBF: "fsub", Op.MULF: "fmul", Op.DIVF: "fdiv", Op.PRECISE_DIVF: "fdiv"}
_INTRINSICS = {Op.MAXSI: "smax", Op.MINSI: "smin", Op.MAXUI: "umax", Op.MINUI: "umin", Op.MAXNUMF: "maxnum",
               Op.MINNUMF: "minnum", Op.MAXIMUMF: "maximum", Op.MINIMUMF: "minimum", Op.SQRT: "sqrt",
               Op.PRECISE_SQRT: "sqrt"}
_CASTS = {Op.EXTSI: "sext", Op.EXTUI: "zext", Op.TRUNCI: "trunc", Op.SITOFP: "sitofp", Op.UITOFP: "uitofp",
          Op.FPTOSI: "fptosi", Op.FPTOUI: "fptoui", Op.EXTF: "fpext", Op.TRUNCF: "fptrunc", Op.BITCAST: "bitcast",
          Op.PTR_TO_INT: "ptrtoint", Op.INT_TO_PTR: "inttoptr"}
_ICMP = {"eq": "eq", "ne": "ne", "slt": "slt", "sle": "sle", "sgt": "sgt", "sge": "sge", "ult": "ult", "ule": "ule",
         "ugt": "ugt", "uge": "uge"}


def ltype(t) -> str:
    """The LLVM type of a scalar IR type (signedness lives in the instructions, as in LLVM)."""
    if t.is_ptr():
        return "ptr"
    ir = t.ir
    if ir == "i1":
        return "i1"
    if ir in ("f16", "bf16", "f32", "f64"):
        return {"f16": "half", "bf16": "bfloat", "f32": "float", "f64": "double"}[ir]
    if ir.startswith("f8"):
        return "i8"
    return f"i{t.int_bitwidth}"


def float_literal(x: float, lt: str) -> str:
    """LLVM spells floats exactly in hex: doubles (and floats, as the double of their f32 value)."""
    if lt == "half":
        return "0xH%04X" % struct.unpack("<H", struct.pack("<e", x))[0]
    if lt == "bfloat":
        return "0xR%04X" % (struct.unpack("<I", struct.pack("<f", x))[0] >> 16)
    if lt == "float":
        x = struct.unpack("<f", struct.pack("<f", x))[0]
    return "0x%016X" % struct.unpack("<Q", struct.pack("<d", x))[0]


def int_literal(c: int, bits: int) -> str:
    if bits == 1:
        return "true" if c & 1 else "false"
    c &= (1 << bits) - 1
    return str(c - (1 << bits) if c >> (bits - 1) else c)


class LlvmListing:
    """Collects the LLVM IR; the codegen tells it what it lowered, in program order."""

    def __init__(self, g):
        self.g = g
        self.lines: list[str] = []
        self.declarations: dict[str, str] = {}
        self.strings: dict[str, str] = {}
        self.names: dict[Value, str] = {}
        self.taken: set[str] = set()
        self.block = "entry"
        self.labels = 0
        self.loops: list[dict] = []

    def text(self) -> str:
        f = self.g.func
        head = [f"; ModuleID = '{f.attrs.get('sym_name', 'kernel')}'", ""]
        head += [f"{g} = private unnamed_addr constant [{len(b)} x i8] c\"{_escape(b)}\"" for b, g in
                 ((s.encode() + b"\0", name) for s, name in self.strings.items())]
        head += sorted(self.declarations.values())
        return "\n".join(head + [""] + self.lines) + "\n"

    # ---- names and operands ------------------------------------------------------------------
    def fresh(self, hint: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_.]", "_", hint)
        if not base or base[0].isdigit():
            base = "v" + base
        cand, k = base, 0
        while cand in self.taken:
            k += 1
            cand = f"{base}.{k}"
        self.taken.add(cand)
        return cand

    def name(self, v: Value) -> str:
        if v not in self.names:
            self.names[v] = "%" + self.fresh(v.name_hint or "v")
        return self.names[v]

    def value(self, v: Value) -> str:
        """v as an operand: a constant's literal, else its SSA name."""
        op = v.owner
        if isinstance(op, Operation) and op.name == Op.CONSTANT and not v.type.is_block():
            return self.constant(op.attrs["value"], v.type)
        return self.name(v)

    def constant(self, c, t) -> str:
        lt = ltype(t)
        if lt in ("half", "bfloat", "float", "double"):
            return float_literal(float(c), lt)
        if lt == "ptr":
            return "null" if int(c) == 0 else f"inttoptr (i64 {int(c)} to ptr)"
        return int_literal(int(c), int(lt[1:]))

    def typed(self, v: Value) -> str:
        return f"{ltype(v.type)} {self.value(v)}"

    def string(self, s: str) -> str:
        if s not in self.strings:
            self.strings[s] = f"@.str.{len(self.strings)}"
        return f"ptr {self.strings[s]}"

    def declare(self, name: str, ret: str, params: str = "...") -> str:
        self.declarations.setdefault(name, f"declare {ret} @{name}({params})")
        return f"@{name}"

    def call(self, ret: str, fn: str, args, params: str = "...", dest: str | None = None) -> None:
        callee = self.declare(fn, ret, params)
        sig = f"{ret} (...)" if params == "..." else ret
        self.inst(f"{dest + ' = ' if dest else ''}call {sig} {callee}({', '.join(args)})")

    def inst(self, text: str) -> None:
        self.lines.append("  " + text)

    def label(self, stem: str) -> str:
        self.labels += 1
        return f"{stem}.{self.labels}"

    def start(self, label: str) -> None:
        self.lines.append(f"{label}:")
        self.block = label

    def _operand(self, x, kind=None) -> list[str]:
        if isinstance(x, Tile):
            return [f"i32 {x.cb}", f"i32 {_MODES[x.mode]}"]
        if x is None:
            return ["i32 -1", "i32 0"] if kind is not None and "Tile" in kind.__name__ else ["i64 0"]
        if isinstance(x, VReg):
            src = self.g.sources.get(x)
            if isinstance(src, Value):
                return [self.typed(src)]
            return [f"i64 {int(src)}"] if src is not None else ["i64 0"]
        if isinstance(x, (tuple, list)):
            return [f"i32 {len(x)}"] + [a for e in x for a in self._operand(e)]
        if isinstance(x, str):
            return [self.string(x)]
        if isinstance(x, bool) or isinstance(x, int):
            return [f"i64 {int(x)}"]
        return [f"double {float_literal(float(x), 'double')}"]

    # ---- what the codegen lowered ------------------------------------------------------------
    def header(self) -> None:
        f = self.g.func
        params = ", ".join(f"{ltype(a.type)} {self.name(a)}" for a in f.body.args)
        self.lines.append(f"define void @{self.fresh(f.attrs.get('sym_name', 'kernel'))}({params}) {{")
        self.start("entry")

    def finish(self) -> None:
        self.inst("ret void")
        self.lines.append("}")

    def commands(self, op: Operation | None, protos) -> None:
        for p in protos:
            if not isinstance(p, Proto) or p.cls.unit not in ENGINE_UNITS:
                continue
            args = []
            for name, kind, has_default in p.cls.fields:
                default = p.cls.__dataclass_fields__[name].default if has_default else None
                args += self._operand(p.fields.get(name, default), kind)
            if op is not None and op.loc:
                self.inst(f"; line {op.loc.line}")
            self.call("void", f"mtia.{p.cls.mnemonic}", args)

    def cb_pop(self, sid: int, why: str = "") -> None:
        self.call("void", "mtia.cb.pop", [f"i32 {sid}"], "i32")

    def fetch(self, v: Value, sid: int) -> None:
        lt = ltype(v.type)
        self.call(lt, f"mtia.cb.read.{lt}", [f"i32 {sid}"], "i32", self.name(v))

    def scalar_op(self, op: Operation) -> None:
        name = op.name
        if name == Op.STORE:
            self._guarded(op.mask, lambda: self.inst(f"store {self.typed(op.value)}, ptr {self.value(op.ptr)}"))
            return
        if name == Op.DEBUG_BARRIER:
            self.call("void", "mtia.fence", [], "")
            return
        if not op.results:
            return
        r = op.result
        d, t = self.name(r), ltype(r.type)
        o = op.operands
        if name == Op.LOAD:
            self._load(op, d, t)
        elif name in _INT:
            self.inst(f"{d} = {_INT[name]} {t} {self.value(o[0])}, {self.value(o[1])}")
        elif name in _FLOAT:
            self.inst(f"{d} = {_FLOAT[name]} {t} {self.value(o[0])}, {self.value(o[1])}")
        elif name in _INTRINSICS:
            fn = f"llvm.{_INTRINSICS[name]}.{ {'float': 'f32', 'double': 'f64', 'half': 'f16'}.get(t, t) }"
            self.call(t, fn, [self.typed(v) for v in o], ", ".join(t for _ in o), d)
        elif name == Op.ABSI:                                # the most negative integer stays itself
            self.call(t, f"llvm.abs.{t}", [self.typed(o[0]), "i1 false"], f"{t}, i1", d)
        elif name == Op.NEGF:
            self.inst(f"{d} = fneg {t} {self.value(o[0])}")
        elif name == Op.CMPI:
            self.inst(f"{d} = icmp {_ICMP[op.attrs['predicate']]} {self.typed(o[0])}, {self.value(o[1])}")
        elif name == Op.CMPF:
            self.inst(f"{d} = fcmp {op.attrs['predicate']} {self.typed(o[0])}, {self.value(o[1])}")
        elif name == Op.SELECT:
            self.inst(f"{d} = select {self.typed(o[0])}, {self.typed(o[1])}, {self.typed(o[2])}")
        elif name == Op.ADDPTR:
            elem = ltype(op.ptr.type.element_ty) if not op.ptr.type.element_ty.is_ptr() else "ptr"
            self.inst(f"{d} = getelementptr {elem}, ptr {self.value(op.ptr)}, {self.typed(op.offset)}")
        elif name == Op.PTR_BITCAST:
            self.names[r] = self.value(o[0])                 # one address, whatever it points to
        elif name == Op.FP_TO_FP:
            wider = r.type.scalar.bitwidth > o[0].type.scalar.bitwidth
            self.inst(f"{d} = {'fpext' if wider else 'fptrunc'} {self.typed(o[0])} to {t}")
        elif name in (Op.FPTOSI, Op.FPTOUI) and not o[0].type.is_block():
            # fptosi/fptoui of a value out of range is poison; the .sat intrinsics are what we promise
            fn = f"llvm.{_CASTS[name]}.sat.{t}.{o[0].type.ir}"
            self.call(t, fn, [self.typed(o[0])], ltype(o[0].type), d)
        elif name in _CASTS:
            self.inst(f"{d} = {_CASTS[name]} {self.typed(o[0])} to {t}")
        elif name in (Op.GET_PROGRAM_ID, Op.GET_NUM_PROGRAMS):
            fn = "mtia.program_id" if name == Op.GET_PROGRAM_ID else "mtia.num_programs"
            self.call("i32", fn, [f"i32 {op.attrs['axis']}"], "i32", d)
        elif name == Op.GET_PE_ID:
            self.call("i32", "mtia.pe_id", [], "", d)
        else:
            raise ValueError(f"the LLVM listing cannot spell {name}")

    def _load(self, op: Operation, d: str, t: str) -> None:
        if op.mask is None:
            self.inst(f"{d} = load {t}, ptr {self.value(op.ptr)}")
            return
        loaded = "%" + self.fresh(d[1:] + ".loaded")
        pred = self.block
        other = self.value(op.other) if op.other is not None else self.constant(0, op.result.type)
        body = self._guarded(op.mask, lambda: self.inst(f"{loaded} = load {t}, ptr {self.value(op.ptr)}"))
        self.inst(f"{d} = phi {t} [ {loaded}, %{body} ], [ {other}, %{pred} ]")

    def _guarded(self, mask: Value | None, emit) -> str | None:
        """Run `emit` in a block entered only when mask holds (always, without a mask)."""
        if mask is None:
            emit()
            return None
        then, done = self.label("masked"), self.label("masked.end")
        self.inst(f"br i1 {self.value(mask)}, label %{then}, label %{done}")
        self.start(then)
        emit()
        self.inst(f"br label %{done}")
        self.start(done)
        return then

    def device_assert(self, op: Operation, flag_cb: int | None) -> None:
        msg = self.string(str(op.attrs.get("message", "assertion failed")))
        if flag_cb is None:
            flag = self.typed(op.cond)
        else:
            flag = "%" + self.fresh("assert.flag")
            self.call("i1", "mtia.cb.read.i1", [f"i32 {flag_cb}"], "i32", flag)
            flag = f"i1 {flag}"
        self.call("void", "mtia.device.assert", [flag, msg], "i1, ptr")
        if flag_cb is not None:
            self.cb_pop(flag_cb)

    def rvv_loop(self, op: Operation, mnemonic: str, out: Tile, sources) -> None:
        args = [self.string(mnemonic)] + self._operand(out)
        for s in sources:
            args += [self.typed(s)] if isinstance(s, Value) else self._operand(s)
        self.call("void", "mtia.rvv.loop", args)

    def re_reduce(self, op: Operation, value: int, partial: int, total: int) -> None:
        self.call("void", "mtia.re.all_reduce", [self.string(op.attrs.get("op", "sum")), f"i32 {value}",
                                                 f"i32 {partial}", f"i32 {total}"])

    def early_return(self) -> None:
        self.inst("ret void")
        self.start(self.label("after.return"))

    # ---- structured control flow: blocks and phis ----------------------------------------------
    def _phis(self, at: int, rows) -> None:
        """Insert phi nodes at line `at` (the top of a loop header) once the latch is known."""
        self.lines[at:at] = [f"  {d} = phi {t} {', '.join(f'[ {v}, %{b} ]' for v, b in incoming)}"
                             for d, t, incoming in rows]

    def for_open(self, op: Operation) -> None:
        cond, body, end = self.label("for.cond"), self.label("for.body"), self.label("for.end")
        pred = self.block
        self.inst(f"br label %{cond}")
        self.start(cond)
        iv = op.body.args[0]
        self.loops.append({"pred": pred, "cond": cond, "end": end, "at": len(self.lines)})
        for r, a in zip(op.results, op.body.args[1:]):
            self.names[r] = self.name(a)                     # the loop's results are the header's phis
        cmp = "ult" if op.lower.type.is_int_unsigned() else "slt"
        test = "%" + self.fresh(f"{self.name(iv)[1:]}.test")
        self.inst(f"{test} = icmp {cmp} {self.typed(iv)}, {self.value(op.upper)}")
        self.inst(f"br i1 {test}, label %{body}, label %{end}")
        self.start(body)

    def for_close(self, op: Operation) -> None:
        loop = self.loops.pop()
        iv = op.body.args[0]
        t = ltype(iv.type)
        step = "%" + self.fresh(f"{self.name(iv)[1:]}.next")
        self.inst(f"{step} = add {t} {self.name(iv)}, {self.value(op.step)}")
        self.inst(f"br label %{loop['cond']}")
        latch = self.block
        y = op.body.terminator
        rows = [(self.name(iv), t, [(self.value(op.lower), loop["pred"]), (step, latch)])]
        rows += [(self.name(a), ltype(a.type), [(self.value(init), loop["pred"]), (self.value(v), latch)])
                 for a, init, v in zip(op.body.args[1:], op.inits, y.values) if not a.type.is_block()]
        self._phis(loop["at"], rows)
        self.start(loop["end"])

    def if_open(self, op: Operation) -> None:
        then, other, end = self.label("if.then"), self.label("if.else"), self.label("if.end")
        self.loops.append({"else": other, "end": end, "exits": []})
        self.inst(f"br i1 {self.value(op.cond)}, label %{then}, label %{other}")
        self.start(then)

    def if_branch_end(self, op: Operation, region_index: int) -> None:
        frame = self.loops[-1]
        frame["exits"].append((self.block, op.regions[region_index].block.terminator))
        self.inst(f"br label %{frame['end']}")
        if region_index == 0:
            self.start(frame["else"])
            return
        self.loops.pop()
        self.start(frame["end"])
        for j, r in enumerate(op.results):
            if not r.type.is_block():
                incoming = ", ".join(f"[ {self.value(y.values[j])}, %{b} ]" for b, y in frame["exits"])
                self.inst(f"{self.name(r)} = phi {ltype(r.type)} {incoming}")

    def while_open(self, op: Operation) -> None:
        before, after, end = self.label("while.before"), self.label("while.after"), self.label("while.end")
        pred = self.block
        self.inst(f"br label %{before}")
        self.start(before)
        self.loops.append({"pred": pred, "before": before, "after": after, "end": end, "at": len(self.lines)})

    def while_test(self, op: Operation) -> None:
        frame = self.loops[-1]
        cond = op.regions[0].block.terminator
        for a, r, v in zip(op.regions[1].block.args, op.results, cond.values):
            if not v.type.is_block():
                self.names[a] = self.names[r] = self.value(v)
        self.inst(f"br i1 {self.value(cond.cond)}, label %{frame['after']}, label %{frame['end']}")
        self.start(frame["after"])

    def while_close(self, op: Operation) -> None:
        frame = self.loops.pop()
        self.inst(f"br label %{frame['before']}")
        latch = self.block
        before, y = op.regions[0].block, op.regions[1].block.terminator
        self._phis(frame["at"], [(self.name(a), ltype(a.type), [(self.value(init), frame["pred"]),
                                                                 (self.value(v), latch)])
                                 for a, init, v in zip(before.args, op.inits, y.values) if not a.type.is_block()])
        self.start(frame["end"])


def _escape(b: bytes) -> str:
    return "".join(chr(c) if 32 <= c < 127 and c not in (34, 92) else f"\\{c:02X}" for c in b)
