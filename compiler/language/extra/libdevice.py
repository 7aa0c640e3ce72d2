"""A small subset of CUDA libdevice names, implemented with tl.math."""
from ..math import (abs as fabs, ceil, cos, div_rn, erf, exp, exp2, floor, fma, log, log2, rsqrt, sin, sqrt,
                    sqrt_rn, umulhi)

__all__ = ["fabs", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "floor", "fma", "log", "log2", "rsqrt", "sin",
           "sqrt", "sqrt_rn", "umulhi"]
