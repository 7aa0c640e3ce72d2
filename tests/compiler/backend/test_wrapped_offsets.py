"""GPU-style offsets on MTIA: wrapped rows (`% M`), hints (`tl.multiple_of`, `tl.max_contiguous`,
`tl.assume`), clamps, offsets chosen under an `if`. Every kernel runs on both executors against numpy
with NaN-poisoned outputs; the compiled form is checked where the lowering matters (boxes, not gathers)."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch
from shared_kernels import dma_lines, wrapped_matmul_kernel


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


def _wrapped_matmul(executor, M, N, K, BM=32, BN=32, BK=16):
    rng = np.random.default_rng(M * 7 + N)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float16)
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    launch(wrapped_matmul_kernel, grid, a, b, c, M, N, K, K, N, N, BM=BM, BN=BN, BK=BK, executor=executor)
    return a, b, c


@pytest.mark.parametrize("M,N,K", [(64, 64, 32), (100, 72, 40), (20, 40, 48), (5, 3, 16)])
def test_wrapped_rows_give_the_interpreters_result(M, N, K):
    # M and N not multiples of the blocks wrap the edge tiles (twice and more where M < BM)
    a, b, ref = _wrapped_matmul("interpreter", M, N, K)
    _, _, out = _wrapped_matmul("mtia", M, N, K)
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_allclose(out.astype(np.float32), a.astype(np.float32) @ b.astype(np.float32), rtol=2e-2, atol=2e-2)


def test_wrapped_rows_load_as_boxes_not_gathers():
    a = np.zeros((100, 40), np.float16)
    b = np.zeros((40, 72), np.float16)
    c = np.zeros((100, 72), np.float16)
    compiled = wrapped_matmul_kernel.compile(a, b, c, 100, 72, 40, 40, 72, 72, BM=32, BN=32, BK=16)
    dmas = dma_lines(compiled)
    assert not any(d.startswith(("dma.gather", "dma.scatter")) for d in dmas), dmas
    assert sum("wrap=[0," in d for d in dmas) == 1 and sum("wrap=[1," in d for d in dmas) == 1, dmas
    assert "se." not in compiled.asm["mtia-asm"].split("for_")[1].split("endfor")[0], \
        "no address tile is computed inside the K loop"


@triton.jit
def _clamped_rows_kernel(x_ptr, out_ptr, M, C: tl.constexpr, R: tl.constexpr, USE_MIN: tl.constexpr):
    # the persistent-matmul tutorial's clamp: rows past M read row 0 (or, with tl.minimum, row M - 1)
    rows = tl.program_id(0) * R + tl.arange(0, R)
    if USE_MIN:
        src = tl.minimum(rows, M - 1)
    else:
        src = tl.where(rows < M, rows, 0)
    src = tl.max_contiguous(tl.multiple_of(src, R), R)
    cols = tl.arange(0, C)
    x = tl.load(x_ptr + src[:, None] * C + cols[None, :])
    tl.store(out_ptr + rows[:, None] * C + cols[None, :], x * 2.0)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("use_min", [False, True])
def test_clamped_rows_read_the_clamp_row(executor, use_min):
    M, C, R = 21, 16, 8
    x = np.random.default_rng(3).standard_normal((M, C)).astype(np.float32)
    out = np.full((24, C), np.nan, np.float32)
    launch(_clamped_rows_kernel, (3,), x, out, M, C=C, R=R, USE_MIN=use_min, executor=executor)
    rows = np.arange(24)
    src = np.minimum(rows, M - 1) if use_min else np.where(rows < M, rows, 0)
    np.testing.assert_array_equal(out, x[src] * 2)


def test_clamped_rows_load_as_one_box():
    x = np.zeros((21, 16), np.float32)
    out = np.zeros((24, 16), np.float32)
    for use_min, fill in ((False, "0"), (True, None)):
        dmas = dma_lines(_clamped_rows_kernel.compile(x, out, 21, C=16, R=8, USE_MIN=use_min))
        assert len(dmas) == 2 and "clamp=[0," in dmas[0], dmas
        if fill is not None:
            assert dmas[0].endswith(f", {fill}]"), dmas


@triton.jit
def _rotate_kernel(x_ptr, out_ptr, n, shift, B: tl.constexpr):
    # a wrapped store: out[(i + shift) % n] = x[i]
    i = tl.arange(0, B)
    tl.store(out_ptr + (i + shift) % n, tl.load(x_ptr + i))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_wrapped_store_writes_both_parts(executor):
    x = np.arange(32, dtype=np.float32)
    out = np.full(32, np.nan, np.float32)
    launch(_rotate_kernel, (1,), x, out, 32, 5, B=32, executor=executor)
    np.testing.assert_array_equal(out, np.roll(x, 5))
    assert not any("scatter" in d for d in dma_lines(_rotate_kernel.compile(x, out, 32, 5, B=32)))


def test_a_remapped_descriptor_splits_into_its_contiguous_parts():
    from simulator.semantics.dma import boxes

    def parts(**remap):
        return [(base, sl[0].start, shape[0], st[0])
                for base, sl, shape, st in boxes({"base": 1000, "strides": (10, 1), **remap}, (8, 4), 2, str)]
    # rows 30, 31, then 0..5: two boxes of the same row stride
    assert parts(wrap=(0, 30, 32)) == [(1000 + 30 * 20, 0, 2, 10), (1000, 2, 6, 10)]
    # a bound smaller than the tile wraps more than once
    assert parts(wrap=(0, 1, 3)) == [(1020, 0, 2, 10), (1000, 2, 3, 10), (1000, 5, 3, 10)]
    # rows 6, 7 then row 0 repeated: the tail has stride 0
    assert parts(clamp=(0, 6, 8, 0)) == [(1000 + 6 * 20, 0, 2, 10), (1000, 2, 6, 0)]
    assert parts() == [(1000, 0, 8, 10)]
