"""`tl.where` under a box mask (`tl.where(offs < n, x, 0.0)`, the way GPU kernels zero the tail of a
block before a reduction) is one SE command on MTIA, `se.select_box`, whose valid extents the control
core computes: no index block, no compare, no mask tile. Liger-Kernel's cross entropy with label
smoothing was refused for lack of local store at its 32,768-wide blocks, the mask tile being the
fourth 128 KiB tile live. Each kernel here stores the whole selected block over a NaN-poisoned output
(so the "else" part shows), is compared against numpy on both executors, and on MTIA also with the
switch off (`mtia_options={"select_boxes": False}`: the compare-and-select it replaces)."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.runtime.mtia_executor import mtia_program
from simulator import get_config, use_config

from executors import EXECUTORS, launch

BLOCK = 256


@triton.jit
def where_1d(X, Y, S, start, n, BLOCK: tl.constexpr):
    offs = start + tl.arange(0, BLOCK)
    x = tl.load(X + tl.arange(0, BLOCK))            # every element real data, none padded
    y = tl.where(offs < n, x * 2.0, -1.0)
    tl.store(Y + tl.arange(0, BLOCK), y)
    tl.store(S, tl.sum(y, 0))


@triton.jit
def where_2d(X, Y, M, N, lo, BR: tl.constexpr, BC: tl.constexpr, KIND: tl.constexpr):
    r = tl.arange(0, BR)
    c = tl.arange(0, BC)
    x = tl.load(X + r[:, None] * BC + c[None, :])
    if KIND == 0:
        keep = (r[:, None] < M) & (c[None, :] < N)
    elif KIND == 1:
        keep = c[None, :] <= N                       # inclusive, a column bound only (broadcast)
    elif KIND == 2:
        keep = (M > r[:, None]) & (lo < N)           # reversed compare, and a condition on no index
    else:
        keep = (2 * c[None, :] < N) & (r[:, None] < M)   # a coefficient: ceil(N / 2) columns
    tl.store(Y + r[:, None] * BC + c[None, :], tl.where(keep, x, 0.5 * x - 3.0))


def _asm(kernel, *args, switches=None, **kw):
    with use_config("mtia-small"):
        return mtia_program(kernel.compile(*args, **kw), get_config(), options=switches)[1]["mtia-asm"]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("start,n", [(0, 100), (64, 100), (0, 256), (0, 1000), (300, 100), (10, -5)])
def test_where_1d(executor, start, n):
    rng = np.random.default_rng(start * 7 + n + 11)
    x = rng.standard_normal(BLOCK).astype(np.float32)
    want = np.where(start + np.arange(BLOCK) < n, x * 2, np.float32(-1.0)).astype(np.float32)
    for options in ({}, {"mtia_options": {"select_boxes": False}}) if executor == "mtia" else ({},):
        y, s = np.full(BLOCK, np.nan, np.float32), np.full(1, np.nan, np.float32)
        launch(where_1d, (1,), x, y, s, start, n, BLOCK=BLOCK, executor=executor, **options)
        np.testing.assert_array_equal(y, want)
        np.testing.assert_allclose(s[0], want.sum(dtype=np.float64), rtol=1e-5)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("kind,M,N,lo", [(0, 5, 11, 0), (0, 16, 32, 0), (0, 0, 9, 0), (1, 0, 7, 0),
                                         (1, 0, -3, 0), (2, 9, 4, 2), (2, 9, 4, 7), (3, 6, 13, 0)])
def test_where_2d(executor, kind, M, N, lo):
    BR, BC = 16, 32
    rng = np.random.default_rng(kind * 100 + M * 10 + N)
    x = rng.standard_normal((BR, BC)).astype(np.float32)
    r, c = np.arange(BR)[:, None], np.arange(BC)[None, :]
    keep = [(r < M) & (c < N), c <= N + 0 * r, (M > r) & (lo < N) + 0 * c, (2 * c < N) & (r < M)][kind]
    want = np.where(keep, x, np.float32(0.5) * x - np.float32(3.0))
    for options in ({}, {"mtia_options": {"select_boxes": False}}) if executor == "mtia" else ({},):
        y = np.full((BR, BC), np.nan, np.float32)
        launch(where_2d, (1,), x, y, M, N, lo, BR=BR, BC=BC, KIND=kind, executor=executor, **options)
        np.testing.assert_array_equal(y, want)


def test_box_select_is_one_command_and_no_mask_tile():
    x = np.zeros(BLOCK, np.float32)
    s = np.zeros(1, np.float32)
    on = _asm(where_1d, x, x, s, 0, 100, BLOCK=BLOCK)
    off = _asm(where_1d, x, x, s, 0, 100, BLOCK=BLOCK, switches={"select_boxes": False})
    assert "se.select_box" in on and "se.lt" not in on and "se.iota" not in on
    assert "se.select_box" not in off and "se.lt" in off and "se.select " in off


def test_a_mask_that_is_no_box_keeps_the_select():
    @triton.jit
    def lower_bound(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(Y + offs, tl.where(offs >= n, tl.load(X + offs), 0.0))   # the last elements, not the first

    x = np.arange(BLOCK, dtype=np.float32) + 1
    assert "se.select_box" not in _asm(lower_bound, x, x, 3, BLOCK=BLOCK)
    for executor in EXECUTORS:
        y = np.full(BLOCK, np.nan, np.float32)
        launch(lower_bound, (1,), x, y, 3, BLOCK=BLOCK, executor=executor)
        np.testing.assert_array_equal(y, np.where(np.arange(BLOCK) >= 3, x, 0))


@triton.jit
def smoothed_lse(X, Out, n_cols, eps, BLOCK: tl.constexpr):
    """Liger-Kernel's cross-entropy first pass, in short: an online logsumexp over the row in BLOCK-wide
    chunks and the label-smoothing sum of -eps * x over the valid columns."""
    m = float("-inf")
    d = 0.0
    smooth = 0.0
    for i in range(0, n_cols, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        x = tl.load(X + offs, mask=offs < n_cols, other=float("-inf")).cast(tl.float32)
        block_max = tl.max(x)
        smooth += tl.sum(tl.where(offs < n_cols, -eps * x, 0.0))
        m_new = tl.maximum(m, block_max)
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new))
        m = m_new
    tl.store(Out, m + tl.log(d))
    tl.store(Out + 1, smooth)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_liger_cross_entropy_blocks_fit(executor):
    """At its 32,768-wide blocks the kernel needs three 128 KiB tiles (x, -eps * x, the exponentials):
    with the mask tile it needed a fourth and did not fit a 384 KiB local store."""
    n, B, eps = 40000, 32768, 0.1 / 40000
    x = np.random.default_rng(5).standard_normal(n).astype(np.float32) * 4
    out = np.full(2, np.nan, np.float32)
    launch(smoothed_lse, (1,), x, out, n, eps, BLOCK=B, executor=executor)
    x64 = x.astype(np.float64)
    lse = x64.max() + np.log(np.exp(x64 - x64.max()).sum())
    np.testing.assert_allclose(out, [lse, -eps * x64.sum()], rtol=1e-5)
    if executor == "mtia":
        assert "se.select_box" in _asm(smoothed_lse, x, out, n, eps, BLOCK=B)
