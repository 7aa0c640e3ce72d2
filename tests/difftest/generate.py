"""A hypothesis strategy of random valid Triton kernels (`cases()`), as source text.

A kernel is a straight-line body over one tile per program (1-D `(B,)` or 2-D `(R, C)`) built from
loads (masked, strided, reversed, gathered), arithmetic with Triton's promotion, comparisons,
bitwise ops, shifts, casts, `tl.where`, transcendental functions, reductions, scans and `tl.dot`,
with `for` / `while` loops carrying values across iterations (some updated only under an `if`),
and stores (masked or not) of some of the values. Every value's dtype is asserted in the source
(`tl.static_assert`), so a wrong guess of the generator fails to compile instead of comparing
garbage. Values that both executors must compute bit for bit are `exact` (dots of exact operands
among them); float reductions, scans, divisions and transcendental functions are not, and nothing
discontinuous (a comparison, a cast to int, a `where` condition, an index) is ever computed from an
inexact value.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

from .types import (
    FLOATS,
    INTS,
    WEAK_UNSIGNED_LITERALS,
    Val,
    is_float,
    is_int,
    is_unsigned,
    limit,
    minmax_dtype,
    promote,
    result_dtype,
    sum_dtype,
    tl_name,
)

MAX_TRIPS = 3                 # runtime trip counts are drawn in [0, MAX_TRIPS]
INPUT_BOUND = 4.0             # float inputs are drawn in [-4, 4]
BINOPS_ANY = ("+", "-", "*")
BINOPS_INT = ("&", "|", "^", "//", "%", "<<", ">>")
COMPARES = ("<", "<=", ">", ">=", "==", "!=")


@dataclass
class Array:
    """A kernel argument array: its name, dtype, element count and whether the kernel writes it.
    `view`, when given, is a numpy expression of `a`, the array of `size` elements, that makes the
    argument actually passed (a reversed or broadcast view, say); `special`, values mixed into an
    input (NaN, infinities, extremes)."""
    name: str
    dtype: str
    size: int
    output: bool = False
    view: str = ""
    special: tuple = ()


@dataclass
class Case:
    """A generated kernel with everything needed to launch it: its source, the arrays (inputs
    filled from `seed`, outputs poisoned), the scalar arguments, the grid, and for each output
    whether it must agree bit for bit or within `atol`."""
    source: str
    arrays: list
    scalars: dict
    grid: int
    seed: int
    tolerances: dict = field(default_factory=dict)   # output name -> atol (absent: exact)
    # Python source of `reference(inp, args, scalars)`: what numpy says some outputs must hold (name ->
    # the whole array), for what both executors could get wrong alike; "" where the executors only
    # have each other to compare with
    reference: str = ""

    def describe(self) -> str:
        args = ", ".join(f"{a.name}: {a.dtype}[{a.size}]" + (f" as {a.view}" if a.view else "") for a in self.arrays)
        ref = f"\n{self.reference}" if self.reference else ""
        return f"grid ({self.grid},), {args}, scalars {self.scalars}, seed {self.seed}\n{self.source}{ref}"


class Builder:
    """Draws one kernel statement by statement; `self.lines` is the body being written."""

    def __init__(self, draw):
        self.draw = draw
        self.lines: list[str] = []
        self.indent = 1
        self.arrays: list[Array] = []
        self.vals: list[Val] = []
        self.count = 0
        self.two_d = draw(st.booleans())
        if self.two_d:
            self.R = draw(st.sampled_from([1, 2, 4, 16, 16]))
            self.C = draw(st.sampled_from([16, 32]))
            self.full = (self.R, self.C)
        else:
            self.B = draw(st.sampled_from([16, 32, 64, 128]))
            self.full = (self.B,)
        self.grid = draw(st.integers(1, 3))
        self.tile = self.R * self.C if self.two_d else self.B
        self.total = self.grid * self.tile
        self.scalars = {"n": draw(st.integers(0, self.grid * (self.R if self.two_d else self.B))),
                        "nt": draw(st.integers(0, MAX_TRIPS)),
                        "s0": draw(st.integers(-9, 9)),
                        # 0.1 and 1/3 are not fp32 values: the launch must round them as Triton does
                        "f0": draw(st.sampled_from([0.0, -0.0, 0.5, -1.25, 3.0, 0.1, 1 / 3]))}
        self.tolerances: dict = {}

    # ---- emitting ----------------------------------------------------------------------------
    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def bind(self, v: Val, keep: bool = True) -> Val:
        """Name `v` in a new variable, asserting its dtype, and make it available to later statements."""
        name = f"v{self.count}"
        self.count += 1
        self.emit(f"{name} = {v.text}")
        self.emit(f"tl.static_assert({name}.dtype == {tl_name(v.dtype)})")
        out = Val(name, v.dtype, v.shape, v.exact, v.bound)
        if keep:
            self.vals.append(out)
        return out

    # ---- picking operands --------------------------------------------------------------------
    def pick(self, pred=lambda v: True) -> Val | None:
        cands = [v for v in self.vals if pred(v)]
        if not cands:
            return None
        return self.draw(st.sampled_from(cands))

    def operand(self, pred=lambda v: True, literal=False) -> Val:
        """An existing value, or a new leaf when none fits `pred` (or by chance); a Python
        number only where `literal` allows it."""
        v = self.pick(pred)
        if v is None or self.draw(st.integers(0, 5)) == 0:
            for _ in range(4):
                w = self.leaf(literal)
                if pred(w):
                    return w
            return self.pick(pred) or self.load()
        return v

    def leaf(self, literal: bool) -> Val:
        kinds = ["load", "load", "scalar", "range"] + (["literal"] if literal else [])
        kind = self.draw(st.sampled_from(kinds))
        if kind == "load":
            return self.load()
        if kind == "scalar":
            name = self.draw(st.sampled_from(["s0", "f0", "n", "pid"]))
            if name == "f0":
                return Val("f0", "f32", (), True, 3.0)
            return Val(name, "i32", (), True, 2 ** 31 if name == "s0" else self.total)
        if kind == "range":
            axis = self.draw(st.integers(0, len(self.full) - 1))
            size = self.full[axis]
            text = f"tl.arange(0, {size})"
            return Val(text, "i32", (size,), True, size)
        lit = self.draw(st.sampled_from(["0", "1", "2", "3", "7", "-1", "-3", "0.5", "-2.0", "1.5"]))
        return Val(lit, "f32" if "." in lit else "i32", (), True, abs(float(lit)), literal=True)

    # ---- loads and stores --------------------------------------------------------------------
    def new_array(self, dtype: str, size: int, output=False) -> Array:
        a = Array(f"{'out' if output else 'x'}{len(self.arrays)}", dtype, size, output)
        self.arrays.append(a)
        return a

    def offsets(self) -> tuple[str, str, int]:
        """(offset expression, mask expression, array size) of one tile per program."""
        pattern = self.draw(st.sampled_from(["contiguous", "strided", "reversed", "gather", "loop"]))
        if self.two_d:
            rows = f"(pid * {self.R} + tl.arange(0, {self.R}))"
            cols = f"tl.arange(0, {self.C})"
            offs = f"{rows}[:, None] * {self.C} + {cols}[None, :]"
            mask = f"{rows}[:, None] < n"
            n_rows = self.grid * self.R
            if pattern == "strided":
                return f"{rows}[:, None] * {2 * self.C} + {cols}[None, :] * 2", mask, 2 * self.total
            if pattern == "reversed":
                return f"({n_rows - 1} - {rows})[:, None] * {self.C} + {cols}[None, :]", mask, self.total
        else:
            offs = f"(pid * {self.B} + tl.arange(0, {self.B}))"
            mask = f"{offs} < n"
            if pattern == "strided":
                return f"{offs} * 2", mask, 2 * self.total
            if pattern == "reversed":
                return f"({self.total - 1} - {offs})", mask, self.total
        if pattern == "gather" and self.total & (self.total - 1) == 0:
            idx = self.pick(lambda v: is_int(v.dtype) and v.exact and v.shape == self.full)
            if idx is not None:
                return f"({idx.text}.to(tl.int32) & {self.total - 1})", "", self.total
        if pattern == "loop" and getattr(self, "loop_var", None):
            return f"{self.loop_var} * {self.total} + {offs}", mask, self.total * (MAX_TRIPS + 1)
        return offs, mask, self.total

    def load(self) -> Val:
        dtype = self.draw(st.sampled_from(INTS + FLOATS))
        offs, mask, size = self.offsets()
        a = self.new_array(dtype, size)
        masked = bool(mask) and self.draw(st.booleans())
        if masked:
            other = self.draw(st.sampled_from(["0", "1", "-1"] if not is_unsigned(dtype) else ["0", "1"]))
            text = f"tl.load({a.name}_ptr + {offs}, mask={mask}, other={other})"
        else:
            text = f"tl.load({a.name}_ptr + {offs})"
        bound = INPUT_BOUND if is_float(dtype) else limit(dtype)
        return self.bind(Val(text, dtype, self.full, True, bound))

    def store(self, v: Val) -> None:
        dtype = "i8" if v.dtype == "i1" else v.dtype
        text = v.text if v.dtype != "i1" else f"{v.text}.to(tl.int8)"
        if v.shape == self.full:
            offs, mask, size = self.offsets_for_store()
        elif v.shape == ():
            offs, mask, size = "pid", "", self.grid
        else:
            n = v.shape[0]
            offs, mask, size = f"pid * {n} + tl.arange(0, {n})", "", self.grid * n
        a = self.new_array(dtype, size, output=True)
        if mask and self.draw(st.booleans()):
            self.emit(f"tl.store({a.name}_ptr + {offs}, {text}, mask={mask})")
        else:
            self.emit(f"tl.store({a.name}_ptr + {offs}, {text})")
        if not v.exact:
            self.tolerances[a.name] = tolerance(v)

    def offsets_for_store(self):
        if self.two_d:
            rows = f"(pid * {self.R} + tl.arange(0, {self.R}))"
            return f"{rows}[:, None] * {self.C} + tl.arange(0, {self.C})[None, :]", f"{rows}[:, None] < n", \
                self.total
        offs = f"(pid * {self.B} + tl.arange(0, {self.B}))"
        return offs, f"{offs} < n", self.total

    # ---- shapes ------------------------------------------------------------------------------
    def broadcast(self, *vals: Val) -> tuple[list, tuple] | None:
        """Operand texts lifted to their common shape, and that shape (None: they have none)."""
        shapes = {v.shape for v in vals if v.shape != ()}
        if not shapes:
            return [v.text for v in vals], ()
        if len(shapes) == 1:
            return [v.text for v in vals], shapes.pop()
        if not self.two_d or self.R == self.C and self.full not in shapes:
            return None             # in 2-D with R == C, (R,) and (C,) are one shape: nothing to lift
        texts = []
        for v in vals:
            if v.shape in ((), self.full):
                texts.append(v.text)
            else:
                texts.append(f"{v.text}[:, None]" if v.shape == (self.R,) else f"{v.text}[None, :]")
        return texts, self.full

    def two_operands(self, pred_a, pred_b) -> tuple[Val, Val] | None:
        """Two operands, at most one of them a Python number."""
        a = self.operand(pred_a, literal=True)
        b = self.operand(pred_b, literal=not a.literal)
        return (a, b) if pred_a(a) and pred_b(b) else None

    # ---- statements --------------------------------------------------------------------------
    def statement(self, depth: int = 0) -> None:
        kinds = ["reduce", "where", "binop", "loop", "compare", "cast", "binop", "scan", "unary", "math", "if_",
                 "reduce", "where", "binop", "loop"]
        if self.two_d and self.R >= 16:
            kinds = ["dot", "dot"] + kinds
        if depth > 0:
            kinds = [k for k in kinds if k not in ("loop", "if_")]
        kind = self.draw(st.sampled_from(kinds))
        v = getattr(self, kind)(depth) if kind in ("loop", "if_") else getattr(self, kind)()
        if v is not None:
            self.bind(v)

    def binop(self) -> Val | None:
        op = self.draw(st.sampled_from(BINOPS_ANY + BINOPS_INT))
        if op in BINOPS_INT:
            ab = self.two_operands(lambda v: is_int(v.dtype) and v.exact, lambda v: is_int(v.dtype) and v.exact)
        else:
            ab = self.two_operands(lambda v: v.dtype != "i1", lambda v: v.dtype != "i1")
        if ab is None:
            return None
        a, b = ab
        br = self.broadcast(a, b)
        if br is None:
            return None
        (ta, tb), shape = br
        d = result_dtype(a, b)
        if d is None or is_unsigned(d) and any(v.literal and v.text.startswith("-") for v in (a, b)):
            return None             # a negative Python int does not convert to an unsigned type
        if is_unsigned(d) and op in ("//", "%", "<<", ">>") and not WEAK_UNSIGNED_LITERALS:
            return None             # the divisor and shift amount below are built with Python ints
        exact = a.exact and b.exact
        if op in ("//", "%"):
            if is_unsigned(a.dtype) != is_unsigned(b.dtype) and not (a.literal or b.literal):
                return None         # Triton refuses // and % between signed and unsigned
            # a divisor in [2, 9] or [-9, -2]: never zero, never MIN // -1
            sign = "-" if not is_unsigned(d) and self.draw(st.booleans()) else ""
            return Val(f"({ta} {op} {sign}(({tb} & 7) + 2))", d, shape, exact, a.bound)
        if op in ("<<", ">>"):
            width = {"i8": 8, "u8": 8, "i16": 16, "i32": 32, "u32": 32}[d]
            return Val(f"({ta} {op} ({tb} & {width - 1}))", d, shape, exact, limit(d))
        if op in ("&", "|", "^"):
            return Val(f"({ta} {op} {tb})", d, shape, exact, limit(d))
        bound = a.bound * b.bound if op == "*" else a.bound + b.bound
        if is_int(d):
            bound = min(bound, limit(d))
        v = Val(f"({ta} {op} {tb})", d, shape, exact, bound)
        return v if v.fits() else None

    def compare(self) -> Val | None:
        ab = self.two_operands(lambda v: v.exact and v.dtype != "i1", lambda v: v.exact and v.dtype != "i1")
        if ab is None:
            return None
        a, b = ab
        if is_int(a.dtype) and is_int(b.dtype) and is_unsigned(a.dtype) != is_unsigned(b.dtype) \
                and not (a.literal or b.literal):
            return None             # mixed signedness compares after a promotion numpy does differently
        if result_dtype(a, b) is None or \
                any(v.literal and v.text.startswith("-") and is_unsigned(w.dtype) for v, w in ((a, b), (b, a))):
            return None
        br = self.broadcast(a, b)
        if br is None:
            return None
        (ta, tb), shape = br
        op = self.draw(st.sampled_from(COMPARES))
        v = Val(f"({ta} {op} {tb})", "i1", shape, True, 1)
        if self.draw(st.integers(0, 3)) == 0:
            c = self.pick(lambda w: w.dtype == "i1" and w.shape in (v.shape, ()))
            if c is not None:
                v = Val(f"({v.text} {self.draw(st.sampled_from(['&', '|', '^']))} {c.text})", "i1", v.shape, True, 1)
        return v

    def where(self) -> Val | None:
        c = self.tile_mask() if self.draw(st.integers(0, 3)) == 0 else None
        c = c or self.pick(lambda v: v.dtype == "i1") or self.compare()
        ab = self.two_operands(lambda v: v.dtype != "i1", lambda v: v.dtype != "i1")
        if c is None or ab is None:
            return None
        a, b = ab
        br = self.broadcast(c, a, b)
        if br is None:
            return None
        (tc, ta, tb), shape = br
        d = result_dtype(a, b)
        if d is None or is_unsigned(d) and any(v.literal and v.text.startswith("-") for v in (a, b)):
            return None
        return Val(f"tl.where({tc}, {ta}, {tb})", d, shape, a.exact and b.exact, max(a.bound, b.bound))

    def tile_mask(self) -> Val | None:
        """The bounds mask of a tile's offsets (`offs < n`: the MTIA backend's box select)."""
        _, mask, _ = self.offsets()
        if not mask:
            return None
        if not self.two_d:
            return Val(f"({mask})", "i1", self.full, True, 1)
        limit = self.draw(st.sampled_from([str(self.C), str(max(1, self.C // 2)), "n"]))
        return Val(f"(({mask}) & (tl.arange(0, {self.C})[None, :] < {limit}))", "i1", self.full, True, 1)

    def cast(self) -> Val | None:
        a = self.operand()
        to = self.draw(st.sampled_from(INTS + FLOATS))
        if is_float(a.dtype) and is_int(to):
            if not a.exact or a.bound >= limit(to) or (is_unsigned(to) and a.bound >= 1):
                return None         # float -> int only of values it can hold (no negative -> unsigned)
            bound = min(a.bound, limit(to))
        elif a.dtype == "i1":
            bound = 1
        elif is_int(to):
            bound = min(a.bound, limit(to)) if is_int(a.dtype) and a.bound < limit(to) else limit(to)
        else:
            bound = a.bound
        v = Val(f"{a.text}.to({tl_name(to)})", to, a.shape, a.exact, bound)
        return v if v.fits() else None

    def unary(self) -> Val | None:
        a = self.operand(lambda v: v.dtype != "i1")
        op = self.draw(st.sampled_from(["-", "abs", "~", "max", "min"]))
        if op == "~":
            if not is_int(a.dtype) or not a.exact:
                return None
            return Val(f"(~{a.text})", a.dtype, a.shape, a.exact, limit(a.dtype))
        if op in ("max", "min"):
            b = self.operand(lambda v: v.dtype != "i1", literal=True)
            br = self.broadcast(a, b)
            if br is None or b.dtype == "i1" or is_int(a.dtype) and is_int(b.dtype) and \
                    is_unsigned(a.dtype) != is_unsigned(b.dtype) and not b.literal:
                return None
            if is_unsigned(a.dtype) and b.literal and b.text.startswith("-"):
                return None
            (ta, tb), shape = br
            # tl.minimum / tl.maximum make tensors of their operands first (a literal is i32 or f32,
            # not weakly typed) and widen bf16 to f32
            d = promote(*("f32" if x.dtype == "bf16" else x.dtype for x in (a, b)))
            return Val(f"tl.{op}imum({ta}, {tb})", d, shape, a.exact and b.exact, max(a.bound, b.bound))
        text = f"(-{a.text})" if op == "-" else f"tl.abs({a.text})"
        return Val(text, a.dtype, a.shape, a.exact, limit(a.dtype) if is_int(a.dtype) else a.bound)

    def math(self) -> Val | None:
        """Float functions (inexact: each executor's libm may round differently), on f32."""
        a = self.operand(lambda v: v.dtype != "i1")
        x = f"{a.text}.to(tl.float32)"
        fn = self.draw(st.sampled_from(["exp", "log", "sqrt", "sin", "cos", "sigmoid", "div", "rsqrt", "exp2"]))
        bound = min(a.bound, limit("f32"))
        texts = {"exp": (f"tl.exp(tl.minimum(tl.maximum({x}, -8.0), 8.0))", 3.0e3),
                 "exp2": (f"tl.math.exp2(tl.minimum(tl.maximum({x}, -8.0), 8.0))", 256.0),
                 "log": (f"tl.log(tl.abs({x}) + 1.0)", 100.0),
                 "sqrt": (f"tl.sqrt(tl.abs({x}))", bound ** 0.5 + 1),
                 "rsqrt": (f"tl.rsqrt(tl.abs({x}) + 1.0)", 1.0),
                 "sin": (f"tl.sin({x})", 1.0), "cos": (f"tl.cos({x})", 1.0),
                 "sigmoid": (f"tl.sigmoid({x})", 1.0)}
        if fn == "div":
            b = self.operand(lambda v: v.dtype != "i1")
            br = self.broadcast(a, b)
            if br is None or b.dtype == "i1":
                return None
            (ta, tb), shape = br
            return Val(f"({ta}.to(tl.float32) / (tl.abs({tb}.to(tl.float32)) + 1.0))", "f32", shape, False, bound)
        text, b = texts[fn]
        return Val(text, "f32", a.shape, False, b)

    def reduce(self) -> Val | None:
        a = self.operand(lambda v: v.shape != ())
        if a.shape == ():
            return None
        fn = self.draw(st.sampled_from(["sum", "max", "min", "argmax", "argmin", "xor_sum"]))
        axis = self.draw(st.integers(0, len(a.shape) - 1))
        n = a.shape[axis]
        shape = tuple(s for i, s in enumerate(a.shape) if i != axis)
        if fn == "xor_sum":
            if not is_int(a.dtype) or not a.exact:
                return None
            return Val(f"tl.xor_sum({a.text}, axis={axis})", a.dtype, shape, True, limit(a.dtype))
        if fn in ("argmax", "argmin"):
            if not a.exact or a.dtype == "i1":
                return None
            return Val(f"tl.{fn}({a.text}, axis={axis})", "i32", shape, True, n)
        if fn == "sum":
            d = sum_dtype(a.dtype)
            bound = a.bound * n if is_float(d) else limit(d)
            v = Val(f"tl.sum({a.text}, axis={axis})", d, shape, a.exact and not is_float(d), bound)
            return v if v.fits() else None
        return Val(f"tl.{fn}({a.text}, axis={axis})", minmax_dtype(a.dtype), shape, a.exact, a.bound)

    def scan(self) -> Val | None:
        a = self.operand(lambda v: v.shape != () and v.dtype != "i1")
        if a.shape == () or a.dtype == "i1":
            return None
        axis = self.draw(st.integers(0, len(a.shape) - 1))
        if self.draw(st.booleans()):
            d = "f32" if a.dtype == "bf16" else sum_dtype(a.dtype)    # Triton scans bf16 in f32
            bound = a.bound * a.shape[axis] if is_float(d) else limit(d)
            v = Val(f"tl.cumsum({a.text}, axis={axis})", d, a.shape, a.exact and not is_float(d), bound)
        else:
            if not is_int(a.dtype):
                return None         # float products overflow
            v = Val(f"tl.cumprod({a.text}, axis={axis})", a.dtype, a.shape, a.exact, limit(a.dtype))
        return v if v.fits() else None

    def dot(self) -> Val | None:
        """(R, C) @ (C, C): f16 operands with an f32 result, or int8 with int32; exact when `a` is (both
        executors sum a dot the same way, isa/dot_numerics.py)."""
        a = self.operand(lambda v: v.shape == self.full)
        if a.shape != self.full:
            return None
        kind = self.draw(st.sampled_from(["f16", "i8"]))
        w = self.new_array(kind, self.C * self.C)
        wv = self.bind(Val(f"tl.load({w.name}_ptr + tl.arange(0, {self.C})[:, None] * {self.C} + "
                           f"tl.arange(0, {self.C})[None, :])", kind, (self.C, self.C), True,
                           INPUT_BOUND if kind == "f16" else 128), keep=False)
        if kind == "i8":
            if not (is_int(a.dtype) and a.exact):
                return None
            return Val(f"tl.dot({a.text}.to(tl.int8), {wv.text})", "i32", self.full, True, limit("i32"))
        if a.bound > limit("f16"):
            return None
        return Val(f"tl.dot({a.text}.to(tl.float16), {wv.text})", "f32", self.full, a.exact,
                   a.bound * INPUT_BOUND * self.C)

    def loop(self, depth: int) -> Val | None:
        """A loop carrying `acc` (a new value), updated every trip and maybe only under an `if`."""
        init = self.operand(lambda v: v.dtype != "i1" and v.shape != ())
        if init.dtype == "i1":
            return None
        trips = self.draw(st.sampled_from(["nt", "2", "3"]))
        acc = self.bind(Val(f"({init.text} | {init.text})" if is_int(init.dtype) else f"{init.text} * 1.0", init.dtype,
                            init.shape, init.exact, init.bound), keep=False)
        form = self.draw(st.sampled_from(["for", "for", "while"]))
        var = f"i{self.count}"
        if form == "for":
            self.emit(f"for {var} in range({trips}):")
        else:
            self.emit(f"{var} = 0")
            self.emit(f"while {var} < {trips}:")
        self.indent += 1
        saved = list(self.vals)
        self.loop_var = var
        self.vals.append(Val(var, "i32", (), True, MAX_TRIPS))
        for _ in range(self.draw(st.integers(0, 2))):
            self.statement(depth + 1)
        upd = self.update(acc, MAX_TRIPS)
        if upd is None:
            self.emit("pass")
        else:
            if self.draw(st.booleans()):
                self.emit(f"if {self.draw(st.sampled_from([f'{var} % 2 == 0', f'{var} < s0', 's0 > 0']))}:")
                self.indent += 1
                self.emit(f"{acc.text} = {upd.text}")
                self.indent -= 1
            else:
                self.emit(f"{acc.text} = {upd.text}")
        if form == "while":
            self.emit(f"{var} += 1")
        self.indent -= 1
        self.loop_var = None
        self.vals = saved
        bound = upd.bound if upd is not None else acc.bound
        out = Val(acc.text, acc.dtype, acc.shape, acc.exact and (upd is None or upd.exact), bound)
        self.vals.append(out)
        return None

    def update(self, acc: Val, trips: int) -> Val | None:
        """A new value for `acc` of its own dtype and shape, with a bound that holds for `trips` trips."""
        e = self.operand(lambda v: v.dtype != "i1" and (v.shape == acc.shape or v.shape == ()))
        if e.dtype == "i1" or promote(acc.dtype, e.dtype) != acc.dtype:
            if is_int(acc.dtype) and is_float(e.dtype):
                return None
            e = Val(f"{e.text}.to({tl_name(acc.dtype)})", acc.dtype, e.shape, e.exact,
                    e.bound if is_float(acc.dtype) or e.bound < limit(acc.dtype) else limit(acc.dtype))
        if e.shape not in (acc.shape, ()):
            return None
        op = self.draw(st.sampled_from(["+", "-", "max", "min", "^", "where"]))
        exact = acc.exact and e.exact
        if op in ("+", "-"):
            bound = acc.bound + trips * e.bound
            if is_int(acc.dtype):
                bound = limit(acc.dtype)
            v = Val(f"{acc.text} {op} {e.text}", acc.dtype, acc.shape, exact, bound)
            return v if v.fits() else None
        if op == "^":
            if not is_int(acc.dtype):
                return None
            return Val(f"{acc.text} ^ {e.text}", acc.dtype, acc.shape, exact, limit(acc.dtype))
        if op == "where":
            c = self.pick(lambda v: v.dtype == "i1" and v.shape in (acc.shape, ()))
            if c is None:
                return None
            return Val(f"tl.where({c.text}, {e.text}, {acc.text})", acc.dtype, acc.shape, exact,
                       max(acc.bound, e.bound))
        text = f"tl.{op}imum({acc.text}, {e.text})"
        if promote(*("f32" if d == "bf16" else d for d in (acc.dtype, e.dtype))) != acc.dtype:
            text += f".to({tl_name(acc.dtype)})"    # bf16 is compared in f32; a loop-carried value keeps its type
        return Val(text, acc.dtype, acc.shape, exact, max(acc.bound, e.bound))

    def if_(self, depth: int) -> Val | None:
        """`if <scalar condition>:` reassigning an existing value (an else branch maybe)."""
        target = self.pick(lambda v: v.text.startswith("v") and v.dtype != "i1")
        if target is None:
            return None
        cond = self.draw(st.sampled_from(["s0 > 0", "n % 2 == 1", "pid == 0", "f0 < 1.0"]))
        self.emit(f"if {cond}:")
        branches = [self.draw(st.integers(0, 1))]
        if self.draw(st.booleans()):
            branches.append(self.draw(st.integers(0, 1)))
        new = target
        for k, _ in enumerate(branches):
            if k == 1:
                self.emit("else:")
            self.indent += 1
            saved = list(self.vals)
            upd = self.update(target, 1)
            self.vals = saved
            if upd is None:
                self.emit("pass")
            else:
                self.emit(f"{target.text} = {upd.text}")
                new = Val(target.text, target.dtype, target.shape, new.exact and upd.exact,
                          max(new.bound, upd.bound))
            self.indent -= 1
        self.vals = [new if v.text == target.text else v for v in self.vals]
        return None


def tolerance(v: Val) -> float:
    """atol for an inexact output: relative to the value's bound, at the precision of its dtype."""
    eps = {"f16": 4e-3, "bf16": 3e-2, "f32": 2e-5}.get(v.dtype, 0.0)
    return eps * (v.bound + 1.0)


@st.composite
def cases(draw) -> Case:
    b = Builder(draw)
    b.emit("pid = tl.program_id(0)")
    for _ in range(draw(st.integers(1, 6))):
        b.statement()
    stored = [v for v in b.vals if v.text.startswith("v")]
    if not stored:
        stored = [b.load()]
    picks = draw(st.lists(st.sampled_from(stored), min_size=1, max_size=3, unique_by=lambda v: v.text))
    last = stored[-1]
    for v in ([last] + [p for p in picks if p.text != last.text])[:3]:
        b.store(v)
    params = ", ".join(f"{a.name}_ptr" for a in b.arrays)
    header = ["import compiler as triton", "import compiler.language as tl", "", "",
              '@triton.jit(do_not_specialize=["n", "nt", "s0"])',
              f"def kernel({params}, n, nt, s0, f0):"]
    source = "\n".join(header + b.lines) + "\n"
    return Case(source, b.arrays, b.scalars, b.grid, draw(st.integers(0, 2 ** 31 - 1)), b.tolerances)
