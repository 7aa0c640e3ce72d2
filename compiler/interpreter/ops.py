"""The executable definition of every IR op, on numpy values.

`EVAL[op_name](ctx, op, args) -> list of results`. Scalars are 0-d arrays, blocks n-d arrays, pointers
int64 byte addresses, i1 numpy bools. Floats narrower than f32 are computed in f32 and rounded to
the result type (what GPUs and MTIA's engines do for fp16/bf16 arithmetic). Ops that need the
running program (program ids, memory) read them from `ctx` (see `interpreter.py`); the pure ones
are also used by the constant folder.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from isa import float_minmax as minmax
from isa.dot_numerics import f64_product, float_product
from isa.float_to_int import float_to_int
from isa.sync import print_lines

from ..ir import types as T
from ..ir.ops import Op

EVAL: dict = {}


def defines(*names):
    def deco(fn):
        for n in names:
            EVAL[n] = fn
        return fn
    return deco


def np_type(t: T.Type) -> np.dtype:
    s = t.scalar
    if isinstance(s, T.PointerType):
        return np.dtype(np.int64)
    return s.np_dtype


def _as(x, dt) -> np.ndarray:
    return np.asarray(x).astype(dt, copy=False)


_NARROW_FLOATS = frozenset(np.dtype(t) for t in (np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn,
                                                  ml_dtypes.float8_e5m2))


def _narrow(dt: np.dtype) -> bool:
    """Floats narrower than f32 (computed through f32)."""
    return dt in _NARROW_FLOATS


def float_compute(fn, result_dt: np.dtype, *xs):
    """fn on float operands: narrow formats go through f32, the result is rounded to result_dt."""
    if _narrow(result_dt) or any(_narrow(np.asarray(x).dtype) for x in xs):
        xs = [np.asarray(x).astype(np.float32) for x in xs]
    return _as(fn(*xs), result_dt)


# --- constants and ids ------------------------------------------------------------------------------

@defines(Op.CONSTANT)
def _constant(ctx, op, args):
    t = op.result.type
    dt = np_type(t)
    v = op.attrs["value"]
    if t.scalar in T.STORAGE_FP8:     # a storage-only fp8 constant holds its code (constant_fold.py)
        return [np.full(t.shape, v, dtype=np.uint8).view(dt)]
    return [np.full(t.shape, v, dtype=dt) if t.shape else np.asarray(v, dtype=dt)]


@defines(Op.MAKE_RANGE)
def _make_range(ctx, op, args):
    return [np.arange(op.attrs["start"], op.attrs["end"], dtype=np.int32)]


@defines(Op.GET_PROGRAM_ID)
def _pid(ctx, op, args):
    return [np.asarray(ctx.pid[op.attrs["axis"]], dtype=np.int32)]


@defines(Op.GET_NUM_PROGRAMS)
def _nprog(ctx, op, args):
    return [np.asarray(ctx.grid[op.attrs["axis"]], dtype=np.int32)]


@defines(Op.GET_PE_ID)
def _pe_id(ctx, op, args):
    return [np.asarray(ctx.pe_id, dtype=np.int32)]


@defines(Op.RE_REDUCE)
def _re_reduce(ctx, op, args):
    return [args[0]]   # one program at a time: nothing to combine with


# --- integer arithmetic -----------------------------------------------------------------------------

def _int_binop(fn):
    def ev(ctx, op, args):
        dt = np_type(op.result.type)
        a, b = (_as(x, dt) for x in args)
        return [_as(fn(a, b), dt)]
    return ev


def _divsi(a, b):
    b1 = np.where(b == 0, 1, b).astype(a.dtype)
    q = a // b1
    fix = (a - q * b1 != 0) & ((a < 0) != (b1 < 0))
    return np.where(b == 0, 0, q + fix.astype(a.dtype))


def _safe(fn):
    def g(a, b):
        b1 = np.where(b == 0, 1, b).astype(a.dtype)
        return np.where(b == 0, 0, fn(a, b1))
    return g


def _unsigned(dt: np.dtype) -> np.dtype:
    return np.dtype(f"u{dt.itemsize}") if dt.kind == "i" else dt


def _shift(kind):
    def fn(a, b):
        bits = 1 if a.dtype == np.bool_ else a.dtype.itemsize * 8
        big = (b < 0) | (b >= bits)
        bb = np.where(big, 0, b).astype(a.dtype)
        if kind == "shl":
            return np.where(big, 0, np.left_shift(a, bb))
        if kind == "shrsi":
            return np.where(big, np.where(a < 0, -1, 0), np.right_shift(a, bb))
        ua = a.view(_unsigned(a.dtype)) if a.ndim else np.asarray(a).view(_unsigned(a.dtype))
        r = np.right_shift(ua, bb.astype(ua.dtype)).view(a.dtype)
        return np.where(big, 0, r)
    return fn


def _mulhi(a, b):
    dt = a.dtype
    bits = dt.itemsize * 8
    ua, ub = np.asarray(a).view(_unsigned(dt)), np.asarray(b).view(_unsigned(dt))
    if bits <= 32:
        p = ua.astype(np.uint64) * ub.astype(np.uint64)
        return (p >> np.uint64(bits)).astype(_unsigned(dt)).view(dt)
    # 64-bit: split into 32-bit halves (numpy has no 128-bit integers)
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    a_lo, a_hi, b_lo, b_hi = ua & m32, ua >> s32, ub & m32, ub >> s32
    lo_lo, hi_lo, lo_hi, hi_hi = a_lo * b_lo, a_hi * b_lo, a_lo * b_hi, a_hi * b_hi
    cross = (lo_lo >> s32) + (hi_lo & m32) + lo_hi
    return (hi_hi + (hi_lo >> s32) + (cross >> s32)).view(dt)


def _unsigned_pair(fn):
    def g(a, b):
        u = _unsigned(a.dtype)
        return fn(np.asarray(a).view(u), np.asarray(b).view(u)).view(a.dtype)
    return g


def _wrapping(fn, on_bools):
    """An integer add/sub that wraps at every width, i1 included: on bools numpy's add is a logical or
    (True + True = True) and its subtract raises, where i1 arithmetic is mod 2 (True + True = False)."""
    def g(a, b):
        return on_bools(a, b) if a.dtype == np.bool_ else fn(a, b)
    return g


for _name, _fn in {
    Op.ADDI: _wrapping(np.add, np.bitwise_xor), Op.SUBI: _wrapping(np.subtract, np.bitwise_xor),
    Op.MULI: np.multiply, Op.DIVSI: _divsi,
    Op.DIVUI: _safe(_unsigned_pair(np.floor_divide)), Op.REMSI: _safe(np.fmod),
    Op.REMUI: _safe(_unsigned_pair(np.remainder)), Op.ANDI: np.bitwise_and, Op.ORI: np.bitwise_or,
    Op.XORI: np.bitwise_xor, Op.SHLI: _shift("shl"), Op.SHRSI: _shift("shrsi"), Op.SHRUI: _shift("shrui"),
    Op.MAXSI: np.maximum, Op.MINSI: np.minimum, Op.MAXUI: _unsigned_pair(np.maximum),
    Op.MINUI: _unsigned_pair(np.minimum), Op.MULHIUI: _mulhi,
}.items():
    EVAL[_name] = _int_binop(_fn)


@defines(Op.ABSI)
def _absi(ctx, op, args):
    return [_as(np.abs(args[0]), np_type(op.result.type))]


# --- float arithmetic -------------------------------------------------------------------------------

def _float_op(fn):
    def ev(ctx, op, args):
        return [float_compute(fn, np_type(op.result.type), *args)]
    return ev


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x) if np.asarray(x).size else np.asarray(x)


def _pow(a, b):
    """C pow; numpy computes a uniform exponent of 0.5 as sqrt (sqrt(-0) = -0, not pow's +0)."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b))
    return np.power(a, np.array(np.broadcast_to(b, shape))) if shape else \
        np.asarray(np.power(np.reshape(a, 1), np.reshape(b, 1))[0])


for _name, _fn in {
    Op.ADDF: np.add, Op.SUBF: np.subtract, Op.MULF: np.multiply, Op.DIVF: np.divide, Op.PRECISE_DIVF: np.divide,
    Op.REMF: np.fmod, Op.NEGF: np.negative, Op.MAXIMUMF: minmax.maximum, Op.MINIMUMF: minmax.minimum,
    Op.MAXNUMF: minmax.fmax, Op.MINNUMF: minmax.fmin, Op.EXP: np.exp, Op.EXP2: np.exp2, Op.LOG: np.log,
    Op.LOG2: np.log2, Op.SQRT: np.sqrt, Op.PRECISE_SQRT: np.sqrt, Op.RSQRT: lambda x: 1 / np.sqrt(x),
    Op.ABSF: np.abs, Op.ERF: _erf, Op.FLOOR: np.floor, Op.CEIL: np.ceil, Op.SIN: np.sin, Op.COS: np.cos,
    Op.TANH: np.tanh, Op.ROUNDEVEN: np.rint, Op.POWF: _pow, Op.ATAN2: np.arctan2,
}.items():
    EVAL[_name] = _float_op(_fn)


@defines(Op.ISNAN, Op.ISINF)
def _float_test(ctx, op, args):
    return [np.asarray((np.isnan if op.name == Op.ISNAN else np.isinf)(np.asarray(args[0], np.float64)))]


@defines(Op.FMA)
def _fma(ctx, op, args):
    dt = np_type(op.result.type)
    a, b, c = (np.asarray(x).astype(np.float64) for x in args)
    if dt == np.float64:   # no wider type to hide the intermediate rounding: use Python's exact fma
        return [_as(np.vectorize(math.fma)(a, b, c) if hasattr(math, "fma") else a * b + c, dt)]
    return [_as(a * b + c, dt)]


# --- comparisons and select -------------------------------------------------------------------------

_ICMP = {"eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal, "sgt": np.greater,
         "sge": np.greater_equal, "ult": np.less, "ule": np.less_equal, "ugt": np.greater, "uge": np.greater_equal}


@defines(Op.CMPI)
def _cmpi(ctx, op, args):
    pred = op.attrs["predicate"]
    a, b = (np.asarray(x) for x in args)
    if pred.startswith("u"):
        a, b = a.view(_unsigned(a.dtype)), b.view(_unsigned(b.dtype))
    return [np.asarray(_ICMP[pred](a, b))]


@defines(Op.CMPF)
def _cmpf(ctx, op, args):
    pred = op.attrs["predicate"]
    a, b = (np.asarray(x).astype(np.float64) if _narrow(np.asarray(x).dtype) else np.asarray(x) for x in args)
    ordered = ~(np.isnan(a) | np.isnan(b))
    r = {"oeq": lambda: a == b, "one": lambda: (a != b) & ordered, "olt": lambda: a < b, "ole": lambda: a <= b,
         "ogt": lambda: a > b, "oge": lambda: a >= b, "une": lambda: a != b, "ord": lambda: ordered,
         "uno": lambda: ~ordered}[pred]()
    return [np.asarray(r)]


@defines(Op.SELECT)
def _select(ctx, op, args):
    c, a, b = args
    return [_as(np.where(c, a, b), np_type(op.result.type))]


# --- casts ------------------------------------------------------------------------------------------

@defines(Op.EXTSI, Op.TRUNCI, Op.SITOFP, Op.EXTF, Op.TRUNCF, Op.INT_TO_PTR, Op.PTR_TO_INT)
def _astype(ctx, op, args):
    dt = np_type(op.result.type)
    x = np.asarray(args[0])
    if dt == np.bool_:                      # trunci to i1 keeps the lowest bit
        return [np.asarray(x & 1).astype(np.bool_)]
    return [_as(x, dt)]


@defines(Op.EXTUI, Op.UITOFP)
def _astype_unsigned(ctx, op, args):
    x = np.asarray(args[0])
    if x.dtype.kind == "i":
        x = x.view(_unsigned(x.dtype))
    return [_as(x, np_type(op.result.type))]


@defines(Op.FPTOSI, Op.FPTOUI)
def _fptoi(ctx, op, args):
    return [float_to_int(args[0], np_type(op.result.type))]      # saturating, NaN -> 0 (isa/float_to_int.py)


@defines(Op.FP_TO_FP)
def _fp_to_fp(ctx, op, args):
    dt = np_type(op.result.type)
    x = np.asarray(args[0])
    return [_as(x.astype(np.float32) if _narrow(x.dtype) and _narrow(dt) else x, dt)]


@defines(Op.BITCAST, Op.PTR_BITCAST)
def _bitcast(ctx, op, args):
    dt = np_type(op.result.type)
    x = np.asarray(args[0])
    return [np.ascontiguousarray(x).view(dt).reshape(x.shape)]   # (ascontiguousarray makes 0-d 1-d)


# --- shapes -----------------------------------------------------------------------------------------

@defines(Op.SPLAT)
def _splat(ctx, op, args):
    return [np.full(op.result.type.shape, args[0], dtype=np_type(op.result.type))]


@defines(Op.BROADCAST)
def _broadcast(ctx, op, args):
    return [np.broadcast_to(args[0], op.result.type.shape)]


@defines(Op.EXPAND_DIMS)
def _expand_dims(ctx, op, args):
    return [np.expand_dims(args[0], op.attrs["axis"])]


@defines(Op.RESHAPE)
def _reshape(ctx, op, args):
    return [np.reshape(args[0], op.result.type.shape)]


@defines(Op.TRANS)
def _trans(ctx, op, args):
    return [np.transpose(args[0], op.attrs["order"])]


@defines(Op.JOIN)
def _join(ctx, op, args):
    return [np.stack([args[0], args[1]], axis=-1)]


@defines(Op.SPLIT)
def _split(ctx, op, args):
    return [args[0][..., 0].copy(), args[0][..., 1].copy()]   # (ascontiguousarray makes 0-d halves 1-d)


@defines(Op.CAT)
def _cat(ctx, op, args):
    return [np.concatenate([args[0], args[1]], axis=0)]


@defines(Op.EXTRACT_SLICE)
def _extract_slice(ctx, op, args):
    idx = tuple(slice(o, o + (n - 1) * s + 1, s) for o, n, s in
                zip(op.attrs["offsets"], op.attrs["sizes"], op.attrs["strides"]))
    return [args[0][idx]]


# --- pointers and memory ----------------------------------------------------------------------------

def elem_size(ptr_type: T.Type) -> int:
    return ptr_type.scalar.element_ty.itemsize


@defines(Op.ADDPTR)
def _addptr(ctx, op, args):
    p, off = args
    return [np.asarray(p, dtype=np.int64) + np.asarray(off).astype(np.int64) * elem_size(op.result.type)]


@defines(Op.LOAD)
def _load(ctx, op, args):
    dt = np_type(op.result.type)
    mask = args[1] if len(args) > 1 else None
    out = ctx.memory.load(args[0], dt, mask)
    if len(args) > 2:
        out = np.where(mask, out, args[2]).astype(dt)
    return [out if out.ndim else np.asarray(out)]


@defines(Op.STORE)
def _store(ctx, op, args):
    ctx.memory.store(args[0], np.asarray(args[1]), args[2] if len(args) > 2 else None)
    return []


_RMW = {"add": np.add, "fadd": np.add, "max": minmax.maximum, "min": minmax.minimum,
        "umax": _unsigned_pair(np.maximum), "umin": _unsigned_pair(np.minimum),
        "xchg": lambda old, v: v, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


@defines(Op.ATOMIC_RMW)
def _atomic_rmw(ctx, op, args):
    ptr, val = np.asarray(args[0]), np.asarray(args[1])
    dt = np_type(op.result.type)
    mask = np.broadcast_to(args[2], ptr.shape) if len(args) > 2 else np.ones(ptr.shape, bool)
    fn = _RMW[op.attrs["atomic_rmw_op"]]
    flat_p, flat_v, flat_m = ptr.reshape(-1), val.reshape(-1), mask.reshape(-1)
    old = np.zeros(flat_p.shape, dt)
    active = np.flatnonzero(flat_m)
    if len(np.unique(flat_p[active])) == len(active):     # distinct addresses: one vectorised step
        cur = ctx.memory.load(flat_p[active], dt, None)
        ctx.memory.store(flat_p[active], _apply(fn, cur, flat_v[active], dt), None)
        old[active] = cur
    else:                                                  # repeated addresses: lane by lane, in order
        for i in active:
            cur = ctx.memory.load(flat_p[i:i + 1], dt, None)
            ctx.memory.store(flat_p[i:i + 1], _apply(fn, cur, flat_v[i:i + 1], dt), None)
            old[i] = cur[0]
    return [old.reshape(ptr.shape)]


def _apply(fn, cur, v, dt):
    if dt.kind == "f" or _narrow(dt):
        return float_compute(fn, dt, cur, v)
    return _as(fn(cur, v.astype(dt)), dt)


@defines(Op.ATOMIC_CAS)
def _atomic_cas(ctx, op, args):
    ptr, cmp, val = (np.asarray(a) for a in args)
    dt = np_type(op.result.type)
    flat_p, flat_c, flat_v = ptr.reshape(-1), np.broadcast_to(cmp, ptr.shape).reshape(-1), \
        np.broadcast_to(val, ptr.shape).reshape(-1)
    old = np.zeros(flat_p.shape, dt)
    for i in range(flat_p.size):
        cur = ctx.memory.load(flat_p[i:i + 1], dt, None)
        if cur[0] == flat_c[i]:
            ctx.memory.store(flat_p[i:i + 1], flat_v[i:i + 1].astype(dt), None)
        old[i] = cur[0]
    return [old.reshape(ptr.shape)]


class Descriptor:
    """The run-time value of a tensor descriptor."""

    def __init__(self, base: int, shape: list, strides: list, block: T.BlockType):
        self.base, self.shape, self.strides, self.block = base, shape, strides, block


@defines(Op.MAKE_TENSOR_DESCRIPTOR)
def _make_desc(ctx, op, args):
    block = op.result.type.block_type
    r = len(block.shape)
    return [Descriptor(int(args[0]), [int(a) for a in args[1:1 + r]], [int(a) for a in args[1 + r:]], block)]


def _desc_addresses(desc: Descriptor, offsets):
    rank = len(desc.block.shape)
    addr = np.full(desc.block.shape, desc.base, dtype=np.int64)
    mask = np.ones(desc.block.shape, dtype=bool)
    isz = desc.block.element_ty.itemsize
    for d, (off, n) in enumerate(zip(offsets, desc.block.shape)):
        idx = int(off) + np.arange(n, dtype=np.int64)
        shape = [1] * rank
        shape[d] = n
        idx = idx.reshape(shape)
        addr = addr + idx * desc.strides[d] * isz
        mask = mask & (idx >= 0) & (idx < desc.shape[d])
    return addr, mask


@defines(Op.DESCRIPTOR_LOAD)
def _desc_load(ctx, op, args):
    addr, mask = _desc_addresses(args[0], args[1:])
    out = ctx.memory.load(addr, np_type(op.result.type), mask)
    if op.attrs.get("padding") == "nan":
        out = np.where(mask, out, np.array(np.nan, out.dtype))
    return [out]


@defines(Op.DESCRIPTOR_STORE)
def _desc_store(ctx, op, args):
    addr, mask = _desc_addresses(args[0], args[2:])
    ctx.memory.store(addr, np.asarray(args[1]), mask)
    return []


# --- dot --------------------------------------------------------------------------------------------

@defines(Op.DOT)
def _dot(ctx, op, args):
    a, b, c = (np.asarray(x) for x in args[:3])
    slices = op.attrs.get("kslices", 1)
    if slices > 1:                       # the backend's coalesced K steps: one dot per slice, in order
        used = min(int(args[3]), slices) if len(args) > 3 else slices
        step = a.shape[-1] // slices
        for s in range(used):
            c = _dot_one(op, a[..., s * step:(s + 1) * step], b[..., s * step:(s + 1) * step, :], c)
        return [c]
    return [_dot_one(op, a, b, c)]


def _dot_one(op, a, b, c):
    dt = np_type(op.result.type)
    if dt.kind in "iu":
        prod = np.matmul(a.astype(np.int64), b.astype(np.int64))
        return _as(prod + c.astype(np.int64), dt)
    if dt == np.float64:
        return _as(f64_product(a, b) + c.astype(dt), dt)
    return _as(float_product(a, b) + c.astype(np.float32), dt)


# --- gather and histogram -------------------------------------------------------------------------

def _as_index(x: np.ndarray) -> np.ndarray:
    """Integer lanes as int64 indices, read in their own signedness (a u64 too large for int64 stays
    out of range)."""
    x = np.asarray(x)
    if x.dtype == np.uint64:
        return np.where(x > np.uint64(np.iinfo(np.int64).max), np.int64(-1), x.astype(np.int64))
    return x.astype(np.int64)


@defines(Op.GATHER)
def _gather(ctx, op, args):
    src, idx = np.asarray(args[0]), _as_index(args[1])
    axis = op.attrs["axis"]
    n = src.shape[axis]
    bad = (idx < 0) | (idx >= n)
    if bad.any():
        from ..errors import KernelRuntimeError
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise KernelRuntimeError(f"tt.gather index {int(idx[first])} at position {list(first)} is out of range "
                                 f"[0, {n}) along axis {axis}")
    return [np.take_along_axis(src, idx, axis=axis)]


@defines(Op.HISTOGRAM)
def _histogram(ctx, op, args):
    vals = _as_index(args[0])
    num_bins = op.result.type.shape[0]
    keep = (vals >= 0) & (vals < num_bins)
    if len(args) > 1:
        keep &= np.asarray(args[1], dtype=bool)
    return [np.bincount(vals[keep], minlength=num_bins).astype(np.int32)]


# --- debugging --------------------------------------------------------------------------------------

@defines(Op.PRINT)
def _print(ctx, op, args):
    prefix, hex = op.attrs.get("prefix", ""), bool(op.attrs.get("hex"))
    if not args:
        print(print_lines(ctx.pid, prefix, None, "i32")[0])
    for k, (v, a) in enumerate(zip(op.operands, args)):
        ptr = v.type.scalar.is_ptr()              # an address: printed as %p prints it
        dtype = "ptr" if ptr else v.type.scalar.ir
        a = np.asarray(a, dtype=np.uint64 if ptr else v.type.scalar.np_dtype)
        for line in print_lines(ctx.pid, prefix, a, dtype, hex, k, len(args), scalar=not v.type.is_block()):
            print(line)
    return []


@defines(Op.ASSERT)
def _assert(ctx, op, args):
    if not np.all(args[0]):
        from ..errors import DeviceAssertionError
        raise DeviceAssertionError(f"Device-side assertion failed: {op.attrs['message']}")
    return []


@defines(Op.ASSUME, Op.DEBUG_BARRIER)
def _nothing(ctx, op, args):
    return []
