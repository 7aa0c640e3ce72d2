"""Why a run is slow, in a line each: hints drawn from the run's own figures, each naming what to try.

    transfers    DMA transfers so small that each one's setup costs as much as its data
    dram rows    DRAM channels spending a share of their time opening rows (scattered accesses)
    programs     fewer programs than PEs: some PEs never work (unless they keep the DRAM busy without them)
    padding      the DPE computing mostly padding (tiles larger than the data they hold)

Only hints that apply are given, and only when the run is short of its roofline (a run at 90% of it
needs none). The thresholds are judgement calls, written next to each rule with the reason.
"""
from __future__ import annotations

MIN_SHORTFALL = 0.10          # a run within 10% of its roofline gets no hints: nothing large is left


def hints(cfg, fraction: float, programs: int, transfers: int, dma_bytes: float, dma_util: float,
          dram_use: dict, dpe_useful: float, dpe_issued: float, bound: str = "") -> list[str]:
    """The hints for one run (see the module docstring); `fraction` is its share of the roofline, `bound`
    the unit that sets it ("dram", "dpe", ...)."""
    if fraction >= 1 - MIN_SHORTFALL:
        return []
    out = []
    # a transfer's setup (descriptor decode, address generation) is paid per transfer; when the bytes it
    # moves take no longer than that at the DMA's rate, setup is half or more of the DMA's time
    setup = cfg.pe.dma.setup_cycles
    bytes_in_setup = setup * cfg.gbps_to_bpc(cfg.pe.dma.gbps)
    if transfers and dma_util >= 0.3:
        avg = dma_bytes / transfers
        if avg <= bytes_in_setup:
            out.append(f"DMA transfers average {avg:,.0f} B: each one's {setup}-cycle setup takes as long as moving "
                       f"{bytes_in_setup:,.0f} B, so setup, not data, keeps the DMA busy; move more per transfer "
                       f"(larger blocks, or several rows per program)")
    # row activations are channel time that moves no data: beyond ~5% accesses jump between DRAM rows
    activate = dram_use.get("activate", 0.0)
    if activate >= 0.05:
        out.append(f"DRAM row misses: opening rows takes {100 * activate:.0f}% of channel time; read longer "
                   f"contiguous runs per transfer (wider blocks along the contiguous axis, rows in order)")
    pes = cfg.num_pes
    # bound by DRAM, its channels moving data most of the run, and PEs enough to draw its bandwidth: more
    # programs would not help (MTIA 300's decode GEMV streams at 77% of 6.1 TB/s with 64 programs of 64
    # rows, and 72 programs of fewer rows are slower). A run whose channels mostly wait is latency-bound,
    # and more programs put more requests in flight
    drawn = bound == "dram" and dram_use.get("data", 0.0) >= 0.5 and \
        programs * cfg.pe.dma.gbps >= cfg.dram.bandwidth_gbps
    if 0 < programs < pes and not drawn:
        out.append(f"{programs} program(s) for {pes} PEs: {pes - programs} PEs never work; use smaller blocks "
                   f"so the grid has at least {pes} programs (or split a long axis, e.g. K, across programs)")
    # the DPE's issued MACs include the zero rows and columns of tiles the data does not fill
    if dpe_issued > 0 and dpe_useful < 0.5 * dpe_issued:
        out.append(f"the DPE's work is {100 * (1 - dpe_useful / dpe_issued):.0f}% padding: its tiles are larger "
                   f"than the data they hold (masked edges, or a dot narrower than the DPE's "
                   f"{cfg.pe.dpe.tile_n}-wide tile); choose blocks that divide the shape, at least {cfg.pe.dpe.tile_n} wide")
    return out
