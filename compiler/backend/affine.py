"""Symbolic index arithmetic: what the memory lowering knows about a block of offsets or pointers.

A `Poly` is an integer polynomial over *scalar* SSA values (program ids, arguments, loop
variables): `pid * 128 + 7`. An `Affine` describes a block whose element at index (i0, i1, ...) is

    base + i0 * strides[0] + i1 * strides[1] + ...        (offsets in elements of `root`'s type)

with `base` and `strides` Polys. Pointer blocks carry the scalar pointer they are relative to in
`root`. `analyze(value)` derives the form by walking the value's definition (splat, make_range,
broadcast, expand_dims, trans, addptr, addi, subi, muli by a uniform, shli by a constant, integer
casts); it returns None when the block is not affine, and the caller falls back to a gather.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir import Op
from ..ir.core import Value

Monomial = tuple          # a sorted tuple of scalar Values; () is the constant term


def _key(vals) -> Monomial:
    return tuple(sorted(vals, key=lambda v: v.serial))


@dataclass(frozen=True)
class Poly:
    terms: tuple[tuple[Monomial, int], ...] = ()     # ((monomial, coefficient), ...) without zeros

    @staticmethod
    def const(c: int) -> "Poly":
        return Poly(((((), int(c)),) if c else ()))

    @staticmethod
    def var(v: Value) -> "Poly":
        return Poly((((v,), 1),))

    def _dict(self) -> dict:
        return dict(self.terms)

    @staticmethod
    def _from(d: dict) -> "Poly":
        return Poly(tuple((k, c) for k, c in d.items() if c))

    def __add__(self, o: "Poly") -> "Poly":
        d = self._dict()
        for k, c in o.terms:
            d[k] = d.get(k, 0) + c
        return Poly._from(d)

    def __neg__(self) -> "Poly":
        return Poly(tuple((k, -c) for k, c in self.terms))

    def __sub__(self, o: "Poly") -> "Poly":
        return self + (-o)

    def __mul__(self, o: "Poly") -> "Poly":
        d: dict = {}
        for k1, c1 in self.terms:
            for k2, c2 in o.terms:
                k = _key(k1 + k2)
                d[k] = d.get(k, 0) + c1 * c2
        return Poly._from(d)

    def scale(self, c: int) -> "Poly":
        return Poly._from({k: v * c for k, v in self.terms})

    @property
    def is_const(self) -> bool:
        return all(k == () for k, _ in self.terms)

    @property
    def value(self) -> int:
        """The constant (only meaningful when is_const)."""
        return dict(self.terms).get((), 0)

    def __bool__(self) -> bool:
        return bool(self.terms)

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for k, c in self.terms:
            names = "*".join(v.name_hint or f"v{id(v) % 1000}" for v in k)
            parts.append(str(c) if not k else (names if c == 1 else f"{c}*{names}"))
        return " + ".join(parts)


ZERO = Poly()


@dataclass(frozen=True)
class Affine:
    shape: tuple[int, ...]
    base: Poly
    strides: tuple[Poly, ...]
    root: Value | None = None          # the scalar pointer of a pointer block

    @property
    def uniform(self) -> bool:
        """Every element equal (no stride along any dimension)."""
        return not any(self.strides)

    def __str__(self) -> str:
        root = f"{self.root.name_hint or 'ptr'} + " if self.root is not None else ""
        return f"{root}{self.base} + " + " + ".join(f"i{d}*({s})" for d, s in enumerate(self.strides))


def _shape(v: Value) -> tuple[int, ...]:
    return tuple(v.type.shape)


def analyze(v: Value, memo: dict | None = None) -> Affine | None:
    memo = {} if memo is None else memo
    if v in memo:
        return memo[v]
    r = _analyze(v, memo)
    memo[v] = r
    return r


def _scalar_poly(v: Value) -> Poly:
    """A scalar integer value: a constant folds, anything else is an opaque variable."""
    op = v.owner
    if hasattr(op, "name") and op.name == Op.CONSTANT and isinstance(op.attrs.get("value"), int) \
            and not isinstance(op.attrs.get("value"), bool):
        return Poly.const(op.attrs["value"])
    return Poly.var(v)


def _analyze(v: Value, memo) -> Affine | None:
    t = v.type
    shape = _shape(v)
    zeros = tuple(ZERO for _ in shape)
    if not t.is_block():
        if t.is_ptr():
            return Affine((), ZERO, (), v)
        if t.is_int():
            return Affine((), _scalar_poly(v), ())
        return None
    op = v.owner
    if not hasattr(op, "name"):          # a block argument (a loop-carried block): unknown
        return None
    name = op.name
    if name == Op.CONSTANT:
        val = op.attrs.get("value")
        if isinstance(val, int) and not isinstance(val, bool) and t.scalar.is_int():
            return Affine(shape, Poly.const(val), zeros)
        return None
    if name == Op.MAKE_RANGE:
        return Affine(shape, Poly.const(op.attrs["start"]), (Poly.const(1),))
    if name == Op.SPLAT:
        s = analyze(op.src, memo)
        if s is None:
            return None
        return Affine(shape, s.base, zeros, s.root)
    if name == Op.BROADCAST:
        s = analyze(op.src, memo)
        if s is None:
            return None
        strides = tuple(st if n == m else ZERO for st, n, m in zip(s.strides, _shape(op.src), shape))
        return Affine(shape, s.base, strides, s.root)
    if name == Op.EXPAND_DIMS:
        s = analyze(op.src, memo)
        if s is None:
            return None
        strides = list(s.strides)
        strides.insert(op.attrs["axis"], ZERO)
        return Affine(shape, s.base, tuple(strides), s.root)
    if name == Op.TRANS:
        s = analyze(op.src, memo)
        if s is None:
            return None
        return Affine(shape, s.base, tuple(s.strides[i] for i in op.attrs["order"]), s.root)
    if name == Op.RESHAPE:
        s = analyze(op.src, memo)
        src = _shape(op.src)
        if s is None or [d for d in src if d != 1] != [d for d in shape if d != 1]:
            return None          # only size-1 dimensions may come and go
        live = iter([st for st, n in zip(s.strides, src) if n != 1])
        return Affine(shape, s.base, tuple(next(live) if n != 1 else ZERO for n in shape), s.root)
    if name == Op.PTR_BITCAST:               # same-size elements (i1 <-> i8): the same addresses
        s = analyze(op.x, memo)
        if s is None or op.x.type.scalar.element_ty.itemsize != t.scalar.element_ty.itemsize:
            return None
        return Affine(shape, s.base, s.strides, s.root)
    if name in (Op.EXTSI, Op.EXTUI, Op.TRUNCI):
        s = analyze(op.x, memo)
        return None if s is None else Affine(shape, s.base, s.strides, s.root)
    if name in (Op.ADDI, Op.ADDPTR, Op.SUBI):
        a, b = (analyze(x, memo) for x in op.operands)
        if a is None or b is None or b.root is not None:
            return None
        if name == Op.SUBI:
            if a.root is not None:
                return None
            return Affine(shape, a.base - b.base, tuple(x - y for x, y in zip(a.strides, b.strides)))
        return Affine(shape, a.base + b.base, tuple(x + y for x, y in zip(a.strides, b.strides)), a.root)
    if name == Op.MULI:
        a, b = (analyze(x, memo) for x in op.operands)
        if a is None or b is None or a.root is not None or b.root is not None:
            return None
        if b.uniform:
            a, b = b, a
        if not a.uniform:
            return None                  # a product of two varying blocks is not affine
        k = a.base
        return Affine(shape, b.base * k, tuple(s * k for s in b.strides))
    if name == Op.SHLI:
        a, b = (analyze(x, memo) for x in op.operands)
        if a is None or b is None or not b.uniform or not b.base.is_const or a.root is not None:
            return None
        k = Poly.const(1 << b.base.value)
        return Affine(shape, a.base * k, tuple(s * k for s in a.strides))
    return None
