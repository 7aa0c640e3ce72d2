"""`x >> y` with operands of different signedness, on both executors against numpy.

Triton promotes the operands (int8 with uint8 gives uint8) but picks the shift by the tensor
operand's own signedness: a signed left operand shifts arithmetically even when the promoted type
is unsigned, so the sign of the widened value is kept (Triton's test_shift_op[int8-uint8->>]; we
shifted the promoted value logically: wrong values on both executors). The output is poisoned with
a pattern the right answer never has in every element.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def shift_right(X, Y, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Z + offs, tl.load(X + offs) >> tl.load(Y + offs))


def _promoted(a: np.dtype, b: np.dtype) -> np.dtype:
    """Triton's integer promotion: the wider type; at one width, unsigned wins."""
    if a.itemsize != b.itemsize:
        return a if a.itemsize > b.itemsize else b
    return a if a.kind == b.kind else np.dtype(f"uint{8 * a.itemsize}")


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("x_dtype, y_dtype", [("int8", "uint8"), ("int16", "uint32"), ("int32", "uint32"),
                                              ("int64", "uint64"), ("uint8", "int8"), ("int8", "int16")])
def test_right_shift_follows_the_left_operands_signedness(executor, x_dtype, y_dtype):
    xd, yd = np.dtype(x_dtype), np.dtype(y_dtype)
    bits = 8 * max(xd.itemsize, yd.itemsize)
    rng = np.random.default_rng(bits + xd.itemsize)
    x = rng.integers(np.iinfo(xd).min, np.iinfo(xd).max, 64, dtype=xd, endpoint=True)
    x[:4] = [-1, -128, 1, 0] if xd.kind == "i" else [255, 128, 1, 0]       # negative values must show
    y = rng.integers(0, min(bits, 8 * xd.itemsize), 64).astype(yd)
    wide = np.dtype(f"{'int' if xd.kind == 'i' else 'uint'}{bits}")       # x's signedness, y's width
    expected = (x.astype(wide) >> y.astype(wide)).view(_promoted(xd, yd))
    z = np.full(64, 0x5A, _promoted(xd, yd))
    launch(shift_right, (1,), x, y, z, 64, executor=executor)
    np.testing.assert_array_equal(z, expected)


@triton.jit
def shift_right_by_scalar(X, Y, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Z + offs, tl.load(X + offs) >> tl.load(Y))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("x_dtype, y_dtype", [("int16", "uint16"), ("int8", "uint32")])
def test_right_shift_of_a_signed_block_by_an_unsigned_scalar(executor, x_dtype, y_dtype):
    """The scalar shift amount is broadcast after its cast to the signed type (MTIA refused the
    bitcast of a broadcast scalar with an internal error: Triton's test_shift_op with a scalar y)."""
    xd, yd = np.dtype(x_dtype), np.dtype(y_dtype)
    bits = 8 * max(xd.itemsize, yd.itemsize)
    x = np.arange(-64, 64).astype(xd)
    y = np.array([3], yd)
    wide = np.dtype(f"int{bits}")
    z = np.full(128, 0x5A, _promoted(xd, yd))
    launch(shift_right_by_scalar, (1,), x, y, z, 128, executor=executor)
    np.testing.assert_array_equal(z, (x.astype(wide) >> 3).view(_promoted(xd, yd)))
