"""Float max and min as both executors compute them: -0.0 < +0.0 (IEEE 754-2019 maximum /
maximumNumber, RISC-V fmax.s). numpy's np.fmax / np.maximum / Python's max return either zero when
they compare equal, depending on argument order and on whether a SIMD loop ran (np.fmax of [0, 0, 0, 0]
and [-0, -0, -0, -0] gives [0, -0, -0, -0]); Triton on an NVIDIA GPU orders the zeros, in
tl.maximum / tl.minimum (either propagate_nan), tl.max / tl.min and scalar math alike (checked on an
H200 with triton 3.6). The interpreter (compiler/interpreter) and the simulator's semantics use these,
so they agree with each other and with a GPU bit for bit.

    fmax, fmin        NaN loses to a number (propagate_nan=NONE, tl.max)
    maximum, minimum  NaN wins (propagate_nan=ALL)

Each is called like a numpy ufunc on two operands and has `.reduce(x, axis, keepdims=False)` and
`.accumulate(x, axis)`.
"""
from __future__ import annotations

import numpy as np


class _MinMax:
    def __init__(self, base, is_max: bool):
        self.base, self.is_max = base, is_max
        self.__name__ = base.__name__

    def __call__(self, a, b):
        a, b = np.asarray(a), np.asarray(b)
        out = np.asarray(self.base(a, b))
        if out.dtype.kind not in "fV":
            return out
        tie = a == b                  # (+0 == -0): take the larger (smaller) zero; equal numbers are alike
        if not tie.any():
            return out
        keep_a = ~np.signbit(a) if self.is_max else np.signbit(a)
        return np.where(tie, np.where(keep_a, a, b), out).astype(out.dtype, copy=False)

    def _signed_zero(self, r, x, axis, running: bool):
        """Fix the zeros of a reduction (running: of a scan) `r` of `x`: max is +0 if any +0 took part."""
        zero = r == 0
        if not np.any(zero):
            return r
        wanted = (x == 0) & (np.signbit(x) != self.is_max)     # a +0 for max, a -0 for min
        seen = np.logical_or.accumulate(wanted, axis=axis) if running else np.any(wanted, axis=axis)
        winner = np.zeros((), r.dtype) if self.is_max else np.negative(np.zeros((), r.dtype))
        loser = np.negative(winner)
        return np.where(zero, np.where(seen, winner, loser), r).astype(r.dtype, copy=False)

    def reduce(self, x, axis=0, keepdims: bool = False):
        x = np.asarray(x)
        r = np.asarray(self.base.reduce(x, axis=axis))
        if r.dtype.kind in "fV":
            r = self._signed_zero(r, x, axis, running=False)
        return np.expand_dims(r, axis) if keepdims else r

    def accumulate(self, x, axis=0, dtype=None):
        x = np.asarray(x if dtype is None else np.asarray(x).astype(dtype))
        r = self.base.accumulate(x, axis=axis)
        return self._signed_zero(r, x, axis, running=True) if r.dtype.kind in "fV" else r


fmax = _MinMax(np.fmax, True)
fmin = _MinMax(np.fmin, False)
maximum = _MinMax(np.maximum, True)
minimum = _MinMax(np.minimum, False)
