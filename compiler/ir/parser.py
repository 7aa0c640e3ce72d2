"""Parse the text that `printer.py` writes back into IR (see the printer for the format)."""
from __future__ import annotations

import json
import re

from .core import Block, Loc, Module, Operation, Region, Value
from .types import SCALARS, BlockType, PointerType, TensorDescType, Type


class ParseError(Exception):
    pass


_NAME = re.compile(r"%([A-Za-z0-9_.$]+)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_NUMBER = re.compile(r"-?(?:0x[0-9a-fA-F]+|\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+)")


def parse_type(text: str) -> Type:
    """A type from its IR spelling: i32, ptr<f16>, tensor<128x64xf32>, desc<64x64xf16>."""
    t, rest = _parse_type_prefix(text.strip())
    if rest.strip():
        raise ParseError(f"trailing text after type: {text!r}")
    return t


def _parse_type_prefix(s: str) -> tuple[Type, str]:
    for head, make in (("tensor<", None), ("desc<", TensorDescType)):
        if s.startswith(head):
            body = s[len(head):]
            dims = []
            while True:
                m = re.match(r"(\d+)x", body)
                if not m:
                    break
                dims.append(int(m.group(1)))
                body = body[m.end():]
            elem, body = _parse_type_prefix(body)
            if not body.startswith(">"):
                raise ParseError(f"expected '>' in type {s!r}")
            block = BlockType(tuple(dims), elem)
            return (make(block) if make else block), body[1:]
    if s.startswith("ptr<"):
        elem, body = _parse_type_prefix(s[4:])
        if not body.startswith(">"):
            raise ParseError(f"expected '>' in type {s!r}")
        return PointerType(elem), body[1:]
    m = re.match(r"[a-z0-9]+", s)
    if not m or m.group(0) not in SCALARS:
        raise ParseError(f"unknown type at {s[:20]!r}")
    return SCALARS[m.group(0)], s[m.end():]


class _Line:
    """A cursor over one line of text."""

    def __init__(self, text: str, lineno: int):
        self.s = text
        self.i = 0
        self.lineno = lineno

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1

    def peek(self, tok: str) -> bool:
        self.ws()
        return self.s.startswith(tok, self.i)

    def take(self, tok: str) -> bool:
        if self.peek(tok):
            self.i += len(tok)
            return True
        return False

    def expect(self, tok: str):
        if not self.take(tok):
            self.error(f"expected {tok!r}")

    def match(self, rx: re.Pattern):
        self.ws()
        m = rx.match(self.s, self.i)
        if m:
            self.i = m.end()
        return m

    def at_end(self) -> bool:
        self.ws()
        return self.i >= len(self.s)

    def rest(self) -> str:
        return self.s[self.i:]

    def error(self, msg: str):
        raise ParseError(f"line {self.lineno}: {msg}: {self.s.strip()!r} at column {self.i + 1}")

    # --- attribute values ---
    def attr_value(self):
        self.ws()
        if self.peek('"'):
            dec = json.JSONDecoder()
            val, end = dec.raw_decode(self.s, self.i)
            self.i = end
            return val
        if self.take("["):
            items = []
            if not self.take("]"):
                while True:
                    items.append(self.attr_value())
                    if self.take("]"):
                        break
                    self.expect(",")
            return items
        if self.peek("{"):
            return self.attr_dict()
        for word, val in (("true", True), ("false", False), ("none", None), ("nan", float("nan")),
                          ("inf", float("inf")), ("-inf", float("-inf"))):
            if self.s.startswith(word, self.i) and not (self.s[self.i + len(word):self.i + len(word) + 1].isalnum()):
                self.i += len(word)
                return val
        m = self.match(_NUMBER)
        if not m:
            self.error("expected an attribute value")
        txt = m.group(0)
        if "x" in txt:
            return int(txt, 16)
        if any(c in txt for c in ".eE"):
            return float(txt)
        return int(txt)

    def attr_dict(self) -> dict:
        self.expect("{")
        out = {}
        if self.take("}"):
            return out
        while True:
            m = self.match(_IDENT)
            if not m:
                self.error("expected an attribute name")
            self.expect("=")
            out[m.group(0)] = self.attr_value()
            if self.take("}"):
                return out
            self.expect(",")

    def type(self) -> Type:
        self.ws()
        t, rest = _parse_type_prefix(self.rest())
        self.i = len(self.s) - len(rest)
        return t

    def types(self) -> list[Type]:
        """Comma separated types up to 'loc(', '{' or the end of the line."""
        out = []
        while True:
            self.ws()
            t, rest = _parse_type_prefix(self.rest())
            self.i = len(self.s) - len(rest)
            out.append(t)
            if not self.take(","):
                return out

    def loc(self) -> Loc | None:
        if not self.take("loc("):
            return None
        dec = json.JSONDecoder()
        self.ws()
        file, end = dec.raw_decode(self.s, self.i)
        self.i = end
        m = self.match(re.compile(r":(\d+):(\d+)\)"))
        if not m:
            self.error("bad location")
        return Loc(file, int(m.group(1)), int(m.group(2)))


class Parser:
    def __init__(self, text: str):
        self.lines = [(i + 1, ln) for i, ln in enumerate(text.splitlines()) if ln.strip()]
        self.pos = 0
        self.values: dict[str, Value] = {}

    def next_line(self) -> _Line:
        if self.pos >= len(self.lines):
            raise ParseError("unexpected end of input")
        n, txt = self.lines[self.pos]
        self.pos += 1
        return _Line(txt.strip(), n)

    def peek_line(self) -> str:
        return self.lines[self.pos][1].strip() if self.pos < len(self.lines) else ""

    def define(self, name: str, v: Value, line: _Line):
        if name in self.values:
            line.error(f"value %{name} defined twice")
        v.name_hint = None if name.isdigit() else name
        self.values[name] = v

    def use(self, name: str, line: _Line) -> Value:
        try:
            return self.values[name]
        except KeyError:
            line.error(f"use of undefined value %{name}")

    # --- structure ---
    def parse_module(self) -> Module:
        line = self.next_line()
        if line.s != "module {":
            line.error("expected 'module {'")
        module = Module()
        while self.peek_line() != "}":
            self.parse_func(module.body)
        self.next_line()
        if self.pos != len(self.lines):
            raise ParseError(f"trailing text after module at line {self.lines[self.pos][0]}")
        return module

    def parse_func(self, parent: Block) -> None:
        line = self.next_line()
        if not line.take("tt.func"):
            line.error("expected tt.func")
        m = line.match(re.compile(r"@([A-Za-z0-9_.$]+)\("))
        if not m:
            line.error("expected @name(")
        block = Block()
        arg_attrs = []
        if not line.take(")"):
            while True:
                nm = line.match(_NAME)
                if not nm:
                    line.error("expected an argument name")
                line.expect(":")
                t = line.type()
                arg = block.add_arg(t)
                self.define(nm.group(1), arg, line)
                arg_attrs.append(line.attr_dict() if line.peek("{") and not line.rest().strip() == "{" else {})
                if line.take(")"):
                    break
                line.expect(",")
        attrs = {"sym_name": m.group(1)}
        if any(arg_attrs):
            attrs["arg_attrs"] = arg_attrs
        if line.take("attributes"):
            attrs.update(line.attr_dict())
        line.expect("{")
        func = Operation("tt.func", attrs=attrs, regions=[Region([block])])
        parent.append(func)
        self.parse_ops_until_close(block)
        self.next_line()  # the closing '}'

    def parse_ops_until_close(self, block: Block) -> None:
        while not (self.peek_line() == "}" or self.peek_line() == "}, {"):
            self.parse_op(block)

    def parse_op(self, block: Block) -> None:
        line = self.next_line()
        names = []
        if line.peek("%"):
            while True:
                m = line.match(_NAME)
                if not m:
                    line.error("expected a result name")
                names.append(m.group(1))
                if line.take("="):
                    break
                line.expect(",")
        m = line.match(_IDENT)
        if not m:
            line.error("expected an op name")
        opname = m.group(0)
        operands = []
        if line.peek("%"):
            while True:
                nm = line.match(_NAME)
                if not nm:
                    line.error("expected an operand")
                operands.append(self.use(nm.group(1), line))
                if not line.take(","):
                    break
        attrs = {}
        if line.peek("{") and line.rest().strip() != "{":
            attrs = line.attr_dict()
        types = line.types() if line.take(":") else []
        loc = line.loc()
        has_regions = line.take("{")
        if not line.at_end():
            line.error("unexpected text")
        if len(types) != len(names):
            line.error(f"{len(names)} results but {len(types)} types")
        op = Operation(opname, operands, types, attrs, loc=loc)
        for n, r in zip(names, op.results):
            self.define(n, r, line)
        if has_regions:
            while True:
                blk = Block()
                if self.peek_line().startswith("^"):
                    hdr = self.next_line()
                    hdr.match(re.compile(r"\^[A-Za-z0-9_]*\("))
                    if not hdr.take(")"):
                        while True:
                            nm = hdr.match(_NAME)
                            if not nm:
                                hdr.error("expected a block argument")
                            hdr.expect(":")
                            self.define(nm.group(1), blk.add_arg(hdr.type()), hdr)
                            if hdr.take(")"):
                                break
                            hdr.expect(",")
                    hdr.expect(":")
                self.parse_ops_until_close(blk)
                op.add_region(Region([blk]))
                if self.next_line().s == "}":
                    break
        block.append(op)


def parse_module(text: str) -> Module:
    """Parse printed IR text (as `print_module` writes it) into a Module."""
    return Parser(text).parse_module()


def reprint(text: str) -> str:
    """The text parsed, verified and printed again: `text` itself when the IR round-trips."""
    from .printer import print_module
    from .verifier import verify
    module = parse_module(text)
    verify(module)
    return print_module(module)
