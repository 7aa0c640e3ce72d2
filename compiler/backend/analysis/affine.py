"""Symbolic index arithmetic: what the memory lowering knows about a block of offsets or pointers.

A `Poly` is an integer polynomial over *scalar* SSA values (program ids, arguments, loop
variables): `pid * 128 + 7`. An `Affine` describes a block whose element at index (i0, i1, ...) is

    base + i0 * strides[0] + i1 * strides[1] + ...        (offsets in elements of `root`'s type)

with `base` and `strides` Polys. Pointer blocks carry the scalar pointer they are relative to in
`root`. One dimension may step by a `Remap` f(i) instead of i: the wrapped rows of GPU kernels,
`(start + arange(B)) % M`, and clamped ones, `tl.where(start + arange(B) < M, start + arange(B), c)`
or `tl.minimum(start + arange(B), c)`; a DMA box walks such a dimension in at most two runs (more
only when B exceeds M). A range divided by a constant, `(start + arange(B)) // C`, is uniform when the
block provably stays inside one period of C (Inductor's flattened indexing, `x1 = xindex // C`, with
a block that divides C): its value is a `Quotient`, start // C, which the lowering computes. So is
`% C` or `// C` of such a uniform block (`(yindex // 256) % 4`).
`analyze(value)` derives the form by walking the value's definition (splat, make_range, broadcast,
expand_dims, trans, addptr, addi, subi, muli by a uniform, shli by a constant, integer casts, remsi,
divsi and select/minsi of a range); it returns None when the block is not of this form, and the
caller falls back to a gather. Hints (`tl.multiple_of`, `tl.max_contiguous`)
are attributes of the op they annotate and change nothing here.

Polys are exact integers, but a block of a narrow integer type (i32 offsets) wrapped every element to
its width as the kernel computed it (`arange + a + b` with a = b = 2**31 - 1 is `arange - 2`). The
ring operations (add, sub, mul, shift, trunci) commute with that wrap, so the form of such a block is
taken exact and wrapped where something else reads it (`analyze`: a pointer offset, a widening cast,
a compare, a division, a select): its base and strides become `Wrapped` values unless they provably
fit. Elements then are base + i * strides without a further wrap only where no element crosses the
type's range; where base and strides are constants that is checked (a block that crosses is no box);
where they are known only at run time, the block is a box and `watch_crossings` tells the pipeline,
whose launch refuses one that crosses in some program (launch/i32_crossings.py).
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, replace
from math import gcd

from ...ir import Op
from ...ir.core import Value

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
class Quotient:
    """`start // divisor` (or `start % divisor`, `remainder`) for a `start` that is provably >= 0: a
    scalar that no IR value holds yet. It stands in a Poly's monomials like a Value, and is >= 0 itself;
    `lower_memory.materialize` computes it (one divsi or remsi)."""
    start: Poly
    divisor: int
    remainder: bool = False
    owner = None                       # no op defines it (what a Value's owner would say)

    @property
    def serial(self) -> float:
        """Orders it among a monomial's Values: after every value of its start, apart per divisor."""
        top = max((v.serial for mono, _ in self.start.terms for v in mono), default=-1)
        return top + (self.divisor + 0.5 * self.remainder) / (self.divisor + 1)

    @property
    def name_hint(self) -> str:
        return f"(({self.start}) {'%' if self.remainder else '//'} {self.divisor})"


@dataclass(frozen=True)
class Wrapped:
    """`value` as the `bits`-bit integer (two's complement, or unsigned) that narrow integer arithmetic
    computing it gives: a scalar no IR value holds yet, standing in a Poly's monomials like a Value;
    `lower_memory.materialize` computes it (trunci, then extsi or extui)."""
    value: Poly
    bits: int
    signed: bool = True
    owner = None                       # no op defines it (what a Value's owner would say)

    @property
    def serial(self) -> float:
        """Orders it among a monomial's Values: after every value of its poly, before any Quotient of them."""
        top = max((v.serial for mono, _ in self.value.terms for v in mono), default=-1)
        return top + 1 / (self.bits + 3 - self.signed)

    @property
    def name_hint(self) -> str:
        return f"{'i' if self.signed else 'u'}{self.bits}({self.value})"


def int_limits(bits: int, signed: bool) -> tuple[int, int]:
    """The smallest and largest value of the integer type (shared with the launch's crossing check)."""
    return (-(1 << bits - 1), (1 << bits - 1) - 1) if signed else (0, (1 << bits) - 1)


def _fits(p: Poly, bits: int, signed: bool) -> bool:
    """Whether p's value provably lies in the range of the integer type: a constant in it, or one scalar
    of a type no wider (and of the same signedness)."""
    lo, hi = int_limits(bits, signed)
    if p.is_const:
        return lo <= p.value <= hi
    if len(p.terms) != 1 or p.terms[0][1] != 1 or len(p.terms[0][0]) != 1:
        return False
    v = p.terms[0][0][0]
    if isinstance(v, Wrapped):
        return v.bits <= bits and v.signed == signed
    if isinstance(v, Quotient):        # start // C or start % C of a start >= 0: no larger than start
        return _fits(v.start, bits, signed)
    t = getattr(v, "type", None)
    return t is not None and t.is_int() and not t.is_block() and t.int_bitwidth <= bits and \
        t.is_int_signed() == signed and t.int_bitwidth > 1


def _wrapped(p: Poly, bits: int, signed: bool) -> Poly:
    """p as the integer type computes it."""
    if _fits(p, bits, signed):
        return p
    if p.is_const:
        c = p.value & ((1 << bits) - 1)
        return Poly.const(c - (1 << bits) if signed and c >> (bits - 1) else c)
    return Poly.var(Wrapped(p, bits, signed))


# Told of the narrow blocks whose crossing of their type's range between elements only a launch can tell
# (a base or stride known at run time), while `watch_crossings` is on: the launch checks them
# (launch/i32_crossings.py), as nothing in the program does.
_CROSSINGS = None


@contextmanager
def watch_crossings(record):
    """Call record(value, Affine as read, bits, signed) for every narrow integer block analyze() takes as
    one box without knowing that its elements stay in their type's range (None: for none)."""
    global _CROSSINGS
    saved, _CROSSINGS = _CROSSINGS, record
    try:
        yield
    finally:
        _CROSSINGS = saved


def _observed(a: Affine | None, t, v: Value | None = None) -> Affine | None:
    """The form of a value of type t as a reader sees it: for a narrow integer block, its elements wrapped
    to the type (module docstring); None where that is no box."""
    st = t.scalar if t.is_block() else t
    if a is None or a.root is not None or not st.is_int() or st.int_bitwidth >= 64 or st.int_bitwidth == 1:
        return a
    # (a remap's start, bound and fill come from values already read as their type: f(i) is one of them)
    bits, signed = st.int_bitwidth, st.is_int_signed()
    base, strides = _wrapped(a.base, bits, signed), tuple(_wrapped(st_, bits, signed) for st_ in a.strides)
    if a.remap is None and base.is_const and all(st_.is_const for st_ in strides):
        lo, hi = int_limits(bits, signed)
        span = [st_.value * (n - 1) for st_, n in zip(strides, a.shape)]
        if base.value + sum(min(0, x) for x in span) < lo or base.value + sum(max(0, x) for x in span) > hi:
            return None                # the wrap falls between elements: not one box
    elif a.remap is None and _CROSSINGS is not None and v is not None and \
            any(st_ and n > 1 for st_, n in zip(strides, a.shape)):        # (a uniform block cannot cross)
        _CROSSINGS(v, replace(a, base=base, strides=strides), bits, signed)     # the launch tells
    return replace(a, base=base, strides=strides)


@dataclass(frozen=True)
class Remap:
    """Dimension `dim` steps by f(i) instead of i, with n = start + i:
    wrap:  f(i) = n rem bound (C's remainder, as Triton's `%` on signed integers);
    clamp: f(i) = n where n < bound, else fill."""
    dim: int
    kind: str
    start: Poly
    bound: Poly
    fill: Poly = ZERO

    def __str__(self) -> str:
        n = f"({self.start} + i{self.dim})"
        return f"{n} % ({self.bound})" if self.kind == "wrap" else f"{n} < ({self.bound}) ? {n} : ({self.fill})"


@dataclass(frozen=True)
class Affine:
    shape: tuple[int, ...]
    base: Poly
    strides: tuple[Poly, ...]
    root: Value | None = None          # the scalar pointer of a pointer block
    remap: Remap | None = None         # strides[remap.dim] multiplies f(i) rather than i

    @property
    def uniform(self) -> bool:
        """Every element equal (no stride along any dimension)."""
        return not any(self.strides)

    def same(self, o: "Affine") -> bool:
        """Whether both describe the same block (polynomials compared by value)."""
        return self.shape == o.shape and self.root is o.root and self.remap == o.remap and \
            not (self.base - o.base) and not any(a - b for a, b in zip(self.strides, o.strides))

    def range_dim(self) -> int | None:
        """The dimension d when the block is start + i_d (stride 1 along d only, nothing remapped)."""
        live = [d for d, st in enumerate(self.strides) if st]
        if self.remap is not None or self.root is not None or len(live) != 1 or self.shape[live[0]] < 2:
            return None
        st = self.strides[live[0]]
        return live[0] if st.is_const and st.value == 1 else None

    def __str__(self) -> str:
        root = f"{self.root.name_hint or 'ptr'} + " if self.root is not None else ""
        r = self.remap
        terms = [f"{'f' if r is not None and r.dim == d else 'i'}{d}*({s})" for d, s in enumerate(self.strides)]
        return f"{root}{self.base} + " + " + ".join(terms) + (f", f{r.dim} = {r}" if r is not None else "")


def _shape(v: Value) -> tuple[int, ...]:
    return tuple(v.type.shape)


def analyze(v: Value, memo: dict | None = None) -> Affine | None:
    """The form of v as its readers see it (narrow integer blocks wrapped, module docstring)."""
    memo = {} if memo is None else memo
    return _observed(_exact(v, memo), v.type, v)


def _exact(v: Value, memo: dict) -> Affine | None:
    """The form of v with exact polynomials: what the ring operations that compute v combine."""
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


def _moved(r: Remap | None, dim: int | None) -> Remap | None:
    """The remap with its dimension moved to `dim` (None drops it: the block is not of this form)."""
    if r is None:
        return None
    return None if dim is None else replace(r, dim=dim)


def add_affine(shape, a: Affine, b: Affine, sign: int) -> Affine | None:
    """a + b (sign 1) or a - b (sign -1); at most one of them may remap a dimension, along which the
    other must not move."""
    r = a.remap or b.remap
    if a.remap is not None and b.remap is not None:
        return None
    if r is not None and (a if r is b.remap else b).strides[r.dim]:
        return None
    strides = tuple(x + y.scale(sign) for x, y in zip(a.strides, b.strides))
    return Affine(shape, a.base + b.base.scale(sign), strides, a.root, r)


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
        s = _exact(op.src, memo)
        if s is None:
            return None
        return Affine(shape, s.base, zeros, s.root)
    if name == Op.BROADCAST:
        s = _exact(op.src, memo)
        if s is None:
            return None
        strides = tuple(st if n == m else ZERO for st, n, m in zip(s.strides, _shape(op.src), shape))
        return Affine(shape, s.base, strides, s.root, s.remap)     # a remapped dimension is never size 1
    if name == Op.EXPAND_DIMS:
        s = _exact(op.src, memo)
        if s is None:
            return None
        axis = op.attrs["axis"]
        strides = list(s.strides)
        strides.insert(axis, ZERO)
        r = s.remap
        return Affine(shape, s.base, tuple(strides), s.root, _moved(r, r and r.dim + (r.dim >= axis)))
    if name == Op.TRANS:
        s = _exact(op.src, memo)
        if s is None:
            return None
        order = list(op.attrs["order"])
        r = s.remap
        return Affine(shape, s.base, tuple(s.strides[i] for i in order), s.root, _moved(r, r and order.index(r.dim)))
    if name == Op.RESHAPE:
        s = _exact(op.src, memo)
        src = _shape(op.src)
        if s is None or [d for d in src if d != 1] != [d for d in shape if d != 1]:
            return None          # only size-1 dimensions may come and go
        live = [d for d, n in enumerate(src) if n != 1]
        new_live = [d for d, n in enumerate(shape) if n != 1]
        it = iter([s.strides[d] for d in live])
        r = s.remap
        return Affine(shape, s.base, tuple(next(it) if n != 1 else ZERO for n in shape), s.root,
                      _moved(r, r and new_live[live.index(r.dim)]))
    if name == Op.PTR_BITCAST:               # same-size elements (i1 <-> i8): the same addresses
        s = _exact(op.x, memo)
        if s is None or op.x.type.scalar.element_ty.itemsize != t.scalar.element_ty.itemsize:
            return None
        return replace(s, shape=shape)
    if name in (Op.EXTSI, Op.EXTUI, Op.TRUNCI):        # a widening reads the narrow values; trunci is a ring op
        s = _exact(op.x, memo) if name == Op.TRUNCI else analyze(op.x, memo)
        return None if s is None else replace(s, shape=shape)
    if name in (Op.ADDI, Op.ADDPTR, Op.SUBI):            # an offset is read as its type's values
        a = _exact(op.operands[0], memo)
        b = analyze(op.operands[1], memo) if name == Op.ADDPTR else _exact(op.operands[1], memo)
        if a is None or b is None or b.root is not None or (name == Op.SUBI and a.root is not None):
            return None
        return add_affine(shape, a, b, -1 if name == Op.SUBI else 1)
    if name in (Op.MULI, Op.SHLI):
        a, b = (_exact(x, memo) for x in op.operands)
        if a is None or b is None or a.root is not None or b.root is not None:
            return None
        if name == Op.SHLI:
            if not b.uniform or not b.base.is_const:
                return None
            k = Poly.const(1 << b.base.value)
        else:
            if b.uniform:
                a, b = b, a
            if not a.uniform:
                return None                  # a product of two varying blocks is not affine
            k, a = a.base, b
        return Affine(shape, a.base * k, tuple(s * k for s in a.strides), None, a.remap)
    if name == Op.DIVSI:                     # (start + i) // C inside one period of C
        a, b = (analyze(x, memo) for x in op.operands)
        return _quotient(shape, a, b)
    if name == Op.REMSI:                     # (start + i) % bound
        a, b = (analyze(x, memo) for x in op.operands)
        return _uniform_remainder(shape, a, b) or _remapped(shape, a, b, "wrap")
    if name == Op.MINSI:                     # min(start + i, c): clamped at c
        a, b = (analyze(x, memo) for x in op.operands)
        if a is not None and a.uniform:
            a, b = b, a
        if b is None or not b.uniform:
            return None
        return _remapped(shape, a, Affine(shape, b.base + Poly.const(1), zeros), "clamp", b.base)
    if name == Op.SELECT:                    # tl.where(start + i < bound, start + i, fill)
        return _clamp(op, shape, memo)
    return None


def _remapped(shape, a: Affine | None, bound: Affine | None, kind: str, fill: Poly = ZERO) -> Affine | None:
    if a is None or bound is None or not bound.uniform or bound.root is not None:
        return None
    d = a.range_dim()
    if d is None:
        return None
    strides = tuple(Poly.const(1) if k == d else ZERO for k in range(len(shape)))
    return Affine(shape, ZERO, strides, None, Remap(d, kind, a.base, bound.base, fill))


def _clamp(op, shape, memo) -> Affine | None:
    cond, x, fill = op.cond, op.true_value, op.false_value
    c = cond.owner
    if not cond.type.is_block() or not hasattr(c, "name") or c.name != Op.CMPI:
        return None
    pred = c.attrs["predicate"]
    lhs, rhs = analyze(c.lhs, memo), analyze(c.rhs, memo)
    if pred in ("sgt", "sge"):                    # bound > n is n < bound
        lhs, rhs, pred = rhs, lhs, {"sgt": "slt", "sge": "sle"}[pred]
    xa, fa = analyze(x, memo), analyze(fill, memo)
    if pred not in ("slt", "sle") or lhs is None or rhs is None or xa is None or fa is None or \
            not fa.uniform or fa.root is not None or tuple(c.lhs.type.shape) != shape or \
            not lhs.same(xa):
        return None
    bound = rhs if pred == "slt" else replace(rhs, base=rhs.base + Poly.const(1))
    return _remapped(shape, xa, bound, "clamp", fa.base)


def _nonneg_divisor(v: Value) -> int:
    """A divisor of the scalar v when v >= 0 is provable (program ids, non-negative constants, their
    sums and products, integer widenings); 0 when it is not."""
    if isinstance(v, Quotient):
        return 1
    if isinstance(v, Wrapped):         # taken as not wrapping here, as the block's elements are (module docstring)
        d = _poly_nonneg_divisor(v.value)
        return gcd(d, 1 << v.bits) if d else 0
    op = v.owner
    if not hasattr(op, "name"):
        return 0                               # an argument: its sign is unknown
    name = op.name
    if name == Op.CONSTANT:
        c = op.attrs.get("value")
        if not isinstance(c, int) or isinstance(c, bool) or c < 0:
            return 0
        return c or 1 << 30
    if name == Op.GET_PROGRAM_ID:
        return 1
    if name in (Op.EXTSI, Op.EXTUI):
        return _nonneg_divisor(op.x)
    if name in (Op.MULI, Op.ADDI):
        a, b = (_nonneg_divisor(x) for x in op.operands)
        if not a or not b:
            return 0
        return min(a * b, 1 << 30) if name == Op.MULI else gcd(a, b)
    return 0


def _poly_nonneg_divisor(p: Poly) -> int:
    """A divisor of p when p >= 0 is provable (every coefficient and value non-negative); 0 when not."""
    g = 0
    for mono, c in p.terms:
        d = c
        for v in mono:
            d *= _nonneg_divisor(v)
        if d <= 0:
            return 0
        g = gcd(g, d)
    return g


def _inside_one_period(start: Poly, block: int, period: int) -> bool:
    """Whether start, start + 1, ..., start + block - 1 provably have one quotient by `period`: start >= 0,
    and start's remainder by g = gcd(period, what divides start's variable terms) leaves room for the
    block before the next multiple of g (so before the next multiple of period)."""
    g = period
    const = 0
    for mono, c in start.terms:
        if not mono:
            const = c
            continue
        d = c
        for v in mono:
            d *= _nonneg_divisor(v)
        if d <= 0:
            return False
        g = gcd(g, d)
    return const >= 0 and const % g + block <= g


def _divisor_const(divisor: Affine | None) -> int | None:
    """The divisor block's value when it is one positive constant."""
    if divisor is None or not divisor.uniform or divisor.root is not None or not divisor.base.is_const \
            or divisor.base.value <= 0:
        return None
    return divisor.base.value


def _scalar_start(a: Affine | None) -> Poly | None:
    """The value of a uniform integer block that is provably >= 0, else None."""
    if a is None or not a.uniform or a.root is not None or a.remap is not None or \
            not _inside_one_period(a.base, 1, 1 << 30):
        return None
    return a.base


def _quotient(shape, a: Affine | None, divisor: Affine | None) -> Affine | None:
    """(start + i_d) // C as a uniform block (C a positive constant), when the block stays inside one
    period of C, or start // C of a uniform start >= 0; None otherwise."""
    c = _divisor_const(divisor)
    if c is None or a is None:
        return None
    zeros = tuple(ZERO for _ in shape)
    start = _scalar_start(a)
    if start is None:
        d = a.range_dim()
        if d is None or not _inside_one_period(a.base, shape[d], c):
            return None
        start = a.base
    if start.is_const:
        return Affine(shape, Poly.const(start.value // c), zeros)
    return Affine(shape, Poly.var(Quotient(start, c)), zeros)


def _uniform_remainder(shape, a: Affine | None, divisor: Affine | None) -> Affine | None:
    """start % C of a uniform block whose start is >= 0 (C a positive constant); None otherwise."""
    c = _divisor_const(divisor)
    start = _scalar_start(a)
    if c is None or start is None:
        return None
    zeros = tuple(ZERO for _ in shape)
    if start.is_const:
        return Affine(shape, Poly.const(start.value % c), zeros)
    return Affine(shape, Poly.var(Quotient(start, c, remainder=True)), zeros)
