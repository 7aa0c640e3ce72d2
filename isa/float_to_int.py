"""Float to integer conversion as both executors compute it (Triton's `.to(int type)`, `arith.fptosi` /
`arith.fptoui`, the SE's se.mov to an integer tile, the control core's fcvt sequences):

    in range          truncated toward zero (-5.9 -> -5; -0.5 -> 0, also to an unsigned type)
    above the range   the type's largest value (+inf too)
    below the range   the type's smallest value: -2^(n-1), or 0 for an unsigned type (-inf too)
    NaN               0

LLVM leaves fptosi/fptoui of a value out of range undefined (poison), so a kernel cannot rely on what
one GPU gives; we promise one answer on both executors, NVIDIA's saturating conversion (PTX `cvt.rzi`,
LLVM's `llvm.fpto[su]i.sat`), for every float type (f64, f32, f16, bf16, fp8) to every width of
int8..int64 and uint8..uint64. numpy's own `astype` gives INT_MIN, or wraps, or whatever the C
compiler's conversion gave, so it is never used for this. (To bool is not a conversion: `.to(tl.int1)`
is `x != 0`, true for NaN.)
"""
from __future__ import annotations

import numpy as np


def float_to_int(x, dtype) -> np.ndarray:
    """x (any float array or scalar, ml_dtypes' too) converted to the integer `dtype` as above."""
    dt = np.dtype(dtype)
    info = np.iinfo(dt)
    with np.errstate(invalid="ignore"):
        r = np.trunc(np.asarray(x).astype(np.float64))       # every float type widens exactly
        high = r >= float(info.max) + 1      # max + 1 is a power of two, exact in f64 (max itself may not be)
        low = r < float(info.min)            # -2^(n-1) or 0: exact
        inside = ~(high | low | np.isnan(r))
        out = np.where(inside, r, 0).astype(dt)              # only in-range values reach astype
    return np.where(high, info.max, np.where(low, info.min, out)).astype(dt, copy=False)
