"""Where codegen writes: instructions over virtual registers and labels.

`VReg`s stand for registers until `regalloc` maps them onto x1..x31 / f0..f31. A `Proto` is an
instruction class with its operand values (VRegs where registers go), turned into a real
`isa` instruction once registers are known.
"""
from __future__ import annotations

from dataclasses import dataclass, field


class VReg:
    """A virtual register of class 'x' (integers, pointers, booleans) or 'f' (floats)."""
    __slots__ = ("cls", "n", "hint")

    def __init__(self, cls: str, n: int, hint: str | None = None):
        self.cls, self.n, self.hint = cls, n, hint

    def __repr__(self) -> str:
        return f"%{self.cls}{self.n}" + (f"({self.hint})" if self.hint else "")


@dataclass
class Proto:
    cls: type
    fields: dict
    comment: str = ""
    line: int = 0               # the kernel source line it came from (0: none)


@dataclass
class Label:
    name: str


@dataclass
class Emitter:
    code: list = field(default_factory=list)
    _n: int = 0
    _labels: int = 0
    src_line: int = 0           # source line of the op being lowered

    def vreg(self, cls: str, hint: str | None = None) -> VReg:
        self._n += 1
        return VReg(cls, self._n, hint)

    def emit(self, cls, comment: str = "", **fields) -> Proto:
        p = Proto(cls, fields, comment, self.src_line)
        self.code.append(p)
        return p

    def new_label(self, stem: str) -> str:
        self._labels += 1
        return f"{stem}_{self._labels}"

    def place(self, name: str) -> None:
        self.code.append(Label(name))
