"""The memory system as the chip has it, one microbenchmark (in ISA) per effect: DRAM refresh,
turnaround and ECC; the write-back LLC and the dead-tensor hint; a second reader waiting for a fill;
NoC links shared by PEs; broadcast reads; prefetch; the shared local-store port; the launch."""
import numpy as np
import pytest

from isa import Program
from simulator import load_config
from simulator.errors import DeadlockError, ProgramError, SanitizerError
from simulator.examples.micro import dpe_loop, dram_copy, dram_stream
from simulator.machine import Machine

from floor import assert_above_floor

CHUNK = 32768


def _rate(r, nbytes, cfg) -> float:
    """Bytes per second of a stream, the launch before it taken out."""
    return nbytes / (r.seconds - cfg.launch.overhead_ns * 1e-9)


def test_mixed_read_write_stream_is_below_peak_and_says_why():
    cfg = load_config("mtia-2i", {"sram.llc_policy": "write_through"})      # every store goes to DRAM
    m = Machine(cfg, numerics=False)
    n = 64 * 8 * CHUNK
    src, dst = m.gmem.alloc(n, "src"), m.gmem.alloc(n, "dst")
    r = m.run(dram_copy(8, CHUNK), grid=(64,), args={"src": src, "dst": dst})
    assert r.bytes["dram_read"] == n and r.bytes["dram_write"] == n
    frac = 2 * n / r.seconds / (cfg.dram.bandwidth_gbps * 1e9)
    assert 0.80 < frac < 0.95, frac
    # why: the channels lose a read/write turnaround per write batch (less when a batch drains with
    # no read waiting) and their refresh windows
    d = cfg.dram
    turn = (d.read_to_write_ns + d.write_to_read_ns) * cfg.clock_ghz * n / d.write_batch_bytes
    assert 0.8 * turn < r.dram["turnaround"] * r.cycles * d.channels <= turn * (1 + 1e-9)
    refresh = d.refresh_per_bank_ns / (d.refresh_interval_ns / (d.banks // 2))
    assert r.dram["refresh"] == pytest.approx(refresh * sum(r.dram.values()), rel=0.1)
    assert "turnaround" in str(r) and "refresh" in str(r)
    # a read-only stream turns nothing around
    s = Machine(cfg, numerics=False)
    r2 = s.run(dram_stream(8, CHUNK), grid=(64,), args={"src": s.gmem.alloc(n, "src")})
    assert r2.dram["turnaround"] == 0 and r2.dram["data"] > r.dram["data"]


def test_ecc_costs_its_check_bytes():
    t = {}
    for ecc in (False, True):
        cfg = load_config("mtia-2i", {"dram.ecc": ecc})
        m = Machine(cfg, numerics=False)
        r = m.run(dram_stream(16, CHUNK), grid=(64,), args={"src": m.gmem.alloc(64 * 16 * CHUNK, "src")})
        t[ecc] = r.seconds - cfg.launch.overhead_ns * 1e-9
        assert (r.dram["ecc"] > 0) == ecc
    assert t[True] / t[False] == pytest.approx(1 + cfg.dram.ecc_overhead, rel=0.02)     # 11% of throughput


def test_all_bank_refresh_stops_the_channel_for_trfc():
    cfg = load_config("mtia-2i", {"dram.refresh": "all_bank"})
    m = Machine(cfg, numerics=False)
    r = m.run(dram_stream(16, CHUNK), grid=(64,), args={"src": m.gmem.alloc(64 * 16 * CHUNK, "src")})
    lost = cfg.dram.refresh_all_bank_ns / cfg.dram.refresh_interval_ns                    # 7.2%
    assert r.dram["refresh"] / (r.dram["data"] + r.dram["refresh"]) == pytest.approx(lost, rel=0.05)


def test_write_back_llc_keeps_a_small_output_on_chip():
    n = 64 * 2 * CHUNK                                      # 4 MiB: far less than the 128 MiB LLC
    runs = {}
    for policy in ("write_back", "write_through"):
        m = Machine(load_config("mtia-2i", {"sram.llc_policy": policy}))
        x = np.random.default_rng(0).standard_normal(n // 4).astype(np.float32)
        src, dst = m.gmem.alloc_array(x, "src"), m.gmem.alloc_array(np.full_like(x, np.nan), "dst")
        runs[policy] = m.run(dram_copy(2, CHUNK), grid=(64,), args={"src": src, "dst": dst})
        np.testing.assert_array_equal(dst.data.view(np.float32)[: x.size], x)
    wb, wt = runs["write_back"], runs["write_through"]
    assert wb.bytes["dram_write"] == 0 and wb.llc["dirty_bytes"] == n
    assert wt.bytes["dram_write"] == n and wt.llc["dirty_bytes"] == 0
    assert wb.cycles < wt.cycles
    # the LLC may keep the output: the floor counts only the input, which the run read once
    assert wb.compulsory.dram_bytes == n and wb.compulsory.dram_ratio == pytest.approx(1.0)
    assert wt.compulsory.dram_bytes == 2 * n and wt.compulsory.dram_ratio == pytest.approx(1.0)


def test_dirty_lines_are_written_back_when_evicted_unless_dead():
    cfg = load_config("mtia-small", {"sram.unit_mib": 1, "sram.llc_mib": 1})
    n = 4 * 4 * CHUNK                                       # 512 KiB of output
    writes = {}
    for dead in (False, True):
        m = Machine(cfg)
        src, dst = m.gmem.alloc(n, "src"), m.gmem.alloc(n, "dst")
        first = m.run(dram_copy(4, CHUNK, dead=dead), grid=(4,), args={"src": src, "dst": dst})
        assert first.llc["discarded"] == (n // cfg.sram.line_bytes if dead else 0)
        other = m.gmem.alloc(4 * 16 * CHUNK, "other")           # 2 MiB: evicts the whole 1 MiB LLC
        writes[dead] = m.run(dram_stream(16, CHUNK), grid=(4,), args={"src": other}).bytes["dram_write"]
        if dead:                                                # a dead tensor's bytes are undefined
            assert (dst.data == 0xFF).all()
    assert writes[False] == n and writes[True] == 0


def test_a_second_reader_waits_for_the_line_being_filled():
    cfg = load_config("mtia-2i")
    m = Machine(cfg)
    line = m.gmem.alloc(cfg.sram.line_bytes, "line")
    prog = dram_stream(1, cfg.sram.line_bytes, share=2)      # PEs 0 and 1 read the same line at once
    cold = m.run(prog, grid=(2,), args={"src": line})
    assert (cold.llc["misses"], cold.llc["hits"], cold.llc["fill_waits"]) == (1, 1, 1)
    dma = [p["dma"] * cold.cycles for p in cold.per_pe[:2]]
    assert min(dma) > cfg.dram_latency_cycles                   # both wait for DRAM, the hit too
    assert dma[1] == pytest.approx(dma[0], rel=0.05)
    warm = m.run(prog, grid=(2,), args={"src": line})           # now the line is in the LLC
    assert (warm.llc["hits"], warm.llc["fill_waits"]) == (2, 0)
    assert max(p["dma"] * warm.cycles for p in warm.per_pe[:2]) < cfg.dram_latency_cycles


def _sram_stream_rate(cfg, grid, every):
    m = Machine(cfg, numerics=False)
    src = m.gmem.alloc(grid * 8 * CHUNK, "src", "sram")
    r = m.run(dram_stream(8, CHUNK, every=every), grid=(grid,), args={"src": src})
    streams = len(range(0, grid, every))
    return _rate(r, streams * 8 * CHUNK, cfg) / streams


def test_pe_pairs_on_one_noc_link_share_it():
    cfg = load_config("mtia-2i")
    port, link = cfg.pe.dma.gbps * 1e9, cfg.noc.link_gbps * 1e9
    one_pair = _sram_stream_rate(cfg, 2, 1)           # PEs 0, 1: the link into the west crossbar fits both
    two_pairs = _sram_stream_rate(cfg, 4, 1)          # PEs 0-3: the two pairs share that one link
    apart = _sram_stream_rate(cfg, 25, 8)             # PEs 0, 8, 16, 24: one per row, a link each
    assert one_pair == pytest.approx(port, rel=0.05) and apart == pytest.approx(port, rel=0.05)
    assert two_pairs == pytest.approx(link / 4, rel=0.05)
    wide = _sram_stream_rate(load_config("mtia-2i", {"noc.link_gbps": 2 * cfg.noc.link_gbps}), 4, 1)
    assert wide == pytest.approx(port, rel=0.05)      # a link wide enough: no contention


def test_a_broadcast_read_moves_the_shared_bytes_once():
    cfg = load_config("mtia-2i")
    runs = {}
    for bcast in (0, 4):
        m = Machine(cfg)
        x = np.random.default_rng(1).standard_normal(8 * CHUNK // 4).astype(np.float32)
        src = m.gmem.alloc_array(x, "w", "sram")
        runs[bcast] = m.run(dram_stream(8, CHUNK, share=4, bcast=bcast), grid=(4,), args={"src": src})
    alone, shared = runs[0], runs[4]
    assert alone.bytes["sram"] == 4 * 8 * CHUNK and shared.bytes["sram"] == 8 * CHUNK
    # four copies share the link into the crossbar; one broadcast copy has it alone
    assert _rate(shared, 8 * CHUNK, cfg) == pytest.approx(cfg.pe.dma.gbps * 1e9, rel=0.05)
    assert _rate(alone, 8 * CHUNK, cfg) == pytest.approx(cfg.noc.link_gbps * 1e9 / 4, rel=0.05)
    assert shared.compulsory.sram_ratio == pytest.approx(1.0) and alone.compulsory.sram_ratio == pytest.approx(4.0)


def test_a_broadcast_down_a_grid_column_reads_the_sram_once_and_each_row_link_carries_a_copy():
    """PEs c and c + 8 (rows 0 and 1 of column c) read slice c: a group of 2 down each column. Each
    row's link into its crossbar carries its own copy, so the rate per PE is what it is without the
    broadcast; the SRAM serves each chunk once."""
    cfg = load_config("mtia-2i")
    runs = {}
    for bcast in (0, 2):
        m = Machine(cfg)
        x = np.random.default_rng(2).standard_normal(8 * 4 * CHUNK // 4).astype(np.float32)
        src = m.gmem.alloc_array(x, "w", "sram")
        runs[bcast] = m.run(dram_stream(4, CHUNK, bcast=bcast, columns=cfg.grid.cols), grid=(16,), args={"src": src})
    alone, shared = runs[0], runs[2]
    assert alone.bytes["sram"] == 16 * 4 * CHUNK and shared.bytes["sram"] == 8 * 4 * CHUNK
    assert shared.bytes["sram"] == shared.compulsory.sram_bytes
    assert _rate(shared, 4 * CHUNK, cfg) == pytest.approx(_rate(alone, 4 * CHUNK, cfg), rel=0.02)


def test_broadcast_members_must_read_the_same_bytes_and_all_issue():
    cfg = load_config("mtia-small")

    def run(prog, grid):
        m = Machine(cfg)
        return m.run(prog, grid=(grid,), args={"src": m.gmem.alloc(4 * CHUNK, "w", "sram")})
    with pytest.raises(SanitizerError, match=r"broadcast read #0 of PEs 0\.\.1 \(bcast=2\).*same bytes"):
        run(dram_stream(1, CHUNK, bcast=2), 2)                   # each reads its own slice
    with pytest.raises(DeadlockError, match=r"broadcast read #0 of PEs 0\.\.1 \(bcast=2\) waits for PE\(s\) 1"):
        run(dram_stream(1, CHUNK, share=2, bcast=2), 1)          # PE 1 has no program
    with pytest.raises(ProgramError, match=r"bcast=3: .*divide the 2 columns"):
        run(dram_stream(1, CHUNK, share=3, bcast=3), 3)
    # down a column of the 2x2 grid: PEs 0 and 2 read slice 0, PEs 1 and 3 slice 1
    with pytest.raises(DeadlockError, match=r"broadcast read #0 of PEs 1, 3 \(bcast=2, bcast_col=1\) waits for PE\(s\) 3"):
        run(dram_stream(1, CHUNK, bcast=2, columns=2), 3)      # PE 3 has no program
    with pytest.raises(ProgramError, match=r"bcast=4, bcast_col=1: .*grid column.*divide the 2 rows"):
        run(dram_stream(1, CHUNK, bcast=4, columns=2), 4)


def test_dma_in_with_prefetch_brings_the_next_chunk_into_the_llc():
    cfg = load_config("mtia-small")
    m = Machine(cfg, numerics=False)
    n = 4 * 16 * CHUNK
    src = m.gmem.alloc(n, "src")
    prog = Program.from_asm(dram_stream(16, CHUNK).to_asm().replace("[1]\n", f"[1], prefetch={2 * CHUNK}\n"))
    r = m.run(prog, grid=(4,), args={"src": src})
    lines = CHUNK // cfg.sram.line_bytes
    # every chunk but the first two of each PE was prefetched, and its demand read found it there
    assert r.llc["prefetched"] == 4 * 14 * lines and r.llc["hits"] == 4 * 14 * lines
    assert r.bytes["dram_read"] == n                    # prefetched lines past the array are dropped
    # where few reads are in flight, prefetch hides the DRAM latency: one PE, one transfer at a time
    one = load_config("mtia-2i", {"pe.dma.max_outstanding": 1})
    t = {}
    for name, p in (("plain", dram_stream(16, 4096)),
                    ("prefetch", Program.from_asm(dram_stream(16, 4096).to_asm().replace("[1]\n", "[1], prefetch=8192\n")))):
        m = Machine(one, numerics=False)
        t[name] = m.run(p, grid=(1,), args={"src": m.gmem.alloc(16 * 4096, "src")}).cycles
    assert t["prefetch"] < 0.8 * t["plain"]


def test_one_local_store_port_for_the_engines_and_the_dma():
    cfg = load_config("mtia-small")
    r = Machine(cfg).run(dpe_loop(8, 256, 256, 32), grid=(1,))
    # per matmul: a once, b once per 32 rows of a, the accumulator read and written; plus the fills
    a, b, acc = 256 * 32 * 2, 32 * 256 * 2, 256 * 256 * 4
    assert r.bytes["ls"] == 8 * (a + b * 256 // cfg.pe.dpe.tile_m + 2 * acc) + a + b + acc
    # a port a quarter as wide makes the DPE wait for it
    slow = Machine(load_config("mtia-small", {"pe.local_store_gbps": 250})).run(dpe_loop(8, 256, 256, 32), grid=(1,))
    assert slow.stalls["dpe"]["ls port"] > 0.2 and slow.cycles > 1.2 * r.cycles


def test_a_launch_costs_its_overhead():
    cfg = load_config("mtia-small")
    r = Machine(cfg).run(Program.from_asm(".kernel empty\n    halt\n"), grid=(4,))
    assert r.cycles == pytest.approx(cfg.launch_cycles + cfg.pe.scalar.cpi, abs=2)
    assert_above_floor(r, cfg)


def test_the_compulsory_floor_names_traffic_a_kernel_wastes():
    cfg = load_config("mtia-2i", {"sram.llc_mib": 0})                  # no LLC to hide a second read
    m = Machine(cfg, numerics=False)
    src = m.gmem.alloc(16 * CHUNK, "src")
    twice = m.run(dram_stream(16, CHUNK, share=2), grid=(2,), args={"src": src})       # two PEs, one slice
    assert twice.compulsory.dram_bytes == 16 * CHUNK and twice.compulsory.dram_ratio == pytest.approx(2.0)
    assert twice.compulsory.floors["dram"] == pytest.approx(16 * CHUNK / (cfg.dram.bandwidth_gbps * 1e9))
    assert "moved 2.00x those bytes from DRAM" in str(twice)
    once = m.run(dram_stream(16, CHUNK, share=2, bcast=2), grid=(2,), args={"src": src})
    assert once.compulsory.dram_ratio == pytest.approx(1.0)
