"""uint64 values past 2^63 converted to and from floats, on both executors against numpy.

The control core's registers hold 64 bits that signed conversions read as negative once the top bit
is set; the MTIA backend converts uint64 scalars with the unsigned forms (fcvt.s.lu / fcvt.d.lu,
fcvt.lu.d), also where the SE broadcasts the converted scalar over a block (Triton's
test_bin_op[uint64 / uint64] with a scalar divisor gave negative quotients). Outputs are poisoned.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def conversions(X, Y, F, D, U, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    y = tl.load(Y)                                 # a scalar
    tl.store(F + offs, x / y)                      # the SE broadcasts float(y)
    tl.store(F + N, y.to(tl.float32))
    tl.store(F + N + 1, (y // 3).to(tl.float32))
    tl.store(D, y.to(tl.float64))
    tl.store(U, y.to(tl.float64).to(tl.uint64))
    tl.store(U + 1, (y.to(tl.float32) * 0.75).to(tl.uint64))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("y", [2**63 + 12345 * 2**11, 2**64 - 2**11, 12345])
def test_uint64_scalars_convert_as_unsigned(executor, y):
    rng = np.random.default_rng(y % 1000)
    x = rng.integers(1, 2**64 - 1, 16, dtype=np.uint64, endpoint=True)
    yv = np.array([y], np.uint64)
    f, d, u = np.full(18, np.nan, np.float32), np.full(1, np.nan), np.zeros(2, np.uint64)
    launch(conversions, (1,), x, yv, f, d, u, 16, executor=executor)
    np.testing.assert_allclose(f[:16], x.astype(np.float64) / float(y), rtol=1e-6)
    np.testing.assert_array_equal(f[16:], [np.float32(yv[0]), np.float32(yv[0] // np.uint64(3))])
    assert d[0] == np.float64(yv[0])
    np.testing.assert_array_equal(u, [np.float64(yv[0]).astype(np.uint64), np.uint64(np.float32(yv[0]) * np.float32(0.75))])
