"""The `@instruction` declaration: one class per instruction, its fields, assembly and JSON forms.

    @instruction("add", unit="scalar")
    class Add(Instr):
        '''rd = rs1 + rs2, wrapping at 64 bits.'''
        rd: XReg
        rs1: XReg
        rs2: XReg

Fields without a default are positional operands in declaration order; fields with a default are
printed as `name=value` after them, and only when they differ from the default. An instruction may
give its own positional layout with `asm = "{rd}, {imm}({rs1})"`. The docstring states the
semantics; the simulator implements exactly that in one numpy function per instruction.
"""
from __future__ import annotations

import dataclasses
import re
import sys
from typing import ClassVar

from . import fields as K
from .fields import AsmError, split_top

UNITS = ("scalar", "vector", "cb", "sync", "dma", "dpe", "se", "re", "mlu")
"""Where an instruction runs: the control core itself (scalar, vector, cb, sync) or an engine."""
ENGINES = ("dma", "dpe", "se", "re", "mlu")

REGISTRY: dict[str, type["Instr"]] = {}


class Instr:
    """Base of every instruction. Subclasses are frozen, slotted dataclasses made by @instruction."""
    __slots__ = ()
    mnemonic: ClassVar[str]
    unit: ClassVar[str]
    fields: ClassVar[tuple[tuple[str, type[K.Kind], bool], ...]]  # (name, kind, has_default)
    asm: ClassVar[str | None] = None
    _asm_re: ClassVar[re.Pattern | None] = None

    def tiles(self):
        """(field name, Tile) for each tile operand that is present."""
        for name, kind, _ in self.fields:
            if issubclass(kind, (K.TileKind, K.Src)):
                t = getattr(self, name)
                if isinstance(t, K.Tile):
                    yield name, t

    def __str__(self) -> str:
        return format_instr(self)


def instruction(mnemonic: str, unit: str, asm: str | None = None):
    """Declare an instruction class (see module docstring)."""
    if unit not in UNITS:
        raise ValueError(f"unit {unit!r} is not one of {UNITS}")

    def wrap(cls):
        if mnemonic in REGISTRY:
            raise ValueError(f"instruction {mnemonic} declared twice")
        dc = dataclasses.dataclass(frozen=True, slots=True, eq=True)(cls)
        flds = []
        seen_default = False
        for f in dataclasses.fields(dc):
            kind = _resolve(dc, f.name, f.type)
            has_default = f.default is not dataclasses.MISSING
            if not has_default and seen_default:
                raise TypeError(f"{mnemonic}: required field {f.name} after optional ones")
            seen_default |= has_default
            flds.append((f.name, kind, has_default))
        dc.mnemonic = mnemonic
        dc.unit = unit
        dc.fields = tuple(flds)
        dc.asm = asm
        if asm is not None:
            pat = re.escape(asm)
            pat = re.sub(r"\\\{(\w+)\\\}", lambda m: f"(?P<{m.group(1)}>.+?)", pat)
            dc._asm_re = re.compile(r"^\s*" + pat.replace(r"\ ", r"\s*") + r"\s*$")
        if not (dc.__doc__ or "").strip() or dc.__doc__.startswith(dc.__name__ + "("):
            raise TypeError(f"{mnemonic}: every instruction needs a docstring stating its semantics")
        REGISTRY[mnemonic] = dc
        return dc
    return wrap


def _resolve(cls, name, annotation):
    """The kind class of a field, evaluating a string annotation where it was written."""
    if not isinstance(annotation, str):
        return annotation
    for klass in cls.__mro__:
        if name in klass.__dict__.get("__annotations__", {}):
            return eval(annotation, {**vars(K), **vars(sys.modules[klass.__module__])})
    raise TypeError(f"cannot resolve the kind of field {name}")


def family(cls):
    """Declare a base class that several instructions share (fields, no mnemonic)."""
    return dataclasses.dataclass(frozen=True, slots=True, eq=True)(cls)


def make(cls: type[Instr], **values) -> Instr:
    """Build an instruction, checking every field with its kind."""
    checked = {}
    for name, kind, has_default in cls.fields:
        if name in values:
            checked[name] = kind.check(values.pop(name))
        elif not has_default:
            raise AsmError(f"{cls.mnemonic}: missing operand {name}")
    if values:
        raise AsmError(f"{cls.mnemonic}: unknown operand(s) {', '.join(values)}")
    return cls(**checked)


def _defaults(cls):
    d = cls.__dict__.get("_defaults_cache")
    if d is None:
        d = {f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}
        cls._defaults_cache = d
    return d


def format_instr(ins: Instr) -> str:
    cls = type(ins)
    defaults = _defaults(cls)
    required = [(n, k) for n, k, d in cls.fields if not d]
    if cls.asm is not None:
        body = cls.asm.format(**{n: k.fmt(getattr(ins, n)) for n, k in required})
        parts = [body] if body else []
    else:
        parts = [k.fmt(getattr(ins, n)) for n, k in required]
    for n, k, d in cls.fields:
        if d:
            v = getattr(ins, n)
            if v != defaults[n]:
                parts.append(f"{n}={k.fmt(v)}")
    return cls.mnemonic + (" " + ", ".join(parts) if parts else "")


def parse_instr(text: str) -> Instr:
    """Parse one instruction (no label, no comment)."""
    text = text.strip()
    mnemonic, _, rest = text.partition(" ")
    cls = REGISTRY.get(mnemonic)
    if cls is None:
        raise AsmError(f"unknown instruction {mnemonic!r}")
    required = [(n, k) for n, k, d in cls.fields if not d]
    optional = {n: k for n, k, d in cls.fields if d}
    tokens = split_top(rest) if rest.strip() else []
    values: dict = {}
    kw = [t for t in tokens if re.match(r"^\w+=", t) and t.split("=", 1)[0] in optional]
    pos = [t for t in tokens if t not in kw]
    if cls.asm is not None and required:
        m = cls._asm_re.match(", ".join(pos))
        if not m:
            raise AsmError(f"{mnemonic}: expected operands in the form '{cls.asm}', got {rest.strip()!r}")
        for n, k in required:
            values[n] = k.parse(m.group(n))
    else:
        if len(pos) != len(required):
            names = ", ".join(n for n, _ in required) or "none"
            raise AsmError(f"{mnemonic}: expected {len(required)} operand(s) ({names}), got {len(pos)}")
        for (n, k), t in zip(required, pos):
            values[n] = k.parse(t)
    for t in kw:
        n, v = t.split("=", 1)
        if n in values:
            raise AsmError(f"{mnemonic}: operand {n} given twice")
        values[n] = optional[n].parse(v)
    return make(cls, **values)


def instr_to_json(ins: Instr) -> dict:
    cls = type(ins)
    defaults = _defaults(cls)
    j = {"mnemonic": cls.mnemonic}
    for n, k, d in cls.fields:
        v = getattr(ins, n)
        if d and v == defaults[n]:
            continue
        j[n] = k.to_json(v)
    return j


def instr_from_json(j: dict) -> Instr:
    if not isinstance(j, dict) or not isinstance(j.get("mnemonic"), str):
        raise AsmError(f"an instruction in JSON is an object with a 'mnemonic' string, got {j!r}")
    cls = REGISTRY.get(j["mnemonic"])
    if cls is None:
        raise AsmError(f"unknown instruction {j['mnemonic']!r}")
    kinds = {n: k for n, k, _ in cls.fields}
    values = {}
    for n, v in j.items():
        if n == "mnemonic":
            continue
        if n not in kinds:
            raise AsmError(f"{cls.mnemonic}: unknown operand {n!r}")
        try:
            values[n] = kinds[n].from_json(v)
        except AsmError as e:
            raise AsmError(f"{cls.mnemonic}: operand {n}: {e}") from None
        except (TypeError, ValueError, AttributeError, KeyError) as e:   # a value of the wrong JSON type
            raise AsmError(f"{cls.mnemonic}: operand {n}: cannot read {v!r} ({type(e).__name__}: {e})") from None
    return make(cls, **values)
