"""Checks every simulated run's energy passes (tests/conftest.py applies them to each Machine.run):
recomputed here from the report's own counts and the config's table, not from the energy module.

- every component is non-negative, and the components add up to the total;
- static energy is static power x simulated time (PEs, uncore, DRAM background);
- the memory components are the report's bytes times their energy per byte (DRAM's with ECC's check bits);
- the DPE's energy lies between its issued MACs at the cheapest and at the dearest dtype's energy;
- average power is joules / seconds, and the peak over a window is at least the average.
"""
from __future__ import annotations

import math


def _close(a: float, b: float, what: str, report) -> None:
    assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-18), f"{report.kernel}: {what}: {a!r} != {b!r}"


def assert_energy_consistent(report, cfg) -> None:
    en = report.energy
    assert en is not None, f"{report.kernel}: the report has no energy"
    e = cfg.energy
    comps = en.components
    assert all(v >= 0 for v in comps.values()), f"{report.kernel}: negative energy {comps}"
    _close(sum(comps.values()), en.joules, "components do not add up to the total", report)
    seconds = report.seconds
    _close(comps["static_pe"], cfg.num_pes * e.pe_static_w * seconds, "PE static energy", report)
    _close(comps["static_uncore"], e.uncore_static_w * seconds, "uncore static energy", report)
    _close(comps["static_dram"], e.dram_static_w * seconds, "DRAM background energy", report)
    b = report.bytes
    _close(comps["ls"], b["ls"] * e.ls_pj_per_byte * 1e-12, "local-store energy", report)
    _close(comps["sram"], b["sram"] * e.sram_pj_per_byte * 1e-12, "SRAM energy", report)
    ecc = 1 + cfg.dram.ecc_overhead if cfg.dram.ecc else 1.0
    dram = (b["dram_read"] * e.dram_read_pj_per_bit + b["dram_write"] * e.dram_write_pj_per_bit) * 8 * ecc * 1e-12
    _close(comps["dram"], dram, "DRAM energy", report)
    macs = report.dpe_issued / 2
    used = [e.dpe_pj_per_mac[dt] for dt in cfg.pe.dpe.macs_per_cycle]
    lo, hi = macs * min(used) * 1e-12, macs * max(used) * 1e-12
    assert lo * (1 - 1e-9) <= comps["dpe"] <= hi * (1 + 1e-9), f"{report.kernel}: DPE energy {comps['dpe']} " \
        f"outside [{lo}, {hi}] for {macs} MACs"
    if seconds:
        _close(en.watts, en.joules / seconds, "average power", report)
        assert en.peak_watts >= en.watts * (1 - 1e-9), f"{report.kernel}: peak {en.peak_watts} W below the average"
    assert en.above_tdp == (en.watts > e.tdp_w)
