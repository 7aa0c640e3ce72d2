"""SIMD Engine semantics: element-wise numpy over tiles (see isa/se.py for each op's definition)."""
from __future__ import annotations

import math

import numpy as np

from isa import float_minmax as minmax
from isa import se
from isa.float_to_int import float_to_int
from isa.types import np_dtype

from . import semantics
from .tiles import compute_dtype, source, store, view


def _erf(x):
    v = np.vectorize(math.erf, otypes=[np.float64])
    return v(x.astype(np.float64))


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def _pow(a, b):
    """C pow: numpy turns a uniform exponent of 0.5 (a scalar or a broadcast view) into sqrt, where
    pow(-0, 0.5) = -0 and pow(-inf, 0.5) = nan, so the exponent is given as a full array."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b)) or (1,)
    return np.power(np.broadcast_to(a, shape), np.array(np.broadcast_to(b, shape)))


def _trunc_div(a, b):
    """C integer division: truncate toward zero; x / 0 = 0."""
    zero = b == 0
    bb = np.where(zero, 1, b)
    q = a // bb
    q = q + ((a % bb != 0) & ((a < 0) != (bb < 0)))
    return np.where(zero, 0, q).astype(a.dtype if hasattr(a, "dtype") else np.int64)


def _trunc_rem(a, b):
    zero = b == 0
    bb = np.where(zero, 1, b)
    r = np.fmod(a, bb)
    return np.where(zero, 0, r)


def _shift(a, b, left: bool):
    a = np.asarray(a)
    bits = a.dtype.itemsize * 8
    b = np.asarray(b).astype(np.int64)
    big = (b >= bits) | (b < 0)
    bs = np.where(big, 0, b).astype(a.dtype)
    if left:
        r = np.left_shift(a, bs)
        return np.where(big, 0, r)
    r = np.right_shift(a, bs)
    fill = np.where(a < 0, -1, 0) if a.dtype.kind == "i" else 0
    return np.where(big, fill, r)


def _umulhi(a, b):
    a = np.asarray(a)
    bits = a.dtype.itemsize * 8
    if bits <= 32:
        ua = a.astype(np.uint64) & np.uint64((1 << bits) - 1)
        ub = np.asarray(b).astype(np.uint64) & np.uint64((1 << bits) - 1)
        return ((ua * ub) >> np.uint64(bits)).astype(a.dtype)
    ua = a.astype(np.uint64)
    ub = np.asarray(b).astype(np.uint64)
    m32 = np.uint64(0xFFFFFFFF)
    a_lo, a_hi, b_lo, b_hi = ua & m32, ua >> np.uint64(32), ub & m32, ub >> np.uint64(32)
    ll = a_lo * b_lo
    mid1 = a_hi * b_lo + (ll >> np.uint64(32))
    mid2 = a_lo * b_hi + (mid1 & m32)
    return (a_hi * b_hi + (mid1 >> np.uint64(32)) + (mid2 >> np.uint64(32))).astype(a.dtype)


UNARY = {
    se.SeNeg: np.negative, se.SeAbs: np.abs, se.SeExp: np.exp, se.SeExp2: np.exp2, se.SeLog: np.log,
    se.SeLog2: np.log2, se.SeSqrt: np.sqrt, se.SeRsqrt: lambda x: 1.0 / np.sqrt(x),
    se.SeRecip: lambda x: 1.0 / x, se.SeSigmoid: _sigmoid, se.SeTanh: np.tanh, se.SeErf: _erf,
    se.SeSin: np.sin, se.SeCos: np.cos, se.SeFloor: np.floor, se.SeCeil: np.ceil, se.SeRint: np.rint,
    se.SeIsnan: np.isnan, se.SeIsinf: np.isinf,
}
BINARY = {
    se.SeAdd: np.add, se.SeSub: np.subtract, se.SeMul: np.multiply, se.SeMax: minmax.fmax, se.SeMin: minmax.fmin,
    se.SeMaxNan: minmax.maximum, se.SeMinNan: minmax.minimum, se.SePow: _pow, se.SeAtan2: np.arctan2,
    se.SeAnd: np.bitwise_and, se.SeOr: np.bitwise_or, se.SeXor: np.bitwise_xor,
    se.SeUmulhi: _umulhi,
}
COMPARE = {se.SeEq: np.equal, se.SeNe: np.not_equal, se.SeLt: np.less, se.SeLe: np.less_equal,
           se.SeGt: np.greater, se.SeGe: np.greater_equal}


def _operand_dtype(cmd, names) -> str:
    """Compares compute in their tile operands' dtype; everything else in the output's."""
    for n in names:
        t = getattr(cmd.ins, n)
        if hasattr(t, "dtype"):
            return t.dtype
    return cmd.ins.out.dtype


@semantics(*UNARY)
def unary(ctx, cmd):
    dt = compute_dtype(_operand_dtype(cmd, ("a",)) if type(cmd.ins) in (se.SeIsnan, se.SeIsinf)
                       else cmd.ins.out.dtype)
    a = source(ctx, cmd, "a", dt)
    with np.errstate(all="ignore"):
        store(ctx, cmd, "out", UNARY[type(cmd.ins)](a))


@semantics(se.SeNot)
def not_(ctx, cmd):
    out = cmd.ins.out.dtype
    a = source(ctx, cmd, "a", np_dtype(out))
    store(ctx, cmd, "out", np.logical_not(a) if out == "i1" else np.invert(a))


@semantics(*BINARY)
def binary(ctx, cmd):
    dt = compute_dtype(cmd.ins.out.dtype)
    a, b = source(ctx, cmd, "a", dt), source(ctx, cmd, "b", dt)
    with np.errstate(all="ignore"):
        store(ctx, cmd, "out", BINARY[type(cmd.ins)](a, b))


@semantics(se.SeDiv)
def div(ctx, cmd):
    dt = compute_dtype(cmd.ins.out.dtype)
    a, b = source(ctx, cmd, "a", dt), source(ctx, cmd, "b", dt)
    with np.errstate(all="ignore"):
        store(ctx, cmd, "out", np.divide(a, b) if dt.kind == "f" else _trunc_div(np.asarray(a), np.asarray(b)))


@semantics(se.SeRem)
def rem(ctx, cmd):
    dt = compute_dtype(cmd.ins.out.dtype)
    a, b = source(ctx, cmd, "a", dt), source(ctx, cmd, "b", dt)
    with np.errstate(all="ignore"):
        store(ctx, cmd, "out", np.fmod(a, b) if dt.kind == "f" else _trunc_rem(np.asarray(a), np.asarray(b)))


@semantics(se.SeShl, se.SeShr)
def shift(ctx, cmd):
    dt = np_dtype(cmd.ins.out.dtype)
    a, b = source(ctx, cmd, "a", dt), source(ctx, cmd, "b", dt)
    store(ctx, cmd, "out", _shift(a, b, left=type(cmd.ins) is se.SeShl))


def _scalars_dtype(cmd, names) -> np.dtype:
    """The dtype two scalar operands (registers, immediates) compare in: their values as they are, so
    int64 unless one is a float with a fraction (or not finite). Not the output's i1, which would turn
    `x < 512` for x = 7 into `True < True`."""
    exact_ints = all(not isinstance(v, float) or v.is_integer() for v in (cmd.vals[n] for n in names))
    return np.dtype(np.int64) if exact_ints else np.dtype(np.float64)


@semantics(*COMPARE)
def compare(ctx, cmd):
    names = ("a", "b")
    tiled = any(hasattr(getattr(cmd.ins, n), "dtype") for n in names)
    dt = compute_dtype(_operand_dtype(cmd, names)) if tiled else _scalars_dtype(cmd, names)
    a, b = source(ctx, cmd, "a", dt), source(ctx, cmd, "b", dt)
    store(ctx, cmd, "out", COMPARE[type(cmd.ins)](a, b))


@semantics(se.SeSelect)
def select(ctx, cmd):
    dt = compute_dtype(cmd.ins.out.dtype)
    c = source(ctx, cmd, "cond", np.dtype(np.bool_))
    store(ctx, cmd, "out", np.where(c, source(ctx, cmd, "a", dt), source(ctx, cmd, "b", dt)))


@semantics(se.SeSelectBox)
def select_box(ctx, cmd):
    dt = compute_dtype(cmd.ins.out.dtype)
    shape = cmd.ins.out.shape
    out = np.array(np.broadcast_to(source(ctx, cmd, "b", dt), shape))     # a copy: b may be out's own slot
    box = tuple(slice(0, min(max(int(v), 0), n)) for v, n in zip(cmd.vals["valid"], shape))
    out[box] = np.broadcast_to(source(ctx, cmd, "a", dt), shape)[box]
    store(ctx, cmd, "out", out)


@semantics(se.SeFma)
def fma(ctx, cmd):
    out = cmd.ins.out.dtype
    dt = np.dtype(np.float64) if out in ("f32", "f16", "bf16") else compute_dtype(out)
    a, b, c = (source(ctx, cmd, n, dt) for n in ("a", "b", "c"))
    with np.errstate(all="ignore"):
        store(ctx, cmd, "out", a * b + c)     # f64 product of f32 values is exact: one rounding


@semantics(se.SeMov)
def mov(ctx, cmd):
    t = cmd.ins.a
    a = view(ctx.ls, cmd.addr["a"], t) if "a" in cmd.addr else source(ctx, cmd, "a", compute_dtype(cmd.ins.out.dtype))
    out_dt = np_dtype(cmd.ins.out.dtype)
    with np.errstate(all="ignore"):
        if out_dt.kind in "iu" and np.asarray(a).dtype.kind in "fV":      # (V: bf16 and fp8 tiles)
            a = float_to_int(a, out_dt)
        store(ctx, cmd, "out", a)


@semantics(se.SeBitcast)
def bitcast(ctx, cmd):
    a = view(ctx.ls, cmd.addr["a"], cmd.ins.a)
    store(ctx, cmd, "out", a.view(np_dtype(cmd.ins.out.dtype)).reshape(cmd.ins.out.shape))


@semantics(se.SeFill)
def fill(ctx, cmd):
    store(ctx, cmd, "out", source(ctx, cmd, "value", compute_dtype(cmd.ins.out.dtype)))


@semantics(se.SeIota)
def iota(ctx, cmd):
    t = cmd.ins.out
    n = t.size
    store(ctx, cmd, "out", (np.arange(n, dtype=np.int64) + int(cmd.vals["start"])).reshape(t.shape))
