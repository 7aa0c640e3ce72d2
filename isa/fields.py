"""Field kinds: how one operand of an instruction is checked, printed, parsed and put in JSON.

Each kind is a class used as the annotation of an instruction field. Register fields hold a plain
int (the register number) so that the simulator indexes register files directly; fields that take
a register *or* an immediate hold an `X`/`F` reference or a Python number.
"""
from __future__ import annotations

import math
import re

from .errors import UserError
from .types import DTYPES, TILE_MODES, F, Tile, V, X

_ABI = {"zero": 0, "ra": 1, "sp": 2, "gp": 3, "tp": 4, "t0": 5, "t1": 6, "t2": 7, "s0": 8, "fp": 8, "s1": 9,
        **{f"a{i}": 10 + i for i in range(8)}, **{f"s{i}": 16 + i for i in range(2, 12)},
        **{f"t{i}": 25 + i for i in range(3, 7)}}


class AsmError(UserError, ValueError):
    """A line of assembly (or a JSON instruction) that does not follow the ISA."""


def _reg(text: str, prefix: str, abi: bool = False) -> int:
    t = text.strip()
    if abi and t in _ABI:
        return _ABI[t]
    if len(t) > 1 and t[0] == prefix and t[1:].isascii() and t[1:].isdigit():   # not '²' or '٣' 
        n = int(t[1:])
        if 0 <= n < 32:
            return n
    raise AsmError(f"expected a register {prefix}0..{prefix}31, got {text.strip()!r}")


def _int(text: str) -> int:
    try:
        return int(text.strip(), 0)
    except ValueError:
        raise AsmError(f"expected an integer, got {text.strip()!r}") from None


def _float(text: str) -> float:
    try:
        return float(text.strip())
    except ValueError:
        raise AsmError(f"expected a number, got {text.strip()!r}") from None


def _to_float(v) -> float:
    """float(v) for a JSON number or a Python int of any size; AsmError instead of OverflowError."""
    try:
        return float(v)
    except OverflowError:
        raise AsmError(f"{v!r} is too large for a floating-point operand") from None


def _json_number(j) -> float:
    """A float operand from JSON: a number, or the text of one ('nan', 'inf' as `_json_float` writes)."""
    if isinstance(j, str):
        return _float(j)
    if isinstance(j, bool) or not isinstance(j, (int, float)):
        raise AsmError(f"expected a number, got {j!r}")
    return _to_float(j)


def _fmt_float(v: float) -> str:
    return repr(float(v))


def _json_float(v: float):
    return v if math.isfinite(v) else repr(float(v))


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split on `sep` outside brackets, parentheses and double-quoted strings."""
    out, depth, cur, quoted, escaped = [], 0, [], False, False
    for ch in text:
        if quoted:
            cur.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
            continue
        if ch == '"':
            quoted = True
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    tail = "".join(cur).strip()
    if tail or out:
        out.append(tail)
    return out


class Kind:
    """Base of the field kinds: identity JSON, str() printing."""
    @classmethod
    def check(cls, v):
        return v

    @classmethod
    def fmt(cls, v) -> str:
        return str(v)

    @classmethod
    def to_json(cls, v):
        return v

    @classmethod
    def from_json(cls, j):
        return cls.check(j)


class XReg(Kind):
    """An integer register x0..x31 (ABI names accepted when parsing)."""
    @classmethod
    def check(cls, v):
        if type(v) is not int or not 0 <= v < 32:
            raise AsmError(f"expected an x register number 0..31, got {v!r}")
        return v

    @classmethod
    def parse(cls, t):
        return _reg(t, "x", abi=True)

    @classmethod
    def fmt(cls, v):
        return f"x{v}"

    to_json = fmt

    @classmethod
    def from_json(cls, j):
        return cls.parse(str(j))


class FReg(XReg):
    """A float register f0..f31."""
    @classmethod
    def parse(cls, t):
        return _reg(t, "f")

    @classmethod
    def fmt(cls, v):
        return f"f{v}"

    to_json = fmt


class VReg(XReg):
    """A vector register v0..v31 (the first of an LMUL group)."""
    @classmethod
    def parse(cls, t):
        return _reg(t, "v")

    @classmethod
    def fmt(cls, v):
        return f"v{v}"

    to_json = fmt


class Imm(Kind):
    """A signed integer immediate."""
    @classmethod
    def check(cls, v):
        if isinstance(v, bool) or not isinstance(v, int):
            raise AsmError(f"expected an integer immediate, got {v!r}")
        return v

    parse = staticmethod(_int)


class FImm(Kind):
    """A floating-point immediate (inf and nan allowed)."""
    @classmethod
    def check(cls, v):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise AsmError(f"expected a number, got {v!r}")
        return _to_float(v)

    parse = staticmethod(_float)
    fmt = staticmethod(_fmt_float)
    to_json = staticmethod(_json_float)

    @classmethod
    def from_json(cls, j):
        return _json_number(j)


class Label(Kind):
    """A branch target, by name."""
    _re = re.compile(r"^[A-Za-z_.$][\w.$]*\Z")     # \Z: '$' would also accept a trailing newline

    @classmethod
    def check(cls, v):
        if not isinstance(v, str) or not cls._re.match(v):
            raise AsmError(f"expected a label name, got {v!r}")
        return v

    @classmethod
    def parse(cls, t):
        return cls.check(t.strip())


class Name(Label):
    """A free-form identifier (an engine function, a reduction kind...)."""


_LINE_BREAKS = re.compile(r"[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")   # what str.splitlines() splits on


class Text(Kind):
    """A quoted string (debug print prefixes, assertion messages) on one line of assembly: a backslash
    escapes a quote, a backslash and the line breaks of ASCII (\\n, \\r, \\v, \\f); no other line break."""
    @classmethod
    def check(cls, v):
        if not isinstance(v, str):
            raise AsmError(f"expected a string, got {v!r}")
        if _LINE_BREAKS.search(v.translate(_ESCAPED)):
            raise AsmError(f"a string operand must not contain a line break other than ASCII's, got {v!r}")
        return v

    @classmethod
    def parse(cls, t):
        t = t.strip()
        if len(t) < 2 or t[0] != '"' or t[-1] != '"':
            raise AsmError(f"expected a quoted string, got {t!r}")
        return cls.check(re.sub(r"\\(.)", lambda m: _UNESCAPE.get(m[1], m[1]), t[1:-1], flags=re.DOTALL))

    @classmethod
    def fmt(cls, v):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').translate(_ESCAPED) + '"'


_UNESCAPE = {"n": "\n", "r": "\r", "v": "\x0b", "f": "\x0c"}
_ESCAPED = str.maketrans({c: "\\" + k for k, c in _UNESCAPE.items()})


class Dtype(Kind):
    """An element type name: i1 i8 i16 i32 i64 u8.. f16 bf16 f32 f64 f8e4m3 f8e5m2."""
    @classmethod
    def check(cls, v):
        if not isinstance(v, str) or v not in DTYPES:
            raise AsmError(f"unknown dtype {v!r}; expected one of {', '.join(DTYPES)}")
        return v

    @classmethod
    def parse(cls, t):
        return cls.check(t.strip())


class XOrImm(Kind):
    """An integer register or an integer immediate."""
    @classmethod
    def check(cls, v):
        if isinstance(v, X):
            XReg.check(v.n)
            return v
        return Imm.check(v)

    @classmethod
    def parse(cls, t):
        t = t.strip()
        if t[:1] == "x" or t in _ABI:
            return X(XReg.parse(t))
        return _int(t)

    @classmethod
    def fmt(cls, v):
        return str(v)

    @classmethod
    def to_json(cls, v):
        return str(v) if isinstance(v, X) else v

    @classmethod
    def from_json(cls, j):
        return cls.parse(j) if isinstance(j, str) else cls.check(j)


class FOrImm(Kind):
    """A float register or a floating-point immediate (vector-scalar forms)."""
    @classmethod
    def check(cls, v):
        if isinstance(v, F):
            FReg.check(v.n)
            return v
        if isinstance(v, X):
            XReg.check(v.n)
            return v
        return FImm.check(v)

    @classmethod
    def parse(cls, t):
        t = t.strip()
        if re.fullmatch(r"f\d+", t):
            return F(FReg.parse(t))
        if re.fullmatch(r"x\d+", t):
            return X(XReg.parse(t))
        return _float(t)

    @classmethod
    def fmt(cls, v):
        return str(v) if isinstance(v, (F, X)) else _fmt_float(v)

    @classmethod
    def to_json(cls, v):
        return str(v) if isinstance(v, (F, X)) else _json_float(v)

    @classmethod
    def from_json(cls, j):
        if isinstance(j, str) and re.fullmatch(r"[fx]\d+", j):
            return cls.parse(j)
        return _json_number(j)


class XList(Kind):
    """A bracketed list of registers or immediates: [x5, 1]."""
    @classmethod
    def check(cls, v):
        if not isinstance(v, (tuple, list)):
            raise AsmError(f"expected a list, got {v!r}")
        return tuple(XOrImm.check(e) for e in v)

    @classmethod
    def parse(cls, t):
        t = t.strip()
        if not (t.startswith("[") and t.endswith("]")):
            raise AsmError(f"expected a bracketed list like [x5, 1], got {t!r}")
        inner = t[1:-1].strip()
        return tuple(XOrImm.parse(e) for e in split_top(inner)) if inner else ()

    @classmethod
    def fmt(cls, v):
        return "[" + ", ".join(map(str, v)) + "]"

    @classmethod
    def to_json(cls, v):
        return [XOrImm.to_json(e) for e in v]

    @classmethod
    def from_json(cls, j):
        return tuple(XOrImm.from_json(e) for e in j)


class IntList(XList):
    """A bracketed list of integer immediates: [1, 0]."""
    @classmethod
    def check(cls, v):
        return tuple(Imm.check(e) for e in v)

    @classmethod
    def parse(cls, t):
        vals = XList.parse(t)
        return cls.check(vals)

    @classmethod
    def to_json(cls, v):
        return list(v)


_TILE_RE = re.compile(r"^cb([0-9]+)\.(\w+)(?:\+([0-9]+))?:(\w+)\[((?:[0-9]+(?:x[0-9]+)*)?)\]\Z")


class TileKind(Kind):
    """A CB slot as a tile: cb3.pop:f16[128x32] (see isa.types.Tile)."""
    @classmethod
    def check(cls, v):
        if not isinstance(v, Tile):
            raise AsmError(f"expected a tile operand, got {v!r}")
        if v.cb < 0:
            raise AsmError(f"a tile's CB id is >= 0, got {v.cb}")
        return v

    @classmethod
    def parse(cls, t):
        m = _TILE_RE.match(t.strip())
        if not m:
            raise AsmError(f"expected a tile like cb3.pop:f16[128x32], got {t.strip()!r}")
        cb, mode, off, dt, dims = m.groups()
        if mode not in TILE_MODES:
            raise AsmError(f"tile mode {mode!r} is not one of {', '.join(TILE_MODES)}")
        if dt not in DTYPES:
            raise AsmError(f"unknown dtype {dt!r} in tile {t.strip()!r}")
        shape = tuple(int(d) for d in dims.split("x")) if dims else ()
        try:
            return Tile(int(cb), mode, dt, shape, int(off or 0))
        except ValueError as e:
            raise AsmError(str(e)) from None

    @classmethod
    def to_json(cls, v):
        j = {"cb": v.cb, "mode": v.mode, "dtype": v.dtype, "shape": list(v.shape)}
        if v.offset:
            j["offset"] = v.offset
        return j

    @classmethod
    def from_json(cls, j):
        def integer(v):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"expected an integer, got {v!r}")
            return v
        try:
            if not isinstance(j["shape"], list):
                raise TypeError(f"shape must be a list, got {j['shape']!r}")
            return cls.check(Tile(integer(j["cb"]), j["mode"], j["dtype"], tuple(integer(d) for d in j["shape"]),
                                  integer(j.get("offset", 0))))
        except (KeyError, TypeError, ValueError) as e:
            raise AsmError(f"bad tile {j!r}: {e}") from None


class OptTile(TileKind):
    """A tile, or `none`."""
    @classmethod
    def check(cls, v):
        return None if v is None else TileKind.check(v)

    @classmethod
    def parse(cls, t):
        return None if t.strip() == "none" else TileKind.parse(t)

    @classmethod
    def fmt(cls, v):
        return "none" if v is None else str(v)

    @classmethod
    def to_json(cls, v):
        return None if v is None else TileKind.to_json(v)

    @classmethod
    def from_json(cls, j):
        return None if j is None else TileKind.from_json(j)


class Src(Kind):
    """An engine source operand: a tile, or a scalar (f/x register or immediate) broadcast to the
    output shape (the vector-scalar forms that save a broadcast)."""
    @classmethod
    def check(cls, v):
        return v if isinstance(v, Tile) else FOrImm.check(v)

    @classmethod
    def parse(cls, t):
        return TileKind.parse(t) if t.strip().startswith("cb") else FOrImm.parse(t)

    @classmethod
    def fmt(cls, v):
        return str(v) if isinstance(v, Tile) else FOrImm.fmt(v)

    @classmethod
    def to_json(cls, v):
        return TileKind.to_json(v) if isinstance(v, Tile) else FOrImm.to_json(v)

    @classmethod
    def from_json(cls, j):
        return TileKind.from_json(j) if isinstance(j, dict) else FOrImm.from_json(j)


class OptSrc(Src):
    """A source operand, or `none`."""
    @classmethod
    def check(cls, v):
        return None if v is None else Src.check(v)

    @classmethod
    def parse(cls, t):
        return None if t.strip() == "none" else Src.parse(t)

    @classmethod
    def fmt(cls, v):
        return "none" if v is None else Src.fmt(v)

    @classmethod
    def to_json(cls, v):
        return None if v is None else Src.to_json(v)

    @classmethod
    def from_json(cls, j):
        return None if j is None else Src.from_json(j)


def choice(*options: str) -> type[Kind]:
    """A kind accepting one of a fixed set of names."""
    class Choice(Kind):
        __doc__ = "one of: " + ", ".join(options)
        values = options

        @classmethod
        def check(cls, v):
            if v not in options:
                raise AsmError(f"expected one of {', '.join(options)}, got {v!r}")
            return v

        @classmethod
        def parse(cls, t):
            return cls.check(t.strip())
    return Choice


__all__ = ["AsmError", "Kind", "XReg", "FReg", "VReg", "Imm", "FImm", "Label", "Name", "Text", "Dtype",
           "XOrImm", "FOrImm", "Src", "OptSrc", "XList", "IntList", "TileKind", "OptTile", "choice", "split_top",
           "X", "F", "V", "Tile"]
