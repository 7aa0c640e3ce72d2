"""Microbenchmarks written in ISA reach the rates their config promises, and no more."""
import numpy as np
import pytest

from simulator import load_config
from simulator.examples.micro import channel_stream, dpe_loop, dram_stream
from simulator.machine import Machine

from floor import assert_above_floor


@pytest.fixture(scope="module")
def cfg():
    return load_config("mtia-2i")


def test_dma_stream_from_all_pes_reaches_dram_bandwidth(cfg):
    m = Machine(cfg)
    chunks, chunk = 16, 32768
    src = m.gmem.alloc(64 * chunks * chunk, "src")
    r = m.run(dram_stream(chunks, chunk), grid=(64,), args={"src": src})
    assert r.bytes["dram_read"] == 64 * chunks * chunk           # every byte came from DRAM once
    frac = r.bytes["dram_read"] / r.seconds / (cfg.dram.bandwidth_gbps * 1e9)
    assert 0.90 <= frac <= 1.0, frac
    assert r.roofline.bound == "dram"
    assert_above_floor(r, cfg, dram_bytes=64 * chunks * chunk)


def test_dpe_only_stream_reaches_peak_macs(cfg):
    runs = {}
    for iters in (32, 64):
        r = Machine(cfg).run(dpe_loop(iters), grid=(64,))
        assert r.ops["dpe"] == 64 * iters * 2 * 256 * 256 * 32
        assert_above_floor(r, cfg, flops_by_dtype={"f16": r.ops["dpe"]})
        runs[iters] = r
    # the loop's rate, without the fills before it: the difference of two lengths
    flops = runs[64].ops["dpe"] - runs[32].ops["dpe"]
    frac = flops / (runs[64].seconds - runs[32].seconds) / cfg.dpe_peak_flops("f16")
    assert 0.95 <= frac <= 1.0, frac
    assert runs[64].utilization["dpe"] > 0.95


def test_int8_dpe_runs_at_twice_the_f16_rate(cfg):
    t = {}
    for dt in ("f16", "i8"):
        # timing only: the rate is what this checks (i8 matmuls in numpy are not BLAS: minutes of host time)
        r = Machine(cfg, numerics=False).run(dpe_loop(32, k=64 if dt == "i8" else 32, dtype=dt), grid=(64,))
        t[dt] = r.seconds
    # i8 does twice the MACs (K=64 fits the same 32-byte lane) in about the same time
    assert t["i8"] == pytest.approx(t["f16"], rel=0.05)


def test_two_pes_on_one_dram_channel_share_it(cfg):
    cfg = load_config("mtia-2i", {"dram.channel_hash": "linear"})
    stride = cfg.dram.channels * cfg.dram.interleave_bytes     # every row maps to channel 0
    bw = {}
    for npe in (1, 2):
        m = Machine(cfg)
        src = m.gmem.alloc(2 * 1024 * stride, "src")
        r = m.run(channel_stream(512, stride), grid=(npe,), args={"src": src})
        # the stream's rate: the run without the launch before it (launch.overhead_ns)
        bw[npe] = r.bytes["dram_read"] / npe / (r.seconds - cfg.launch.overhead_ns * 1e-9)
    channel = cfg.dram.bandwidth_gbps * 1e9 / cfg.dram.channels
    assert 0.9 * channel <= bw[1] <= channel          # one PE alone saturates the channel
    assert bw[2] == pytest.approx(channel / 2, rel=0.1)   # two PEs each get about half


def test_llc_serves_second_read_from_sram():
    cfg = load_config("mtia-small")
    m = Machine(cfg)
    src = m.gmem.alloc_array(np.arange(4 * 8192, dtype=np.float32), "src")
    first = m.run(dram_stream(1, 32768), grid=(4,), args={"src": src})
    second = m.run(dram_stream(1, 32768), grid=(4,), args={"src": src})    # the LLC stays warm
    assert first.bytes["dram_read"] == 4 * 32768 and first.llc["hits"] == 0
    assert second.bytes["dram_read"] == 0
    assert second.llc["hits"] == 4 * 32768 // cfg.sram.line_bytes
    assert second.cycles < first.cycles
