"""HBM modelled as such (configs/mtia-300.yaml, simulator/chip/dram.py): 192 pseudo-channels, each its
own data bus of 6.1 TB/s / 192; addresses spread over a count that is not a power of two; one single-bank
refresh per bank each tREFI. A stream from every PE reaches a stated fraction of the HBM peak and never
passes it; LPDDR5 configs keep their mapping and refresh exactly."""
import numpy as np
import pytest

from simulator import load_config
from simulator.chip.dram import Dram
from simulator.examples.micro import channel_stream, dpe_loop, dram_stream
from simulator.machine import Machine

from floor import assert_above_floor

CHUNK = 32768


@pytest.fixture(scope="module")
def cfg():
    return load_config("mtia-300")


def test_consecutive_granules_fill_every_pseudo_channel_once(cfg):
    d = Dram(cfg)
    g = cfg.dram.interleave_bytes
    for first in (0, 192 * 1000):
        ch = d.channel_of(np.arange(first, first + 192) * g)
        assert sorted(ch) == list(range(192))


@pytest.mark.parametrize("stride", [4096, 8192, 1 << 16, 1 << 20])
def test_power_of_two_strides_reach_every_pseudo_channel(cfg, stride):
    # a GEMM's K slab or a tensor's rows: the odd factor (3) takes a power-of-two stride through all
    # residues, the XOR fold spreads it over the 64
    ch = Dram(cfg).channel_of(np.arange(192) * stride)
    assert np.bincount(ch, minlength=192).max() == 1


def test_lpddr5_mapping_is_unchanged():
    """The XOR fold as it was before HBM (16 channels), and the linear fall-back of an LPDDR5 count that is
    not a power of two: the same channel for every address."""
    rng = np.random.default_rng(0)
    addrs = rng.integers(0, 1 << 36, 4096)
    d = Dram(load_config("mtia-2i"))
    g = addrs // 256
    h = g.copy()
    for i in range(1, -(-int(g.max()).bit_length() // 4)):
        h ^= g >> (i * 4)
    np.testing.assert_array_equal(d.channel_of(addrs), h & 15)
    d18 = Dram(load_config("mtia-2i", {"dram.channels": 18}))
    np.testing.assert_array_equal(d18.channel_of(addrs), g % 18)


def test_one_single_bank_refresh_per_bank_each_interval(cfg):
    hbm, lp = Dram(cfg), Dram(load_config("mtia-2i"))
    assert hbm.period == pytest.approx(cfg.ns_to_cycles(3900) / 48)          # REFSB: one bank each
    two_i = load_config("mtia-2i")
    assert lp.period == pytest.approx(two_i.ns_to_cycles(3906) / 8)          # LPDDR5 REFpb: bank pairs


def test_stream_from_every_pe_reaches_hbm_bandwidth_and_no_more(cfg):
    m = Machine(cfg, numerics=False)
    n = cfg.num_pes * 16 * CHUNK
    r = m.run(dram_stream(16, CHUNK), grid=(cfg.num_pes,), args={"src": m.gmem.alloc(n, "src")})
    assert r.bytes["dram_read"] == n                                   # every byte from HBM once
    peak = cfg.dram.bandwidth_gbps * 1e9
    stream = n / (r.seconds - cfg.launch.overhead_ns * 1e-9)           # the launch taken out
    assert 0.92 <= stream / peak <= 1.0, stream / peak
    assert n / r.seconds <= peak
    assert r.roofline.bound == "dram"
    # what it loses is mostly the single-bank refreshes: 48 x 2 ns each 3.9 us
    refresh = cfg.dram.per_bank_refreshes * cfg.dram.refresh_per_bank_ns / cfg.dram.refresh_interval_ns
    assert r.dram["refresh"] == pytest.approx(refresh * sum(r.dram.values()), rel=0.15)
    assert_above_floor(r, cfg, dram_bytes=n)


def test_one_pseudo_channel_serves_one_192th_of_the_hbm():
    cfg = load_config("mtia-300", {"dram.channel_hash": "linear"})
    stride = cfg.dram.channels * cfg.dram.interleave_bytes         # every row on pseudo-channel 0
    m = Machine(cfg, numerics=False)
    src = m.gmem.alloc(2 * 1024 * stride, "src")
    r = m.run(channel_stream(512, stride), grid=(1,), args={"src": src})
    rate = r.bytes["dram_read"] / (r.seconds - cfg.launch.overhead_ns * 1e-9)
    pc = cfg.dram.bandwidth_gbps * 1e9 / cfg.dram.channels        # 31.8 GB/s
    assert 0.85 * pc <= rate <= pc, rate / pc


def test_fp8_runs_at_twice_the_bf16_rate(cfg):
    t = {}
    for dt, k in (("bf16", 32), ("f8e4m3", 64)):       # one 64-byte K lane each
        r = Machine(cfg).run(dpe_loop(16, k=k, dtype=dt), grid=(cfg.num_pes,))
        assert r.ops["dpe"] == cfg.num_pes * 16 * 2 * 256 * 256 * k
        t[dt] = r.seconds
    assert t["f8e4m3"] == pytest.approx(t["bf16"], rel=0.05)     # twice the MACs in the same time
