"""tl.dot on float64, which the DPE does not multiply: the MTIA backend runs it on the RISC-V vector
core (one vfmacc.vf per k for each strip of a result row), on both executors against numpy.

Each product and sum is rounded in f64, in k order, so results differ from numpy's matmul (another
summation order) by rounding only: at most K * 2^-52 * sum_k |a[i, k] * b[k, j]| per element (plus
the accumulator's one rounding). Outputs are NaN-poisoned so an unwritten element fails.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from simulator import use_config

from executors import EXECUTORS, launch

EPS = 2.0 ** -52


@triton.jit
def dot2d(a_ptr, b_ptr, c_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
          TRANS_A: tl.constexpr, TRANS_B: tl.constexpr, ACC: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    if TRANS_A:                                    # a given as its transpose in memory
        a = tl.trans(tl.load(a_ptr + rk[:, None] * M + rm[None, :]))
    else:
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    if TRANS_B:
        b = tl.trans(tl.load(b_ptr + rn[:, None] * K + rk[None, :]))
    else:
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    if ACC == "tile":
        o = tl.dot(a, b, tl.load(c_ptr + rm[:, None] * N + rn[None, :]))
    elif ACC == "constant":
        o = tl.dot(a, b, tl.full((M, N), -2.5, tl.float64))
    else:
        o = tl.dot(a, b)
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], o)


@triton.jit
def dot3d(a_ptr, b_ptr, o_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb = tl.arange(0, B)[:, None, None]
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rb * M * K + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb * K * N + rk[None, :, None] * N + rn[None, None, :])
    tl.store(o_ptr + rb * M * N + rm[None, :, None] * N + rn[None, None, :], tl.dot(a, b))


@triton.jit
def dot_in_loop(a_ptr, b_ptr, o_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, STEPS: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    acc = tl.zeros((M, N), tl.float64)
    for s in range(STEPS):                         # the accumulator is carried by the loop
        a = tl.load(a_ptr + s * M * K + rm[:, None] * K + rk[None, :])
        b = tl.load(b_ptr + s * K * N + rk[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(o_ptr + rm[:, None] * N + rn[None, :], acc)


def check(out, want, bound):
    assert not np.isnan(out).any(), "unwritten elements"
    assert (np.abs(out - want) <= bound).all(), np.max(np.abs(out - want) / bound)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("M, N, K", [(16, 16, 16), (4, 64, 8), (2, 256, 2)])   # 256: two strips of a row
@pytest.mark.parametrize("trans_a, trans_b", [(False, False), (True, True)])
@pytest.mark.parametrize("acc", ["none", "tile", "constant"])
def test_f64_dot_matches_numpy(executor, M, N, K, trans_a, trans_b, acc):
    rng = np.random.default_rng(M * 100 + N + K)
    a, b, c = rng.standard_normal((M, K)), rng.standard_normal((K, N)), rng.standard_normal((M, N))
    out = np.full((M, N), np.nan)
    launch(dot2d, (1,), np.ascontiguousarray(a.T) if trans_a else a, np.ascontiguousarray(b.T) if trans_b else b,
           c, out, M, N, K, trans_a, trans_b, acc, executor=executor)
    want = a @ b + {"none": 0.0, "tile": c, "constant": -2.5}[acc]
    check(out, want, (K + 1) * EPS * (np.abs(a) @ np.abs(b) + np.abs(want)))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_f64_dot_of_mixed_layouts_and_batches(executor):
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((8, 4)), rng.standard_normal((4, 32))
    out = np.full((8, 32), np.nan)
    launch(dot2d, (1,), a, np.ascontiguousarray(b.T), a, out, 8, 32, 4, False, True, "none", executor=executor)
    check(out, a @ b, 5 * EPS * (np.abs(a) @ np.abs(b)))
    a, b = rng.standard_normal((4, 8, 16)), rng.standard_normal((4, 16, 32))
    out = np.full((4, 8, 32), np.nan)
    launch(dot3d, (1,), a, b, out, 4, 8, 32, 16, executor=executor)
    check(out, a @ b, 17 * EPS * (np.abs(a) @ np.abs(b)))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_f64_dot_accumulated_in_a_loop(executor):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((3, 16, 8)), rng.standard_normal((3, 8, 16))
    out = np.full((16, 16), np.nan)
    launch(dot_in_loop, (1,), a, b, out, 16, 16, 8, 3, executor=executor)
    want = np.einsum("smk,skn->mn", a, b)
    check(out, want, 25 * EPS * np.einsum("smk,skn->mn", np.abs(a), np.abs(b)))


def test_f64_dot_runs_on_the_vector_core_not_the_dpe():
    a = np.zeros((16, 16))
    with use_config("mtia-small"):
        asm = dot2d.compile(a, a, a, a, 16, 16, 16, False, False, "none").asm["mtia-asm"]
    assert "vfmacc.vf" in asm and "dpe.mm" not in asm
