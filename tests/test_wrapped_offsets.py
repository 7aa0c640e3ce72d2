"""GPU-style offsets on MTIA: wrapped rows (`% M`), hints (`tl.multiple_of`, `tl.max_contiguous`,
`tl.assume`), clamps, offsets chosen under an `if`. Every kernel runs on both executors against numpy
with NaN-poisoned outputs; the compiled form is checked where the lowering matters (boxes, not gathers)."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def _scaled_rows_kernel(x_ptr, out_ptr, S: tl.constexpr, R: tl.constexpr, C: tl.constexpr):
    # `rows` lives outside the loop; `rows[:, None] * S` is computed from a view of it inside the loop.
    rows = tl.arange(0, R) % R
    cols = tl.arange(0, C)
    for k in range(0, 3):
        offs = rows[:, None] * S + cols[None, :]
        x = tl.load(x_ptr + offs)
        tl.store(out_ptr + k * R * C + rows[:, None] * C + cols[None, :], x + k)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_view_made_inside_a_loop_does_not_let_the_loop_overwrite_the_tile_it_views(executor):
    R, C, S = 8, 16, 32
    x = np.random.default_rng(1).standard_normal((R, S)).astype(np.float32)
    out = np.full((3, R, C), np.nan, np.float32)
    launch(_scaled_rows_kernel, (1,), x, out, S=S, R=R, C=C, executor=executor)
    np.testing.assert_array_equal(out, np.stack([x[:, :C] + k for k in range(3)]))


@triton.jit
def _template_mm_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # the shape of Inductor's mm template: sizes baked in, wrapped rows with hints, assumes, a K mask
    pid = tl.program_id(0)
    grid_n = (N + BN - 1) // BN
    pid_m = pid // grid_n
    pid_n = pid % grid_n
    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    if K > 0:
        am = tl.max_contiguous(tl.multiple_of(rm % M, BM), BM)
    else:
        am = rm % M
    bn = tl.max_contiguous(tl.multiple_of(rn % N, BN), BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        ka = rk[None, :] + k * BK
        kb = rk[:, None] + k * BK
        a = tl.load(a_ptr + (ka + K * am[:, None]), mask=ka < K, other=0.0)
        b = tl.load(b_ptr + (bn[None, :] + N * kb), mask=kb < K, other=0.0)
        acc += tl.dot(a, b)
    cm = (pid_m * BM + tl.arange(0, BM))[:, None]
    cn = (pid_n * BN + tl.arange(0, BN))[None, :]
    tl.store(c_ptr + tl.broadcast_to(cn + N * cm, acc.shape), acc, (cm < M) & (cn < N))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("M,N,K", [(16, 128, 64), (100, 72, 80), (40, 20, 16)])
def test_the_inductor_style_template_matmul_is_correct(executor, M, N, K):
    rng = np.random.default_rng(M)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = np.full((M, N), np.nan, np.float32)
    BM, BN, BK = 32, 32, 32
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    launch(_template_mm_kernel, grid, a, b, c, M=M, N=N, K=K, BM=BM, BN=BN, BK=BK, executor=executor)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
