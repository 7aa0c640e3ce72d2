"""transpose-boxes (compiler/backend/passes/transpose_boxes.py): a tile of W.T is read as rows of W
and transposed in the local store, with the same numbers, wrapped columns included, and a matmul
with B = W.T (nn.Linear's layout) moves W's bytes once through SRAM instead of a burst per element."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
import compiler.runtime.mtia_executor  # noqa: F401  (registers the executor)
from compiler.kernels.matmul import matmul
from compiler.runtime import use_executor
from simulator import use_config

OFF = {"mtia_options": {"transposed_boxes": False}}


@triton.jit
def wt_tile(W, Y, N, K: tl.constexpr, BK: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    rn = pid * BN + tl.arange(0, BN)
    k = tl.arange(0, BK)
    w = tl.load(W + k[:, None] + K * (rn % N)[None, :])       # columns wrap, as Inductor's template's do
    tl.store(Y + pid * BK * BN + k[:, None] * BN + tl.arange(0, BN)[None, :], w * 2.0)


@pytest.mark.parametrize("options", [{}, OFF], ids=["on", "off"])
def test_a_wrapped_w_t_tile_has_the_right_numbers(options):
    n, k, bk, bn = 40, 64, 64, 32
    w = np.random.default_rng(0).standard_normal((n, k)).astype(np.float16)
    y = np.full((2, bk, bn), np.nan, np.float16)
    with use_executor("mtia"), use_config("mtia-small"):
        wt_tile[(2,)](w, y, n, K=k, BK=bk, BN=bn, **options)
    expected = np.stack([2 * w[(p * bn + np.arange(bn)) % n].T for p in range(2)])
    np.testing.assert_array_equal(y, expected)


def test_matmul_of_w_t_reads_w_once_through_sram():
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((64, 256)) / 4).astype(np.float16)
    w = (rng.standard_normal((128, 256)) / 4).astype(np.float16)
    with use_executor("mtia"), use_config("mtia-2i"):
        (c,), (on,) = matmul(a, w.T)
        _, (off,) = matmul(a, w.T, numerics=False, **OFF)
    expected = (a.astype(np.float32) @ w.astype(np.float32).T).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), expected.astype(np.float32), rtol=2e-2, atol=2e-2)
    assert on.report.bytes["sram"] < 2 * (a.nbytes + w.nbytes + c.nbytes) < off.report.bytes["sram"] / 4
    assert on.cycles < off.cycles
