"""Float to integer conversion as both executors compute it (Triton's `.to(int type)`, `arith.fptosi` /
`arith.fptoui`, the SE's se.mov to an integer tile, the control core's fcvt sequences):

    in range          truncated toward zero (-5.9 -> -5; -0.5 -> 0, also to an unsigned type)
    above the range   the type's largest value (+inf too)
    below the range   the type's smallest value: -2^(n-1), or 0 for an unsigned type (-inf too)
    NaN               0

LLVM leaves fptosi/fptoui of a value out of range undefined (poison), so a kernel cannot rely on what
one GPU gives; we promise one answer on both executors, LLVM's `llvm.fpto[su]i.sat` (PTX's saturating
`cvt.rzi`), for f64, f32, f16 and bf16 to every width of int8..int64 and uint8..uint64. numpy's own
`astype` gives INT_MIN, or wraps, or whatever the C compiler's conversion gave, so it is never used
for this. (To bool is not a conversion: `.to(tl.int1)` is `x != 0`, true for NaN.)

What Triton 3.6 gave on an H100 (f32, f16, bf16, f64 sources alike): this for int16/int32/uint16/
uint32; for int8/uint8 a saturating 16-bit conversion then truncated (300.7 -> 44, +inf -> -1 as
int8, 255 as uint8); for int64/uint64 NaN -> -2**63 / 2**63 (the rest as here). Those are the
undefined cases, where we keep the one rule. fp8 to any integer type is refused there ("cannot cast
fp8e4nv to int8"), and so it is here (compiler/language/semantic.py).
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
