"""The chip's memory state carried from launch to launch (simulator/chip/memory_state.py): a launch finds
what the previous one left in the LLC, pays for the dirty lines it evicts, and the dirty lines left at
the end are drained at DRAM speed."""
import numpy as np
import pytest

from simulator import load_config
from simulator.chip.memory_state import MemoryState
from simulator.examples.micro import dram_copy, dram_stream
from simulator.machine import Machine

CHUNK = 32768
N = 64 * 2 * CHUNK          # 4 MiB: fits the 128 MiB LLC of mtia-2i


def _copy_then_read(state, cfg):
    """dst = src on one machine, then a stream over dst on another: a model's two kernels, the second
    reading what the first wrote. The two machines place the arrays alike (same allocation order)."""
    m1 = Machine(cfg, numerics=False, memory_state=state)
    src, dst = m1.gmem.alloc(N, "src"), m1.gmem.alloc(N, "dst")
    r1 = m1.run(dram_copy(2, CHUNK), grid=(64,), args={"src": src, "dst": dst})
    m2 = Machine(cfg, numerics=False, memory_state=state)
    m2.gmem.alloc(N, "src")
    dst2 = m2.gmem.alloc(N, "dst")
    assert dst2.base == dst.base
    r2 = m2.run(dram_stream(2, CHUNK), grid=(64,), args={"src": dst2})
    return r1, r2, dst.base


def test_a_carried_llc_serves_the_next_launch_from_sram():
    cfg = load_config("mtia-2i")
    lines = N // cfg.sram.line_bytes
    state = MemoryState(cfg)
    r1, r2, dst = _copy_then_read(state, cfg)
    assert r1.llc["warm_hits"] == 0 and r1.bytes["dram_write"] == 0        # write-back: dst stays in the LLC, dirty
    assert r2.llc["warm_hits"] == lines and r2.bytes["dram_read"] == 0
    # the same two launches on cold chips: the reader misses every line
    _, cold, _ = _copy_then_read(None, cfg)
    assert cold.llc["warm_hits"] == 0 and cold.bytes["dram_read"] == N and cold.cycles > 1.5 * r2.cycles
    # what the state says about dst: every line cached and dirty, relative to its first line
    rel, dirty = state.lines_in(dst, dst + N)
    assert np.array_equal(rel, np.arange(lines)) and dirty.all()
    # the run's end: dst's dirty lines go to DRAM, at no more than the channels' bandwidth
    drained = state.drain()
    assert drained.bytes == N and state.occupancy()[1] == 0
    floor = N / (cfg.dram.bandwidth_gbps / cfg.clock_ghz)
    assert floor < drained.cycles < 2 * floor
    assert state.drain().bytes == 0                                        # drained once


def test_a_launch_that_evicts_an_earlier_launchs_dirty_lines_writes_them_back():
    cfg = load_config("mtia-2i", {"sram.unit_mib": 2, "sram.llc_mib": 2})       # 2 MiB of LLC: the second copy evicts the first's dst
    state = MemoryState(cfg)
    m1 = Machine(cfg, numerics=False, memory_state=state)
    a, b = m1.gmem.alloc(N, "a"), m1.gmem.alloc(N, "b")
    r1 = m1.run(dram_copy(2, CHUNK), grid=(64,), args={"src": a, "dst": b})
    dirty_left = state.occupancy()[1]
    assert dirty_left > 0 and r1.llc["warm_writebacks"] == 0
    m2 = Machine(cfg, numerics=False, memory_state=state)
    c, d = m2.gmem.alloc(N, "c"), m2.gmem.alloc(N, "d")
    r2 = m2.run(dram_copy(2, CHUNK), grid=(64,), args={"src": c, "dst": d})
    assert r2.llc["warm_writebacks"] == dirty_left                       # every line b left, written back by r2
    assert r2.bytes["dram_write"] >= dirty_left * cfg.sram.line_bytes


def test_restore_puts_a_range_back_as_listed():
    cfg = load_config("mtia-2i", {"sram.unit_mib": 2, "sram.llc_mib": 2})
    state = MemoryState(cfg)
    L = cfg.sram.line_bytes
    base = 1 << 34
    state.restore(base, base + 64 * L, np.array([0, 5, 63]), np.array([True, False, True]))
    rel, dirty = state.lines_in(base, base + 64 * L)
    assert rel.tolist() == [0, 5, 63] and dirty.tolist() == [True, False, True]
    written = state.restore(base, base + 64 * L, np.array([5]), np.array([False]))
    assert written == 2                                                   # lines 0 and 63 left dirty
    assert state.lines_in(base, base + 64 * L)[0].tolist() == [5]


def test_a_state_refuses_a_config_with_another_llc():
    state = MemoryState(load_config("mtia-2i"))
    with pytest.raises(ValueError, match="LLC"):
        Machine(load_config("mtia-2i", {"sram.unit_mib": 2, "sram.llc_mib": 2}), numerics=False, memory_state=state)


def test_a_large_range_reads_the_same_lines_as_a_small_one():
    cfg = load_config("mtia-2i", {"sram.unit_mib": 2, "sram.llc_mib": 2})
    state = MemoryState(cfg)
    L = cfg.sram.line_bytes
    base = 1 << 34
    rel = np.array([3, 7, 900, 4000])
    state.restore(base, base + 5000 * L, rel, np.array([False, True, True, False]))
    small = state.lines_in(base, base + 5000 * L)                   # looked up line by line
    large = state.lines_in(base - (1 << 30), base + (1 << 30))     # picked out of every cached line
    assert small[0].tolist() == rel.tolist() and (large[0] - (1 << 30) // L).tolist() == rel.tolist()
    assert small[1].tolist() == large[1].tolist() == [False, True, True, False]
