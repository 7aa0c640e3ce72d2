"""An independent lower bound on a run's time, from its work and the config's published peaks:
the launch, then the longest of the DPE's, the SE's and DRAM's shares at full rate."""
from __future__ import annotations


def floor_seconds(report, cfg, flops_by_dtype: dict[str, float] | None = None, dram_bytes: float | None = None):
    hz = cfg.clock_ghz * 1e9
    pes = cfg.grid.rows * cfg.grid.cols
    if flops_by_dtype is None:
        # the DPE's MACs as issued (a masked tile's padding takes its time), in the dtype of the run's DPE roof
        # (the fastest mode's when another unit sets the compute roof: still a lower bound)
        roof = report.roofline.compute_roof
        dt = roof.split(":")[1] if roof.startswith("dpe:") else max(cfg.pe.dpe.macs_per_cycle,
                                                                    key=cfg.pe.dpe.macs_per_cycle.get)
        dpe = report.dpe_issued
        flops_by_dtype = {dt: dpe} if dpe else {}
    t_dpe = sum(f / (2 * cfg.pe.dpe.macs_per_cycle[dt] * pes * hz) for dt, f in flops_by_dtype.items())
    t_se = report.ops["se"] / (cfg.pe.se.elems_per_cycle * pes * hz)
    if dram_bytes is None:
        dram_bytes = report.bytes["dram_read"] + report.bytes["dram_write"]
    ecc = 1 + cfg.dram.ecc_overhead if cfg.dram.ecc else 1       # inline ECC moves check bytes too
    t_dram = dram_bytes * ecc / (cfg.dram.bandwidth_gbps * 1e9)
    # nothing works before the launch has reached the PEs
    return cfg.launch.overhead_ns * 1e-9 + max(t_dpe, t_se, t_dram)


def assert_above_floor(report, cfg, **kw) -> None:
    floor = floor_seconds(report, cfg, **kw)
    assert report.seconds >= floor * (1 - 1e-9), (
        f"{report.kernel} ran in {report.seconds:.3e} s, below its roofline floor {floor:.3e} s")
