"""Host arrays in simulated memory: guard zones around every argument, so that any load or store off
either end of an array faults on both executors and names the array it left; a failed launch leaves
every user array unchanged; a timing-only run (numerics=False) writes nothing back."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import compiler as triton
import compiler.language as tl
import compiler.runtime.mtia_executor  # noqa: F401  (registers the executor)
from compiler.errors import OutOfBoundsError
from simulator import use_config
from simulator.memory.global_memory import guard_bytes

from executors import EXECUTORS, launch

BLOCK = 64
RNG = np.random.default_rng(9)


@triton.jit
def block_access(x_ptr, neighbour_ptr, o_ptr, start, active, STORE: tl.constexpr, MASKED: tl.constexpr,
                 BLOCK: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    if STORE:                                   # read in bounds, write at the fuzzed offsets of o
        v = tl.load(x_ptr + lanes)
        if MASKED:
            tl.store(o_ptr + start + lanes, v, mask=lanes < active)
        else:
            tl.store(o_ptr + start + lanes, v)
    else:                                       # read at the fuzzed offsets of x, write in bounds
        if MASKED:
            v = tl.load(x_ptr + start + lanes, mask=lanes < active, other=0.0)
        else:
            v = tl.load(x_ptr + start + lanes)
        tl.store(o_ptr + lanes, v)


@triton.jit
def scalar_access(x_ptr, neighbour_ptr, o_ptr, start, active, STORE: tl.constexpr, MASKED: tl.constexpr):
    if STORE:
        v = tl.load(x_ptr)
        if MASKED:
            tl.store(o_ptr + start, v, mask=active > 0)
        else:
            tl.store(o_ptr + start, v)
    else:
        if MASKED:
            v = tl.load(x_ptr + start, mask=active > 0, other=0.0)
        else:
            v = tl.load(x_ptr + start)
        tl.store(o_ptr, v)


def _run(executor, scalar, store, masked, n, start, active):
    """Launch one access pattern on fresh random arrays; returns (arrays, their copies, error or None)."""
    x = RNG.standard_normal(n).astype(np.float32)
    neighbour = RNG.standard_normal(n).astype(np.float32)
    o = np.full(n, np.nan, np.float32)
    arrays = (x, neighbour, o)
    before = [a.copy() for a in arrays]
    kernel, meta = (scalar_access, {}) if scalar else (block_access, {"BLOCK": BLOCK})
    try:
        launch(kernel, (1,), x, neighbour, o, start, active, STORE=store, MASKED=masked, executor=executor, **meta)
    except OutOfBoundsError as e:
        return arrays, before, e
    return arrays, before, None


@st.composite
def overruns(draw):
    """An access pattern whose active lanes leave the array: past its end or before its start, by at
    most the guard zone (an array's guard is at least its own size, 64 KiB at least in DRAM)."""
    scalar, store, masked = draw(st.booleans()), draw(st.booleans()), draw(st.booleans())
    n = draw(st.sampled_from([BLOCK, 100, 1000, 5000]))
    active = 1 if scalar else (draw(st.integers(1, BLOCK)) if masked else BLOCK)
    guard = guard_bytes(n * 4, "dram") // 4
    if draw(st.booleans()):
        start = n - active + draw(st.integers(1, guard))           # the last active lane is past the end
    else:
        start = -draw(st.integers(1, guard))                        # the first lane is before the start
    return scalar, store, masked, n, start, active


@pytest.mark.parametrize("executor", EXECUTORS)
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(case=overruns())
def test_every_overrun_faults_and_names_the_array_it_left(executor, case):
    scalar, store, masked, n, start, active = case
    arrays, before, err = _run(executor, scalar, store, masked, n, start, active)
    assert err is not None, f"no error for {case}"
    msg = str(err)
    name = "o_ptr" if store else "x_ptr"
    side = "before the start" if start < 0 else "past the end"
    assert re.search(rf"{side} of (array ')?{name}\b", msg), msg
    kernel = "scalar_access" if scalar else "block_access"
    assert kernel in msg and "(0, 0, 0)" in msg and "test_host_memory.py:" in msg, msg
    if executor == "mtia":
        assert re.search(r"on PE 0 \(0, 0\), instruction \d+ `", msg), msg
    assert ("store" if store else "load") in msg, msg
    for a, b in zip(arrays, before):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("scalar", [False, True])
@pytest.mark.parametrize("store", [False, True])
def test_in_bounds_access_of_the_fuzzed_kernels_runs_and_writes(executor, scalar, store):
    """The same kernels at in-bounds offsets run, and write what they should (so the test above
    fails if they stop faulting only because they no longer access memory)."""
    n, start = 1000, 936
    arrays, _, err = _run(executor, scalar, store, True, n, start, 1 if scalar else BLOCK)
    assert err is None, err
    x, _, o = arrays
    width = 1 if scalar else BLOCK
    if store:
        np.testing.assert_array_equal(o[start: start + width], x[:width])
        assert np.isnan(o[:start]).all()
    else:
        np.testing.assert_array_equal(o[:width], x[start: start + width])


@triton.jit
def sram_overrun(x_ptr, o_ptr, start, BLOCK: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    tl.store(o_ptr + start + lanes, tl.load(x_ptr + lanes))


@pytest.mark.parametrize("start", [1000 - BLOCK + 1, 1000 + 500, -1, -700])
def test_an_overrun_in_the_sram_scratch_names_the_array(start):
    x, o = RNG.standard_normal(1000).astype(np.float32), np.full(1000, np.nan, np.float32)
    with use_config("mtia-small"), pytest.raises(OutOfBoundsError) as e:
        sram_overrun[(1,)](x, o, start, BLOCK=BLOCK, executor="mtia", sram_resident=True)
    side = "before the start" if start < 0 else "past the end"
    assert re.search(rf"{side} of o_ptr \[0x[0-9a-f]+, 0x[0-9a-f]+\) in SRAM", str(e.value)), str(e.value)
    assert np.isnan(o).all()


# ---- timing-only runs ----------------------------------------------------------------------------

@triton.jit
def add_one(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


def test_a_timing_only_run_writes_nothing_back_and_says_so():
    x = RNG.standard_normal(4096).astype(np.float32)
    x0 = x.copy()
    o = np.full_like(x, np.nan)
    with use_config("mtia-small"):
        timing = add_one[(4,)](x, o, x.size, BLOCK=1024, executor="mtia", numerics=False)
        assert np.isnan(o).all()                                   # o is still its poison, not x
        np.testing.assert_array_equal(x, x0)
        full = add_one[(4,)](x, o, x.size, BLOCK=1024, executor="mtia")
    np.testing.assert_array_equal(o, x + 1)
    assert timing.numerics is False and full.numerics is True
    assert timing.cycles == full.cycles > 0
    assert timing.to_dict()["numerics"] is False
    assert "(timing only)" in str(timing.report).splitlines()[0]


# ---- overlapping views of one array ----------------------------------------------------------------

@triton.jit
def forward_difference(a_ptr, b_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(b_ptr + offs, mask=m) - tl.load(a_ptr + offs, mask=m), mask=m)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shift", [1, 4, 8])      # 4 and 16 bytes, and 32: off and on the DMA alignment
def test_overlapping_views_of_one_array_share_its_buffer(executor, shift):
    x = RNG.standard_normal(1000).astype(np.float32)
    x0 = x.copy()
    o = np.full(1000 - shift, np.nan, np.float32)
    launch(forward_difference, (4,), x[:-shift], x[shift:], o, o.size, BLOCK=256, executor=executor)
    np.testing.assert_array_equal(o, x0[shift:] - x0[:-shift])
    np.testing.assert_array_equal(x, x0)


@triton.jit
def double_into(a_ptr, b_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(b_ptr + offs, tl.load(a_ptr + offs, mask=m) * 2, mask=m)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_store_through_one_view_lands_in_the_other(executor):
    y = np.arange(16, dtype=np.float32)
    launch(double_into, (1,), y[:8], y[3:11], 8, BLOCK=8, executor=executor)   # one block: load, then store
    np.testing.assert_array_equal(y, np.r_[0, 1, 2, np.arange(8) * 2, 11:16].astype(np.float32))
