"""Rows picked by an index block (`table + idx[:, None] * D + cols[None, :]`) load as one `dma.rows`
descriptor per row (compiler/backend/analysis/rows.py), not as an element-wise gather over an offsets tile.

Each kernel runs on both executors against numpy on random inputs, with NaN-poisoned outputs; the
`row_loads` switch off gives the same numbers through the gather; an index that leaves the array is
an error on both executors, never padding; and the rows form is faster than the gather it replaces.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.runtime.mtia_executor import mtia_program
from simulator import get_config, use_config
from tests.executors import EXECUTORS, launch


@triton.jit
def lookup(table, idx_ptr, out, n_rows, d, stride, BR: tl.constexpr, BD: tl.constexpr, FORM: tl.constexpr):
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    cols = tl.arange(0, BD)
    keep_r = r < n_rows
    idx = tl.load(idx_ptr + r, mask=keep_r, other=0)
    if FORM == "plain":                               # every row and column valid
        x = tl.load(table + idx[:, None] * BD + cols[None, :])
    elif FORM == "masked":                            # a ragged last block, columns past d
        x = tl.load(table + idx[:, None] * stride + cols[None, :],
                    mask=keep_r[:, None] & (cols < d)[None, :], other=-2.0)
    elif FORM == "padding_index":                     # rows whose index is negative are skipped
        x = tl.load(table + (idx * stride)[:, None] + cols[None, :],
                    mask=(idx >= 0)[:, None] & keep_r[:, None] & (cols[None, :] < d), other=0.0)
    else:                                             # an offset base: idx - 3 from row 3 on
        x = tl.load((table + 3 * stride) + (idx - 3)[:, None] * stride + cols[None, :],
                    mask=keep_r[:, None] & (cols[None, :] < d))
    tl.store(out + r[:, None] * BD + cols[None, :], x * 2, mask=keep_r[:, None])


def _case(form, n_rows=50, vocab=40, d=24, bd=32, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((vocab, bd if form == "plain" else d)).astype(dtype)
    idx = rng.integers(0, vocab, n_rows).astype(np.int32)
    if form == "padding_index":
        idx[::3] = -1
    return table, idx


def _expected(form, table, idx, bd, d):
    n = idx.size
    want = np.empty((n, bd), np.float32)
    if form == "plain":
        want[:] = table[idx]
    else:
        fill = {"masked": -2.0, "padding_index": 0.0, "offset_base": 0.0}[form]
        want[:] = fill
        live = idx >= 0
        want[live, :d] = table[idx[live], :d]
    return (want * 2).astype(table.dtype)


def _run(form, table, idx, executor, bd=32, br=16, **kw):
    n, d = idx.size, table.shape[1]
    out = np.full((n, bd), np.nan, table.dtype)
    rec = launch(lookup, (triton.cdiv(n, br),), table, idx, out, n, min(d, bd), d, BR=br, BD=bd, FORM=form,
                 executor=executor, **kw)
    return out, rec


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("form", ["plain", "masked", "padding_index", "offset_base"])
def test_rows_match_numpy(form, executor):
    table, idx = _case(form)
    out, _ = _run(form, table, idx, executor)
    d = table.shape[1]
    want = _expected(form, table, idx, 32, min(d, 32))
    if form == "offset_base":          # masked-off columns take no `other`: undefined, not compared
        np.testing.assert_array_equal(out[:, :d], want[:, :d])
    else:
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("form", ["plain", "masked", "padding_index"])
def test_rows_form_is_dma_rows_and_switch_gives_the_gather(form):
    table, idx = _case(form, dtype=np.float16)
    on, rec_on = _run(form, table, idx, "mtia")
    off, rec_off = _run(form, table, idx, "mtia", mtia_options={"row_loads": False})
    np.testing.assert_array_equal(on, off)
    compiled = rec_on.compiled_kernel
    with use_config("mtia-small"):
        asm_on, asm_off = (mtia_program(compiled, get_config(), 3, opts)[0].to_asm() for opts in ({}, {"row_loads": False}))
    assert "dma.rows" in asm_on and "dma.gather" not in asm_on
    assert "dma.gather" in asm_off and "dma.rows" not in asm_off


def test_rows_are_faster_than_the_gather():
    """Each row is one run of 512 bytes through the DMA, where the gather moves every element as its own
    32-byte burst: on MTIA 2i (mtia-small's DRAM is slow enough to hide it) a lookup of 512 rows of 128
    f32 in 8 programs moves a quarter of the SRAM bytes and takes well under half the cycles (4,042
    against 10,842 when written)."""
    table, idx = _case("plain", n_rows=512, vocab=1000, bd=128)
    runs = []
    for opts in ({}, {"row_loads": False}):
        out = np.full((512, 128), np.nan, np.float32)
        with use_config("mtia-2i"):
            runs.append(lookup[(8,)](table, idx, out, 512, 128, 128, BR=64, BD=128, FORM="plain", mtia_options=opts))
        np.testing.assert_array_equal(out, table[idx] * 2)
    on, off = runs
    assert on.roofline.sram_bytes * 4 <= off.roofline.sram_bytes
    assert on.cycles * 2 < off.cycles, (on.cycles, off.cycles)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_index_outside_the_table_is_an_error(executor):
    table, idx = _case("plain")
    idx[7] = table.shape[0] + 5                 # past the table's last row, unmasked
    with pytest.raises(Exception, match=r"(?i)outside|out of bounds|past|beyond|runs? off"):
        _run("plain", table, idx, executor)


@triton.jit
def moving_rows(table, idx_ptr, out, m, BR: tl.constexpr, BD: tl.constexpr, WRAP: tl.constexpr):
    r = tl.arange(0, BR)
    cols = tl.arange(0, BD)
    idx = tl.load(idx_ptr + r)
    rr = (r + 5) % m if WRAP else r                                            # the tutorial's `% M` rows
    x = tl.load(table + (rr * BD)[:, None] + idx[:, None] + cols[None, :])    # affine part moves down rows
    tl.store(out + r[:, None] * BD + cols[None, :], x)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("wrap", [False, True])
def test_rows_whose_affine_part_moves_down_the_rows(executor, wrap):
    rng = np.random.default_rng(1)
    table = rng.standard_normal(16 * 8 + 8).astype(np.float32)
    idx = rng.integers(0, 8, 16).astype(np.int32)
    out = np.full((16, 8), np.nan, np.float32)
    rec = launch(moving_rows, (1,), table, idx, out, 11, BR=16, BD=8, WRAP=wrap, executor=executor)
    r = np.arange(16)
    rr = (r + 5) % 11 if wrap else r
    want = table[(rr * 8 + idx)[:, None] + np.arange(8)[None, :]]
    np.testing.assert_array_equal(out, want)
    if executor == "mtia":                      # index r * 8 + idx, row stride 1
        assert "dma.rows" in rec.asm["mtia-asm"]


@triton.jit
def stepped_rows(a_ptr, b_ptr, c_ptr, offa_ptr, offb_ptr, K, STEPS, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr):
    """A matmul whose A and B pointer blocks move row by row by offsets read in the loop (carried as the
    rows' offsets: compiler/backend/passes/carry_row_offsets.py)."""
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for s in range(STEPS):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += tl.load(offa_ptr + s * BM + rm)[:, None]
        b_ptrs += tl.load(offb_ptr + s * BK + rk)[:, None]
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def _stepped_case(bm, bn, bk, steps, seed=3):
    """Inputs and the numpy reference of stepped_rows: each row's start moves by its own offset, kept
    inside the arrays (A: bm rows of K, B: enough rows of bn)."""
    rng = np.random.default_rng(seed)
    k = bk * steps + 8
    a = rng.standard_normal((bm, k)).astype(np.float16)
    offa = rng.integers(0, 2, (steps, bm)) + (bk - 1)          # bk - 1 or bk: rows drift apart
    offb = (rng.integers(0, 2, (steps, bk)) + 1) * bn           # one or two rows of B down
    b = rng.standard_normal((bk + 2 * steps * bk + 2, bn)).astype(np.float16)
    a_off = np.arange(bm)[:, None] * k + np.arange(bk)[None, :]
    b_row = np.arange(bk)
    want = np.zeros((bm, bn))
    for s in range(steps):
        want += a.reshape(-1)[a_off].astype(np.float64) @ b[b_row].astype(np.float64)
        a_off = a_off + offa[s][:, None]
        b_row = b_row + offb[s] // bn
    return a, b, offa.astype(np.int32), offb.astype(np.int64), k, want


@pytest.mark.parametrize("executor", EXECUTORS)
def test_pointer_blocks_moved_row_by_row(executor):
    bm, bn, bk, steps = 32, 32, 16, 3
    a, b, offa, offb, k, want = _stepped_case(bm, bn, bk, steps)
    c = np.full((bm, bn), np.nan, np.float32)
    rec = launch(stepped_rows, (1,), a, b, c, offa, offb, k, steps, BM=bm, BN=bn, BK=bk, executor=executor)
    np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-3)
    if executor == "mtia":
        assert rec.asm["mtia-asm"].count("dma.rows") == 2 and "dma.gather" not in rec.asm["mtia-asm"]


def test_row_stepped_matmul_fits_at_128x256x64():
    """Carried as [128, 64] and [64, 256] address tiles, the two pointer blocks needed 540,672 bytes of
    local store on MTIA 2i (a fork's indirected-loads tutorial at its own block sizes was refused);
    as rows' offsets the kernel fits, and both executors agree bit for bit."""
    bm, bn, bk, steps = 128, 256, 64, 2
    a, b, offa, offb, k, want = _stepped_case(bm, bn, bk, steps)
    outs = []
    for executor in EXECUTORS:
        c = np.full((bm, bn), np.nan, np.float32)
        with use_config("mtia-2i"):
            stepped_rows[(1,)](a, b, c, offa, offb, k, steps, BM=bm, BN=bn, BK=bk, executor=executor)
        outs.append(c)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_allclose(outs[1], want, rtol=1e-3, atol=1e-3)


@triton.jit
def stepped_first_rows(a_ptr, b_ptr, c_ptr, offa_ptr, offb_ptr, K, KV, STEPS, BM: tl.constexpr,
                       BN: tl.constexpr, BK: tl.constexpr):
    """The indirected-loads form: the pointer blocks step first (a hinted [N, 1] offset), then load under
    a bound on the K still valid: the loads read the stepped block, two row terms summed."""
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for s in range(STEPS):
        a_ptrs += tl.multiple_of(tl.load(offa_ptr + s * BM + rm)[:, None], (1, 1))
        b_ptrs += tl.load(offb_ptr + s * BK + rk)[:, None]
        a = tl.load(a_ptrs, mask=rk[None, :] < KV - s * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < KV - s * BK, other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_pointer_blocks_stepped_before_the_masked_loads(executor):
    bm, bn, bk, steps = 32, 32, 16, 3
    a, b, offa, offb, k, _ = _stepped_case(bm, bn, bk, steps + 1)   # (room for the step before the load)
    kv = bk * steps - 5                                  # the last step reads 11 of its 16 columns
    a_off = np.arange(bm)[:, None] * k + np.arange(bk)[None, :]
    b_row = np.arange(bk)
    want = np.zeros((bm, bn))
    for s in range(steps):
        a_off, b_row = a_off + offa[s][:, None], b_row + offb[s] // bn
        live = np.arange(bk) < kv - s * bk
        want += (a.reshape(-1)[a_off] * live[None, :]).astype(np.float64) @ (b[b_row] * live[:, None])
    c = np.full((bm, bn), np.nan, np.float32)
    rec = launch(stepped_first_rows, (1,), a, b, c, offa, offb, k, kv, steps, BM=bm, BN=bn, BK=bk,
                 executor=executor)
    np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-3)
    if executor == "mtia":
        assert rec.asm["mtia-asm"].count("dma.rows") == 2 and "dma.gather" not in rec.asm["mtia-asm"]
