"""Indirect loads whose checked indices stay inside a small window per row (compiler/backend/analysis/windows.py):
Inductor's `z[:, li, lj]`, each index wrapped if negative and checked by a device_assert before the
load, becomes a DMA box of the rows' windows and a gather in the local store, not an element-wise DMA
gather. Both executors against numpy, outputs NaN-poisoned."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.errors import DeviceAssertionError

from executors import EXECUTORS, launch
from shared_kernels import pairs_kernel


def _pairs(executor, li, lj, R=37, F=4, OUT=9, guarded=True, other=False, write=False, YB=16, XB=8, options=None):
    rng = np.random.default_rng(R + F)
    z = rng.standard_normal((R, F, F)).astype(np.float32)
    z_in = z.copy()
    out = np.full((R, OUT), np.nan, np.float32)
    P = len(li)
    args = (np.array(li, np.int64), np.array(lj, np.int64), z_in, out, R, P)
    meta = dict(F=F, OUT=OUT, GUARDED=guarded, OTHER=other, WRITE=write, YB=YB, XB=XB)
    switches = {"mtia_options": options} if options else {}
    launch(pairs_kernel, (triton.cdiv(P, XB), triton.cdiv(R, YB)), *args, **meta, **switches, executor=executor)
    if write:
        z = z.copy()
        z[:, 1, 0] = 5.0
    expected = np.full((R, OUT), np.nan, np.float32)
    expected[:, :P] = z[:, np.array(li) % F, np.array(lj) % F]
    if other:
        expected[:, P:min(XB, OUT)] = -1.0
    np.testing.assert_array_equal(out, expected)
    return pairs_kernel.compile(*args, **meta)


def _elementwise(compiled) -> list[str]:
    return [ln.strip() for ln in compiled.asm["mtia-asm"].splitlines() if ln.strip().startswith("dma.gather")]


# DLRM's lower-triangle pairs of 4 features, one of them written negative (wrapped)
LI, LJ = [1, 2, 2, 3, 3, -1], [0, 0, 1, 0, 1, 2]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("guarded,other", [(True, False), (False, False), (True, True)])
def test_checked_indices_inside_a_row_load_the_rows_and_gather_in_the_local_store(executor, guarded, other):
    assert _elementwise(_pairs(executor, LI, LJ, guarded=guarded, other=other)) == []


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_store_between_the_checks_and_the_load_is_seen(executor):
    # the box is issued before the asserts only when nothing between them writes memory
    assert _elementwise(_pairs(executor, LI, LJ, write=True)) == []


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_window_wider_than_four_blocks_stays_a_gather_and_is_right(executor):
    # 16 features: a row's window is 256 elements, 32x the 8 lanes the block gathers
    assert len(_elementwise(_pairs(executor, [15, 3, 7], [2, 14, 9], F=16))) == 1


@pytest.mark.parametrize("executor", EXECUTORS)
def test_an_index_out_of_its_range_still_fails_the_assert(executor):
    with pytest.raises(DeviceAssertionError, match="0 <= i < F"):
        _pairs(executor, [1, 4], [0, 0])


@triton.jit
def _wide_kernel(i_ptr, j_ptr, z_ptr, out_ptr, R, P, F: tl.constexpr, LO: tl.constexpr, HI: tl.constexpr,
                 YB: tl.constexpr, XB: tl.constexpr):
    # out[r, p] = z[r, i[p], j[p]] over rows of F x F, the asserts allowing [LO, HI): wider than F
    y = tl.program_id(1) * YB + tl.arange(0, YB)[:, None]
    x = tl.program_id(0) * XB + tl.arange(0, XB)[None, :]
    ymask = y < R
    xmask = x < P
    i = tl.load(i_ptr + x, xmask)
    j = tl.load(j_ptr + x, xmask)
    tl.device_assert(((LO <= i) & (i < HI)) | ~xmask, "index out of bounds: LO <= i < HI")
    tl.device_assert(((LO <= j) & (j < HI)) | ~xmask, "index out of bounds: LO <= j < HI")
    v = tl.load(z_ptr + (j + F * i + F * F * y), xmask & ymask)
    tl.store(out_ptr + (x + P * y), v, xmask & ymask)


def _wide(executor, lo, hi, extra_rows=0, **opts):
    """z: [R + extra_rows, 4, 4], the kernel reads its first R rows; returns the launch record."""
    R, F = 37, 4
    li, lj = np.array([1, 2, 3, 3, 0]), np.array([0, 1, 2, 0, 3])
    z = np.random.default_rng(3).standard_normal((R + extra_rows, F, F)).astype(np.float32)
    out = np.full((R, len(li)), np.nan, np.float32)
    meta = dict(F=F, LO=lo, HI=hi, YB=16, XB=16)
    if opts:
        meta["mtia_options"] = opts
    rec = launch(_wide_kernel, (1, triton.cdiv(R, 16)), li, lj, z, out, R, len(li), **meta, executor=executor)
    np.testing.assert_array_equal(out, z[:R, li, lj])
    return rec


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("lo,hi", [(0, 8), (-3, 4), (-1, 6)])
def test_asserts_wider_than_the_array_read_no_byte_outside_it(executor, lo, hi):
    # the windows of the last rows (or, with lo < 0, of the first) would run past the array: that launch
    # takes the element-wise gathers, which read only the indexed elements (the simulator raised an
    # out-of-bounds error on a valid kernel before)
    assert "dma.gather" not in _wide_kernel.compile(
        np.zeros(5, np.int64), np.zeros(5, np.int64), np.zeros((37, 4, 4), np.float32),
        np.zeros((37, 5), np.float32), 37, 5, F=4, LO=lo, HI=hi, YB=16, XB=16).asm["mtia-asm"]
    rec = _wide(executor, lo, hi)
    if executor == "mtia":
        assert rec.switched_off == ("index_windows",)


def test_a_wide_assert_over_an_array_that_holds_its_windows_keeps_them():
    # 8 spare rows past the 37 read: every window, 4 * 7 + 7 + 1 = 36 elements from its row, stays inside
    assert _wide("mtia", 0, 8, extra_rows=8).switched_off == ()


@pytest.mark.parametrize("executor", EXECUTORS)
def test_the_index_windows_switch_off_gives_gathers_and_the_same_numbers(executor):
    from compiler.runtime.mtia_executor import mtia_program
    from simulator import get_config
    compiled = _pairs(executor, LI, LJ, options={"index_windows": False})
    asm = mtia_program(compiled, get_config(), 3, {"index_windows": False})[0].to_asm()
    assert sum(ln.strip().startswith("dma.gather") for ln in asm.splitlines()) == 1
