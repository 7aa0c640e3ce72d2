"""One dot product's sums as both executors compute them: the simulator's DPE command (simulator/semantics/
dpe.py) and the interpreter's tl.dot (compiler/interpreter/ops.py) call these, so they agree bit for bit.

numpy's float32 matmul cannot be that contract: OpenBLAS sums each element in an order that depends on
the operands' layout and on the block of the output a call covers (the 128x128 product of two f16 tiles
and its four 64x64 quarters differ in the last bit of one element in seven), and the two
executors hold their operands in different layouts.

    float_product  f16 / bf16 / fp8 / f32 operands: every product exact and all K of them summed in
                   f64, then rounded once to f32, as a DPE with a wide accumulator does.
    f64_product    f64 operands (the vector core's loop, compiler/backend/codegen/rvv_dot.py): for
                   k = 0, 1, ..., K-1 in order, the product a[i, k] * b[k, j] rounded, then its sum with
                   the running total rounded (vfmacc.vf), from a total of zero.

For f16 operands the f64 sum is itself exact (so its order cannot matter) unless the products' magnitudes
span more than about 2^(31 - log2 K); for bf16 and fp8 the span can be wider still. For f32 operands
the sum rounds, and the two executors agree because they make this same call on the same shapes.
Integer dots need no such contract: both compute the exact sum and wrap it to the accumulator's width.
"""
from __future__ import annotations

import numpy as np


def float_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b (batched over leading axes) as f32, from float operands of any width up to f32."""
    wide_a = np.ascontiguousarray(a, dtype=np.float64)      # one layout for both executors' operands
    wide_b = np.ascontiguousarray(b, dtype=np.float64)
    return np.matmul(wide_a, wide_b).astype(np.float32)



def f64_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b (batched over leading axes) of f64 operands, summed over k in order as vfmacc.vf sums."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    total = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1]))
    for k in range(a.shape[-1]):
        total = a[..., :, k, None] * b[..., None, k, :] + total
    return total
