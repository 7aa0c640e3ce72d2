"""Print IR as MLIR-like text; `parser.py` reads the same text back (print -> parse -> print is exact).

One line per op, in one uniform format so that a single parser reads every op:

    %res, %res2 = op.name %a, %b {attr = 1, other = "x"} : type1, type2 loc("k.py":3:5) {
    ^bb0(%arg: i32):          <- block arguments, when the region's block has any
      ...
    }, {                      <- the next region of the same op
      ...
    }

Operand types are not repeated (every operand's type is where it was defined). Values print as
their Python name when the frontend gave one (`%offs`, `%offs_1`, ...) and as numbers otherwise.
"""
from __future__ import annotations

import json
import math

from .core import Block, Module, Operation, Value

_INDENT = "  "


class Namer:
    """Gives every value a unique printed name within one print (source names first, else numbers)."""

    def __init__(self):
        self.names: dict[int, str] = {}
        self.taken: set[str] = set()
        self.counter = 0

    def name(self, v: Value) -> str:
        key = id(v)
        if key not in self.names:
            self.names[key] = self._fresh(v.name_hint)
        return "%" + self.names[key]

    def _fresh(self, hint: str | None) -> str:
        if hint:
            cand, k = hint, 0
            while cand in self.taken:
                k += 1
                cand = f"{hint}_{k}"
        else:
            while str(self.counter) in self.taken:
                self.counter += 1
            cand = str(self.counter)
            self.counter += 1
        self.taken.add(cand)
        return cand


def format_attr(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_attr(x) for x in v) + "]"
    if v is None:
        return "none"
    if isinstance(v, dict):
        return format_attrs(v)
    raise TypeError(f"cannot print attribute value {v!r}")


def format_attrs(attrs: dict) -> str:
    return "{" + ", ".join(f"{k} = {format_attr(v)}" for k, v in attrs.items()) + "}"


def format_loc(loc) -> str:
    return f'loc({json.dumps(loc.file)}:{loc.line}:{loc.col})'


class Printer:
    def __init__(self, with_locs: bool = False):
        self.namer = Namer()
        self.with_locs = with_locs
        self.lines: list[str] = []

    def emit(self, depth: int, text: str) -> None:
        self.lines.append(_INDENT * depth + text)

    def print_op(self, op: Operation, depth: int) -> None:
        if op.name == "builtin.module":
            self.emit(depth, "module {")
            self.print_block_ops(op.body, depth + 1)
            self.emit(depth, "}")
            return
        if op.name == "tt.func":
            self.print_func(op, depth)
            return
        text = ""
        if op.results:
            text += ", ".join(self.namer.name(r) for r in op.results) + " = "
        text += op.name
        if op.operands:
            text += " " + ", ".join(self.namer.name(v) for v in op.operands)
        if op.attrs:
            text += " " + format_attrs(op.attrs)
        if op.results:
            text += " : " + ", ".join(r.type.ir for r in op.results)
        if self.with_locs and op.loc is not None:
            text += " " + format_loc(op.loc)
        if not op.regions:
            self.emit(depth, text)
            return
        self.emit(depth, text + " {")
        for i, region in enumerate(op.regions):
            if i:
                self.emit(depth, "}, {")
            self.print_block(region.block, depth)
        self.emit(depth, "}")

    def print_func(self, op: Operation, depth: int) -> None:
        body = op.body
        arg_attrs = op.attrs.get("arg_attrs") or [{}] * len(body.args)
        params = []
        for a, attrs in zip(body.args, arg_attrs):
            p = f"{self.namer.name(a)}: {a.type.ir}"
            if attrs:
                p += " " + format_attrs(attrs)
            params.append(p)
        rest = {k: v for k, v in op.attrs.items() if k not in ("sym_name", "arg_attrs")}
        head = f"tt.func @{op.attrs['sym_name']}({', '.join(params)})"
        if rest:
            head += " attributes " + format_attrs(rest)
        self.emit(depth, head + " {")
        self.print_block_ops(body, depth + 1)
        self.emit(depth, "}")

    def print_block(self, block: Block, depth: int) -> None:
        if block.args:
            args = ", ".join(f"{self.namer.name(a)}: {a.type.ir}" for a in block.args)
            self.emit(depth, f"^bb0({args}):")
        self.print_block_ops(block, depth + 1)

    def print_block_ops(self, block: Block, depth: int) -> None:
        for op in block.ops:
            self.print_op(op, depth)


def print_module(module: Module, with_locs: bool = False) -> str:
    p = Printer(with_locs)
    p.print_op(module, 0)
    return "\n".join(p.lines) + "\n"


def print_op(op: Operation, with_locs: bool = False) -> str:
    p = Printer(with_locs)
    p.print_op(op, 0)
    return "\n".join(p.lines) + "\n"
