"""CUDA libdevice names (`from triton.language.extra import libdevice`) for kernels ported from GPUs.

Each function takes the argument dtypes Triton's libdevice does (most: fp32 and fp64 only), chosen the
way Triton's extern_elementwise chooses: the arguments become tensors (a Python float is fp32, an int
int32); if their dtypes are not in the function's table they are promoted as for `+`, and a table miss
after that is an error at the caller's line (fp16/bf16 included: cast to fp32 first, as on a GPU).

What computes each name:
- an SE instruction, through its IR op: tanh (math.tanh), rint / nearbyint (math.roundeven), isnan /
  isinf (math.isnan / math.isinf -> bool), pow (math.powf; an int32 exponent is converted to float,
  which is exact), atan2 and atan (math.atan2), and the names of the ops tl.math already has (exp,
  log, sqrt, floor, fmod, fma, ...); the `fast_*`, `*_rn` names are the same ops, since MTIA's SE has
  one precision and rounds to nearest;
- a @jit function over tl primitives (`composed.py`), for everything else;
- float <-> int conversions (`float2int_rn`, `llrint`, `float_as_int`, ...) are a rounding op plus a cast,
  or a bitcast. Out-of-range conversions are undefined here (CUDA saturates).
"""
from __future__ import annotations

from ...ir.ops import Op
from .. import core as tl
from .. import math as _m
from ..core import builtin
from ..semantic import current
from . import composed as _c

F32, F64, I32, I64, U32, U64 = tl.float32, tl.float64, tl.int32, tl.int64, tl.uint32, tl.uint64


def _dispatch(name: str, args, table: dict):
    s = current()
    xs = [s.to_tensor(a) for a in args]
    # two passes against the first argument give every argument the type (if promoted) and shape of all
    combine = s.broadcast_pair if tuple(x.dtype for x in xs) in table else s.binary_operands
    for _ in range(2 if len(xs) > 2 else 1):
        for i in range(1, len(xs)):
            xs[0], xs[i] = combine(xs[0], xs[i])
    key = tuple(x.dtype for x in xs)
    if key not in table:
        want = ", ".join("(" + ", ".join(str(t) for t in k) + ")" for k in table)
        raise TypeError(f"libdevice.{name} does not take ({', '.join(str(t) for t in key)}); it takes {want}")
    impl = table[key]
    if getattr(impl, "__triton_jit__", False):      # a composed @jit function: inlined here
        return s.ast_to_ir.call_function(impl, xs, {})
    return impl(*xs)


def _libdevice(name: str, nargs: int, table: dict, doc: str):
    def fn(*args):
        if len(args) != nargs:
            raise TypeError(f"libdevice.{name} takes {nargs} argument{'s' if nargs > 1 else ''}, got {len(args)}")
        return _dispatch(name, args, table)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return builtin(fn)


def _floats(impl, *dtypes):
    """One implementation for each float dtype (fp32 and fp64 unless given), n arguments of that dtype."""
    return lambda n: {(t,) * n: impl for t in (dtypes or (F32, F64))}


def _unary(op):
    return lambda x: current().math_unary(op, x)


def _define(spec):
    out = {}
    for name, nargs, table, doc in spec:
        out[name] = _libdevice(name, nargs, table(nargs) if callable(table) else table, doc)
    return out


def _to(dtype, impl=None):
    """impl(x) (default: x) converted to dtype: fptosi truncates, so round first."""
    return lambda x: current().cast(impl(x) if impl else x, dtype)


def _bitcast(dtype):
    return lambda x: current().bitcast(x, dtype)


def _powf(x, y):
    return current().math_binary(Op.POWF, x, y)


def _powi(x, n):
    s = current()
    return s.math_binary(Op.POWF, x, s.cast(n, x.dtype))


_rint = _unary(Op.ROUNDEVEN)


def _call_jit(fn):
    return lambda *xs: current().ast_to_ir.call_function(fn, list(xs), {})


_SPEC = [
    # (name, number of arguments, dtypes -> implementation, what it computes)
    ("abs", 1, {(I32,): _m.abs, (I64,): _m.abs, (F32,): _m.abs, (F64,): _m.abs}, "|x|"),
    ("fabs", 1, _floats(_m.abs), "|x|"),
    ("floor", 1, _floats(_m.floor), "round toward -inf"),
    ("ceil", 1, _floats(_m.ceil), "round toward +inf"),
    ("trunc", 1, _floats(_c.trunc), "round toward zero"),
    ("round", 1, _floats(_c.round), "round to nearest, halfway cases away from zero"),
    ("rint", 1, _floats(_rint), "round to nearest, ties to even"),
    ("nearbyint", 1, _floats(_rint), "round to nearest, ties to even"),
    ("exp", 1, _floats(_m.exp), "e^x"),
    ("fast_expf", 1, _floats(_m.exp, F32), "e^x"),
    ("exp2", 1, _floats(_m.exp2), "2^x"),
    ("exp10", 1, _floats(_c.exp10), "10^x"),
    ("fast_exp10f", 1, _floats(_c.exp10, F32), "10^x"),
    ("expm1", 1, _floats(_c.expm1), "e^x - 1"),
    ("log", 1, _floats(_m.log), "natural logarithm"),
    ("fast_logf", 1, _floats(_m.log, F32), "natural logarithm"),
    ("log2", 1, _floats(_m.log2), "base-2 logarithm"),
    ("fast_log2f", 1, _floats(_m.log2, F32), "base-2 logarithm"),
    ("log10", 1, _floats(_c.log10), "base-10 logarithm"),
    ("fast_log10f", 1, _floats(_c.log10, F32), "base-10 logarithm"),
    ("log1p", 1, _floats(_c.log1p), "log(1 + x)"),
    ("pow", 2, {(F32, I32): _powi, (F64, I32): _powi, (F32, F32): _powf, (F64, F64): _powf}, "x ** y"),
    ("fast_powf", 2, _floats(_powf, F32), "x ** y"),
    ("sqrt", 1, _floats(_m.sqrt), "square root"),
    ("sqrt_rn", 1, _floats(_m.sqrt_rn), "square root, correctly rounded"),
    ("rsqrt", 1, _floats(_m.rsqrt), "1 / sqrt(x)"),
    ("cbrt", 1, _floats(_c.cbrt), "cube root"),
    ("rcbrt", 1, _floats(lambda x: current().truediv(1.0, _call_jit(_c.cbrt)(x))), "1 / cbrt(x)"),
    ("hypot", 2, _floats(_c.hypot), "sqrt(x*x + y*y) without overflow"),
    ("rhypot", 2, _floats(lambda x, y: current().truediv(1.0, _call_jit(_c.hypot)(x, y))), "1 / hypot(x, y)"),
    ("sin", 1, _floats(_m.sin), "sine"),
    ("fast_sinf", 1, _floats(_m.sin, F32), "sine"),
    ("cos", 1, _floats(_m.cos), "cosine"),
    ("fast_cosf", 1, _floats(_m.cos, F32), "cosine"),
    ("tan", 1, _floats(_c.tan), "tangent"),
    ("fast_tanf", 1, _floats(_c.tan, F32), "tangent"),
    ("asin", 1, _floats(_c.asin), "arc sine"),
    ("acos", 1, _floats(_c.acos), "arc cosine"),
    ("atan", 1, _floats(lambda x: current().math_binary(Op.ATAN2, x, 1.0)), "arc tangent"),
    ("atan2", 2, _floats(_c.atan2), "the angle of the point (x, y) = atan2(y, x) (arguments: y, x)"),
    ("sinh", 1, _floats(_c.sinh), "hyperbolic sine"),
    ("cosh", 1, _floats(_c.cosh), "hyperbolic cosine"),
    ("tanh", 1, _floats(_unary(Op.TANH)), "hyperbolic tangent"),
    ("asinh", 1, _floats(_c.asinh), "inverse hyperbolic sine"),
    ("acosh", 1, _floats(_c.acosh), "inverse hyperbolic cosine"),
    ("atanh", 1, _floats(_c.atanh), "inverse hyperbolic tangent"),
    ("erf", 1, _floats(_m.erf), "the error function"),
    ("erfc", 1, _floats(_c.erfc), "1 - erf(x)"),
    ("isnan", 1, _floats(lambda x: current().float_test(Op.ISNAN, x)), "x is NaN (bool)"),
    ("isinf", 1, _floats(lambda x: current().float_test(Op.ISINF, x)), "x is +-inf (bool)"),
    ("finitef", 1, _floats(_c.isfinite, F32), "1 (int32) where x is finite"),
    ("isfinited", 1, _floats(_c.isfinite, F64), "1 (int32) where x is finite"),
    ("signbit", 1, _floats(_c.signbit), "1 (int32) where the sign bit of x is set"),
    ("copysign", 2, _floats(_c.copysign), "|x| with the sign of y"),
    ("fmod", 2, _floats(lambda x, y: current().mod(x, y)), "x - trunc(x / y) * y, exact (C fmod)"),
    ("fdim", 2, _floats(_c.fdim), "x - y if x > y else +0"),
    ("saturatef", 1, _floats(_c.saturate, F32), "x clamped to [0, 1] (NaN -> 0)"),
    ("fma", 3, _floats(_m.fma), "x * y + z, rounded once"),
    ("fma_rn", 3, _floats(_m.fma), "x * y + z, rounded once"),
    ("add_rn", 2, _floats(lambda x, y: current().add(x, y)), "x + y"),
    ("sub_rn", 2, _floats(lambda x, y: current().sub(x, y)), "x - y"),
    ("mul_rn", 2, _floats(lambda x, y: current().mul(x, y)), "x * y (never contracted into an fma)"),
    ("div_rn", 2, _floats(_m.div_rn), "x / y, correctly rounded"),
    ("fast_dividef", 2, _floats(_m.fdiv, F32), "x / y"),
    ("mulhi", 2, {(I32, I32): _c.mulhi_signed, (U32, U32): _m.umulhi, (I64, I64): _c.mulhi_signed,
                  (U64, U64): _m.umulhi}, "the high half of the double-width product"),
    ("umulhi", 2, {(U32, U32): _m.umulhi, (I32, I32): _m.umulhi, (U64, U64): _m.umulhi, (I64, I64): _m.umulhi},
     "the high half of the double-width unsigned product"),
    ("float2int_rn", 1, {(F32,): _to(I32, _rint)}, "x rounded to nearest even, as int32"),
    ("float2int_rz", 1, {(F32,): _to(I32)}, "x rounded toward zero, as int32"),
    ("float2int_rd", 1, {(F32,): _to(I32, _m.floor)}, "x rounded down, as int32"),
    ("float2int_ru", 1, {(F32,): _to(I32, _m.ceil)}, "x rounded up, as int32"),
    ("double2int_rn", 1, {(F64,): _to(I32, _rint)}, "x rounded to nearest even, as int32"),
    ("llrint", 1, _floats(_to(I64, _rint)), "x rounded to nearest even, as int64"),
    ("llround", 1, _floats(_to(I64, _call_jit(_c.round))), "x rounded half away from zero, as int64"),
    ("float_as_int", 1, {(F32,): _bitcast(I32)}, "the bits of x as int32"),
    ("float_as_uint", 1, {(F32,): _bitcast(I32)}, "the bits of x (int32, as in Triton)"),
    ("int_as_float", 1, {(I32,): _bitcast(F32)}, "int32 bits as fp32"),
    ("uint_as_float", 1, {(U32,): _bitcast(F32)}, "uint32 bits as fp32"),
    ("double_as_longlong", 1, {(F64,): _bitcast(I64)}, "the bits of x as int64"),
    ("longlong_as_double", 1, {(I64,): _bitcast(F64)}, "int64 bits as fp64"),
    ("popc", 1, {(I32,): _c.popc, (I64,): _c.popc}, "the number of set bits (int32 or int64), as int32"),
    ("clz", 1, {(I32,): _c.clz, (I64,): _c.clz}, "the number of leading zero bits (int32 or int64), as int32"),
]

_FUNCTIONS = _define(_SPEC)
globals().update(_FUNCTIONS)
__all__ = [name for name in sorted(_FUNCTIONS)]
