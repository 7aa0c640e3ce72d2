"""Dtypes of generated kernels and Triton's rules for them: promotion of binary operands, the
result dtypes of reductions, and what a value of each dtype may hold.

`Val` is a value of the kernel being generated: the source text naming it, its dtype and shape,
whether both executors must agree on it bit for bit (`exact`), and a bound on its magnitude. Float
values stay below their dtype's largest finite number, so no inf or NaN ever appears and every
float comparison, cast and `where` condition is well defined."""
from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

# dtype name -> (tl spelling, numpy dtype, largest magnitude a value may reach)
DTYPES = {
    "i1": ("tl.int1", np.bool_, 1),
    "i8": ("tl.int8", np.int8, 2 ** 7),
    "i16": ("tl.int16", np.int16, 2 ** 15),
    "i32": ("tl.int32", np.int32, 2 ** 31),
    "u8": ("tl.uint8", np.uint8, 2 ** 8 - 1),
    "u32": ("tl.uint32", np.uint32, 2 ** 32 - 1),
    "f16": ("tl.float16", np.float16, 6.0e4),
    "bf16": ("tl.bfloat16", ml_dtypes.bfloat16, 1.0e30),
    "f32": ("tl.float32", np.float32, 1.0e30),
    # only in the special families (tests/difftest/families.py), never drawn by the main generator
    "i64": ("tl.int64", np.int64, 2 ** 63),
    "u16": ("tl.uint16", np.uint16, 2 ** 16 - 1),
    "f64": ("tl.float64", np.float64, 1.0e300),
}
INTS = ("i8", "i16", "i32", "u8", "u32")
FLOATS = ("f16", "bf16", "f32")
BITS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "u8": 8, "u32": 32, "f16": 16, "bf16": 16, "f32": 32,
        "i64": 64, "u16": 16, "f64": 64}


def is_int(d: str) -> bool:
    return d in INTS


def is_float(d: str) -> bool:
    return d in FLOATS


def is_unsigned(d: str) -> bool:
    return d.startswith("u")


def tl_name(d: str) -> str:
    return DTYPES[d][0]


def np_dtype(d: str):
    return DTYPES[d][1]


def limit(d: str) -> float:
    return DTYPES[d][2]


@dataclass(frozen=True)
class Val:
    text: str               # a variable name or a parenthesised expression
    dtype: str
    shape: tuple            # () for scalars
    exact: bool = True
    bound: float = 0.0      # |value| <= bound
    literal: bool = False   # a Python number in the source: weakly typed, as in Triton

    def fits(self) -> bool:
        return self.bound <= limit(self.dtype)


# Python ints meeting unsigned blocks: not generated while the frontend types them strongly
# (issue 8, item 1: `uint8 // 7` must stay uint8); flip once that lands.
WEAK_UNSIGNED_LITERALS = False


def result_dtype(a: Val, b: Val) -> str | None:
    """The dtype of a binary op's result: Python numbers take the other operand's type (an int
    literal with anything, a float literal with floats); a float literal with an int gives f32.
    None for the pairs the generator leaves out."""
    if a.literal and b.literal:
        return "f32" if "f32" in (a.dtype, b.dtype) else "i32"
    if a.literal or b.literal:
        lit, other = (a, b) if a.literal else (b, a)
        if is_unsigned(other.dtype) and not WEAK_UNSIGNED_LITERALS:
            return None
        return "f32" if lit.dtype == "f32" and not is_float(other.dtype) else other.dtype
    return promote(a.dtype, b.dtype)


def promote(a: str, b: str) -> str:
    """Triton's computation type for a binary op between tensors of dtypes a and b."""
    if is_float(a) or is_float(b):
        if "f32" in (a, b):
            return "f32"
        if "f16" in (a, b):
            return "f16"        # f16 wins over bf16 and ints (Triton checks f16 before bf16)
        return "bf16" if a == b else "f32"
    if a == "i1" and b == "i1":
        return "i1"
    if a == "i1" or b == "i1":
        return b if a == "i1" else a
    if is_unsigned(a) == is_unsigned(b):
        return a if BITS[a] >= BITS[b] else b
    unsigned, signed = (a, b) if is_unsigned(a) else (b, a)
    return unsigned if BITS[unsigned] >= BITS[signed] else signed


def sum_dtype(d: str) -> str:
    """tl.sum / tl.cumsum accumulate integers narrower than 32 bits in (u)int32; Triton counts int1 as
    unsigned, so a sum of booleans is uint32."""
    if d == "i1":
        return "u32"
    if is_int(d) and BITS[d] < 32:
        return "u32" if is_unsigned(d) else "i32"
    return d


def minmax_dtype(d: str) -> str:
    """tl.max / tl.min compute sub-32-bit types in int32 / float32."""
    if d == "i1" or (is_int(d) and BITS[d] < 32):
        return "i32"
    if d in ("f16", "bf16"):
        return "f32"
    return d
