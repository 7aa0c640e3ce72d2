"""`tl.math`: elementwise math (also exported at `tl.*`). Float-only functions reject integers."""
from __future__ import annotations

from ..ir.ops import Op
from .core import builtin, unwrap
from .semantic import current


def _unary(op: Op, name: str, doc: str):
    def fn(x):
        return current().math_unary(op, x)
    fn.__name__ = name
    fn.__doc__ = doc
    return builtin(fn)


exp = _unary(Op.EXP, "exp", "e ** x")
exp2 = _unary(Op.EXP2, "exp2", "2 ** x")
log = _unary(Op.LOG, "log", "natural logarithm")
log2 = _unary(Op.LOG2, "log2", "base-2 logarithm")
sqrt = _unary(Op.SQRT, "sqrt", "square root (fast)")
sqrt_rn = _unary(Op.PRECISE_SQRT, "sqrt_rn", "square root, correctly rounded")
rsqrt = _unary(Op.RSQRT, "rsqrt", "1 / sqrt(x)")
sin = _unary(Op.SIN, "sin", "sine")
cos = _unary(Op.COS, "cos", "cosine")
erf = _unary(Op.ERF, "erf", "the error function")
floor = _unary(Op.FLOOR, "floor", "round toward -inf")
ceil = _unary(Op.CEIL, "ceil", "round toward +inf")


@builtin
def abs(x):
    return current().abs(x)


@builtin
def fma(x, y, z):
    return current().fma(x, y, z)


@builtin
def umulhi(x, y):
    """The high 32 (or 64) bits of the full product of x and y as unsigned integers."""
    return current().umulhi(x, y)


@builtin
def fdiv(x, y, ieee_rounding=False):
    return current().fdiv(x, y, bool(unwrap(ieee_rounding)))


@builtin
def div_rn(x, y):
    return current().fdiv(x, y, True)


@builtin
def sigmoid(x):
    s = current()
    x = s.to_tensor(x)
    return s.truediv(1.0, s.add(1.0, exp(s.minus(x))))


@builtin
def cdiv(x, div):
    from .builtins import cdiv as _cdiv
    return _cdiv(x, div)
