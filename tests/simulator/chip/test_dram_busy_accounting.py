"""The DRAM channels' busy time is the part of the run they worked: at most all of it. Write-backs of
evicted dirty lines take channel time that nothing waits for, so a run can end with some still queued
on the channels; that time lies after the run and is reported apart (`after_end`), not as busy."""
import numpy as np
import pytest

from simulator import load_config
from simulator.examples.micro import dram_copy
from simulator.machine import Machine

CHUNK = 32768


def test_write_backs_queued_past_the_end_are_not_busy_time_of_the_run():
    # a copy four times the size of a 1 MiB write-back LLC: its output evicts itself, and the last
    # evictions are still on the channels when the last store has landed in the LLC
    cfg = load_config("mtia-small", {"sram.unit_mib": 1, "sram.llc_mib": 1})
    m = Machine(cfg)
    n = 4 * 32 * CHUNK
    x = np.random.default_rng(0).standard_normal(n // 4).astype(np.float32)
    src, dst = m.gmem.alloc_array(x, "src"), m.gmem.alloc_array(np.full_like(x, np.nan), "dst")
    r = m.run(dram_copy(32, CHUNK), grid=(4,), args={"src": src, "dst": dst})
    np.testing.assert_array_equal(dst.data.view(np.float32)[: x.size], x)
    dram = m.memsys.dram
    past = np.maximum(dram.free_at - r.cycles, 0.0)
    assert past.sum() > 0, "the run must end with write-backs still queued, or it shows nothing"
    busy = sum(v for k, v in r.dram.items() if k != "after_end")
    assert busy <= 1.0 + 1e-9, r.dram
    # what the channels still had when the run ended is reported apart, to the cycle
    assert r.dram["after_end"] * r.cycles * dram.n == pytest.approx(past.sum())
    # and the busy time is the channels' bookings less that: nothing lost, nothing counted twice
    assert (busy + r.dram["after_end"]) * r.cycles * dram.n == pytest.approx(dram.busy.sum())
    line = next(ln for ln in str(r).splitlines() if ln.lstrip().startswith("dram "))
    pct = float(line.split("channels ")[1].split("%")[0])
    assert pct <= 100.0 and "queued past the end" in line, line
