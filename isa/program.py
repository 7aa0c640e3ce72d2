"""`Program`: an instruction stream with its labels, circular buffers, arguments and metadata, and
its two exchange forms: text assembly (printed and parsed back exactly) and JSON.

    .kernel add_kernel
    .arg x_ptr ptr f32 x10
    .arg n int i32 x11
    .cb 0 x base=0 slot=4096 slots=2
    .meta {"source": "add.py"}
    entry:
        mtia.pid x5, 0
        ...
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .fields import AsmError, Dtype, FReg, Label, XReg
from .instruction import Instr, instr_from_json, instr_to_json, parse_instr

ARG_KINDS = ("ptr", "int", "float")


def _token(v, what: str) -> str:
    """A name that prints as one token of a directive: a non-empty string, no spaces, no comment."""
    if not isinstance(v, str) or not v or v.split() != [v] or "#" in v:
        raise AsmError(f"{what} must be one word without spaces or '#', got {v!r}")
    return v


def _one_line(text: str) -> str:
    """A comment's text on one line (a newline would end the comment)."""
    return " ".join(str(text).splitlines())


def _int_field(v, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise AsmError(f"{what} must be an integer, got {v!r}")
    return v


@dataclass(frozen=True)
class CBDecl:
    """A circular buffer: `slots` slots of `slot_bytes` bytes at LS byte offset `base`."""
    id: int
    name: str
    base: int
    slot_bytes: int
    slots: int

    def __post_init__(self):
        _int_field(self.id, "a CB id")
        _token(self.name, f"the name of CB {self.id}")
        for f in ("base", "slot_bytes", "slots"):
            _int_field(getattr(self, f), f"CB {self.id} {f}")

    @property
    def nbytes(self) -> int:
        return self.slot_bytes * self.slots

    def __str__(self) -> str:
        return f".cb {self.id} {self.name} base={self.base} slot={self.slot_bytes} slots={self.slots}"


@dataclass(frozen=True)
class ArgDecl:
    """A kernel argument and the register the launch puts it in (x for ptr/int, f for float).
    For a pointer, dtype is the element type and the register holds the byte address."""
    name: str
    kind: str
    dtype: str
    reg: str

    def __post_init__(self):
        _token(self.name, "an argument name")
        if not isinstance(self.reg, str):
            raise AsmError(f"argument {self.name}: register {self.reg!r} is not a register name")
        if self.kind not in ARG_KINDS:
            raise AsmError(f"argument {self.name}: kind {self.kind!r} is not one of {ARG_KINDS}")
        Dtype.check(self.dtype)
        (FReg if self.kind == "float" else XReg).parse(self.reg)

    def __str__(self) -> str:
        return f".arg {self.name} {self.kind} {self.dtype} {self.reg}"


@dataclass
class Program:
    name: str
    instrs: list[Instr] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)   # label -> index of the instruction it marks
    cbs: list[CBDecl] = field(default_factory=list)
    args: list[ArgDecl] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    # ---- building ---------------------------------------------------------------------------
    def emit(self, ins: Instr) -> Instr:
        self.instrs.append(ins)
        return ins

    def label(self, name: str) -> str:
        Label.check(name)
        if name in self.labels:
            raise AsmError(f"label {name} defined twice")
        self.labels[name] = len(self.instrs)
        return name

    def cb(self, id: int, name: str, base: int, slot_bytes: int, slots: int) -> CBDecl:
        d = CBDecl(id, name, base, slot_bytes, slots)
        self.cbs.append(d)
        return d

    def arg(self, name: str, kind: str, dtype: str, reg: str) -> ArgDecl:
        a = ArgDecl(name, kind, dtype, reg)
        self.args.append(a)
        return a

    def check_labels(self) -> None:
        """Every branch target names a label of this program."""
        for i, ins in enumerate(self.instrs):
            t = getattr(ins, "target", None)
            if t is not None and t not in self.labels:
                raise AsmError(f"instruction {i} ({ins}): undefined label {t!r}")

    # ---- text -------------------------------------------------------------------------------
    def to_asm(self, notes: dict[int, str] | None = None, headings: dict[int, str] | None = None) -> str:
        """The text form. `notes[i]` is a comment after instruction i (its source file:line), and
        `headings[i]` a comment line above it (the source line it starts); the parser skips both."""
        notes, headings = notes or {}, headings or {}
        lines = [f".kernel {self.name}"]
        lines += [str(a) for a in self.args]
        lines += [str(c) for c in self.cbs]
        if self.meta:
            lines.append(".meta " + json.dumps(self.meta, sort_keys=True))
        by_index: dict[int, list[str]] = {}
        for name, i in self.labels.items():
            by_index.setdefault(i, []).append(name)
        for i, ins in enumerate(self.instrs):
            lines += [f"{n}:" for n in by_index.get(i, [])]
            if i in headings:
                lines.append("    # " + _one_line(headings[i]))
            lines.append("    " + str(ins) + (f"  # {_one_line(notes[i])}" if i in notes else ""))
        lines += [f"{n}:" for n in by_index.get(len(self.instrs), [])]
        return "\n".join(lines) + "\n"

    __str__ = to_asm

    @classmethod
    def from_asm(cls, text: str) -> "Program":
        prog = cls(name="")
        for lineno, raw in enumerate(text.splitlines(), 1):
            line = _strip_comment(raw).strip()
            if not line:
                continue
            try:
                if line.startswith("."):
                    _directive(prog, line)
                    continue
                head, sep, rest = line.partition(":")
                if sep and Label._re.match(head):   # a mnemonic is followed by a space first
                    prog.label(head)
                    line = rest.strip()
                if line:
                    prog.emit(parse_instr(line))
            except AsmError as e:
                raise AsmError(f"line {lineno}: {e}\n    {raw.rstrip()}") from None
        if not prog.name:
            raise AsmError("missing '.kernel NAME' directive")
        prog.check_labels()
        return prog

    # ---- JSON -------------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "kernel": self.name,
            "args": [vars(a) for a in self.args],
            "cbs": [vars(c) for c in self.cbs],
            "meta": self.meta,
            "labels": dict(self.labels),
            "instrs": [instr_to_json(i) for i in self.instrs],
        }

    def dumps(self, **kw) -> str:
        return json.dumps(self.to_json(), **kw)

    @classmethod
    def from_json(cls, j: dict | str) -> "Program":
        if isinstance(j, str):
            try:
                j = json.loads(j)
            except json.JSONDecodeError as e:
                raise AsmError(f"program JSON does not parse: {e}") from None
            except RecursionError:
                raise AsmError("program JSON nests too deeply to parse") from None
        if not isinstance(j, dict):
            raise AsmError("a program in JSON is an object with kernel, args, cbs, meta, labels and instrs")
        try:
            meta, labels = j.get("meta", {}), j.get("labels", {})
            if not isinstance(meta, dict):
                raise AsmError(f"meta must be an object, got {meta!r}")
            if not isinstance(labels, dict):
                raise AsmError(f"labels must be an object of label -> instruction index, got {labels!r}")
            prog = cls(
                name=Label.check(j["kernel"]),
                args=[ArgDecl(**a) for a in j.get("args", [])],
                cbs=[CBDecl(**c) for c in j.get("cbs", [])],
                meta=meta,
                instrs=[instr_from_json(i) for i in j["instrs"]],
            )
            for name, index in labels.items():
                if _int_field(index, f"label {name!r}") > len(prog.instrs) or index < 0:
                    raise AsmError(f"label {name!r} marks instruction {index}, but the program has "
                                   f"{len(prog.instrs)} instructions")
                prog.label(name)
                prog.labels[name] = index
        except AsmError as e:
            raise AsmError(f"program JSON: {e}") from None
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            raise AsmError(f"program JSON is missing or mistypes a field: {type(e).__name__}: {e}") from None
        prog.check_labels()
        return prog

    def __eq__(self, other) -> bool:
        return isinstance(other, Program) and self.to_json() == other.to_json()


def _strip_comment(line: str) -> str:
    out, quoted, escaped = [], False, False
    for ch in line:
        if quoted:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch == "#":
            break
        out.append(ch)
    return "".join(out)


def _kv(tokens: list[str], keys: tuple[str, ...], what: str) -> dict[str, int]:
    vals = {}
    for t in tokens:
        k, sep, v = t.partition("=")
        if not sep or k not in keys:
            raise AsmError(f"{what}: expected {' '.join(k + '=N' for k in keys)}, got {t!r}")
        try:
            vals[k] = int(v, 0)
        except ValueError:
            raise AsmError(f"{what}: {k} must be an integer, got {v!r}") from None
    missing = [k for k in keys if k not in vals]
    if missing:
        raise AsmError(f"{what}: missing {', '.join(missing)}")
    return vals


def _directive(prog: Program, line: str) -> None:
    word, _, rest = line.partition(" ")
    toks = rest.split()
    if word == ".kernel":
        if len(toks) != 1:
            raise AsmError(".kernel takes one name")
        prog.name = Label.check(toks[0])
    elif word == ".arg":
        if len(toks) != 4:
            raise AsmError(".arg takes NAME KIND DTYPE REG")
        prog.arg(*toks)
    elif word == ".cb":
        if len(toks) != 5:
            raise AsmError(".cb takes ID NAME base=N slot=N slots=N")
        try:
            cid = int(toks[0])
        except ValueError:
            raise AsmError(f".cb id must be an integer, got {toks[0]!r}") from None
        kv = _kv(toks[2:], ("base", "slot", "slots"), ".cb")
        prog.cb(cid, toks[1], kv["base"], kv["slot"], kv["slots"])
    elif word == ".meta":
        try:
            meta = json.loads(rest)
        except json.JSONDecodeError as e:
            raise AsmError(f".meta takes one line of JSON: {e}") from None
        except RecursionError:
            raise AsmError(".meta JSON nests too deeply to parse") from None
        if not isinstance(meta, dict):
            raise AsmError(f".meta takes a JSON object, got {rest.strip()!r}")
        prog.meta = meta
    else:
        raise AsmError(f"unknown directive {word!r} (expected .kernel, .arg, .cb or .meta)")

