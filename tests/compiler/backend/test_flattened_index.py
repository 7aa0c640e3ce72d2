"""Inductor's flattened indexing on MTIA: one index split by `% C` and `// C` (`x0 = xindex % C`,
`x1 = xindex // C`). When the block provably stays inside one period of C (it starts at a multiple of
its size, which divides C), the quotient is one scalar for the whole block and the access is a DMA
box; otherwise it stays a gather. Both run on both executors against numpy, outputs NaN-poisoned."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.runtime.mtia_executor import mtia_program
from simulator import get_config

from executors import EXECUTORS, launch


@triton.jit
def _heads_kernel(x_ptr, out_ptr, ZN, H: tl.constexpr, S: tl.constexpr, D: tl.constexpr,
                  ZB: tl.constexpr, YB: tl.constexpr, XB: tl.constexpr):
    # Inductor's 3-D tiled head transpose [b, s, h, d] -> [b, h, s, d]: z = b * H + h, split by % and //
    z = tl.program_id(2) * ZB + tl.arange(0, ZB)[:, None, None]
    y = tl.program_id(1) * YB + tl.arange(0, YB)[None, :, None]
    x = tl.program_id(0) * XB + tl.arange(0, XB)[None, None, :]
    mask = (z < ZN) & (y < S) & (x < D)
    h = z % H
    b = z // H
    v = tl.load(x_ptr + (x + D * h + H * D * y + S * H * D * b), mask)
    tl.store(out_ptr + (x + D * y + S * D * z), v * 2.0, mask)


def _heads(executor, batch, H, S, D, ZB, YB=8, XB=16):
    x = np.random.default_rng(batch * 10 + H).standard_normal((batch, S, H, D)).astype(np.float32)
    out = np.full((batch, H, S, D), np.nan, np.float32)
    grid = (triton.cdiv(D, XB), triton.cdiv(S, YB), triton.cdiv(batch * H, ZB))
    args = (x, out, batch * H)
    meta = dict(H=H, S=S, D=D, ZB=ZB, YB=YB, XB=XB)
    launch(_heads_kernel, grid, *args, **meta, executor=executor)
    np.testing.assert_array_equal(out, 2 * x.transpose(0, 2, 1, 3))
    return _heads_kernel.compile(*args, **meta)


def _elementwise(compiled) -> list[str]:
    return [ln.strip() for ln in compiled.asm["mtia-asm"].splitlines()
            if ln.strip().startswith(("dma.gather", "dma.scatter"))]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("batch,H,ZB", [(3, 4, 2), (3, 4, 4), (2, 8, 4)])
def test_a_block_inside_one_period_of_the_split_loads_as_a_box(executor, batch, H, ZB):
    # ZB divides H and each block starts at a multiple of ZB: one quotient per block (the last
    # block along z is cut by the mask when batch * H is no multiple of ZB)
    assert _elementwise(_heads(executor, batch, H, S=12, D=16, ZB=ZB)) == []


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("batch,H,ZB", [(3, 4, 8), (4, 3, 2)])
def test_a_block_that_crosses_a_period_stays_a_gather_and_is_right(executor, batch, H, ZB):
    # ZB = 8 > H = 4 spans two quotients; H = 3 is no multiple of ZB = 2, so a block can straddle one
    assert len(_elementwise(_heads(executor, batch, H, S=12, D=16, ZB=ZB))) == 1


@triton.jit
def _heads_2d_kernel(x_ptr, out_ptr, YN, H: tl.constexpr, S: tl.constexpr, D: tl.constexpr,
                     YB: tl.constexpr, XB: tl.constexpr):
    # the same transpose tiled in 2-D: y = (b * H + h) * S + s, split three ways
    y = tl.program_id(1) * YB + tl.arange(0, YB)[:, None]
    x = tl.program_id(0) * XB + tl.arange(0, XB)[None, :]
    mask = (y < YN) & (x < D)
    s = y % S
    h = (y // S) % H
    b = y // (S * H)
    v = tl.load(x_ptr + (x + D * h + H * D * s + S * H * D * b), mask)
    tl.store(out_ptr + (x + D * y), v * 2.0, mask)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("S,YB,boxes", [(16, 8, True), (16, 16, True), (12, 8, False)])
def test_a_quotient_taken_again_by_another_divisor_is_one_scalar_too(executor, S, YB, boxes):
    # (y // S) % H: a block inside one sequence has one head and one batch index; S = 12 is no
    # multiple of YB = 8, so a block can span two sequences
    batch, H, D, XB = 2, 4, 16, 16
    x = np.random.default_rng(S + YB).standard_normal((batch, S, H, D)).astype(np.float32)
    out = np.full((batch, H, S, D), np.nan, np.float32)
    args = (x, out, batch * H * S)
    meta = dict(H=H, S=S, D=D, YB=YB, XB=XB)
    launch(_heads_2d_kernel, (1, triton.cdiv(batch * H * S, YB)), *args, **meta, executor=executor)
    np.testing.assert_array_equal(out, 2 * x.transpose(0, 2, 1, 3))
    compiled = _heads_2d_kernel.compile(*args, **meta)
    assert _elementwise(compiled) == []
    # where a block spans two sequences no box covers it, but each row is D contiguous elements
    # picked by its own (computed) offset: a row load (backend/analysis/rows.py), a gather without that
    assert ("dma.rows" in compiled.asm["mtia-asm"]) == (not boxes)
    if not boxes:
        off = mtia_program(compiled, get_config(), 3, {"row_loads": False})[0].to_asm()
        assert "dma.gather" in off and "dma.rows" not in off


@triton.jit
def _every_other_row_kernel(x_ptr, out_ptr, N, C: tl.constexpr, XB: tl.constexpr, START: tl.constexpr):
    # a flat index over rows of C, reading every other row of x: x0 = i % C, x1 = i // C
    i = START + tl.program_id(0) * XB + tl.arange(0, XB)
    x0 = i % C
    x1 = i // C
    m = i < N
    tl.store(out_ptr + i, tl.load(x_ptr + (x0 + 2 * C * x1), m) + 1.0, m)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("XB,START,boxes", [(16, 0, True), (32, 0, True), (16, 8, False), (64, 0, False)])
def test_a_flat_index_split_by_rows(executor, XB, START, boxes):
    # C = 32: blocks of 16 or 32 from 0 stay in one row; from 8 a block of 16 straddles rows; 64 spans two
    C, rows = 32, 7
    N = rows * C
    x = np.random.default_rng(XB + START).standard_normal((2 * rows, C)).astype(np.float32)
    out = np.full(N, np.nan, np.float32)
    grid = (triton.cdiv(N - START, XB),)
    launch(_every_other_row_kernel, grid, x, out, N, C=C, XB=XB, START=START, executor=executor)
    ref = (x[::2] + 1).reshape(-1)
    np.testing.assert_array_equal(out[START:], ref[START:])
    assert np.isnan(out[:START]).all()
    compiled = _every_other_row_kernel.compile(x, out, N, C=C, XB=XB, START=START)
    assert (_elementwise(compiled) == []) == boxes
