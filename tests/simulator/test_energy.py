"""A run's energy: counted from the same events as its cycles, so it follows what the run did.

Every run of the suite also passes tests/energy_check.py (components add up, static energy is static
power x time, memory energy is bytes x energy per byte); these tests check that the figures move the
way the work does, and that the report says what a reader needs (JSON, row, text, the TDP flag).
"""
import json

import numpy as np
import pytest

from simulator import load_config
from simulator.errors import ConfigError
from simulator.examples.gemm import run_gemm
from simulator.examples.micro import dpe_loop, dram_stream
from simulator.examples.softmax import run_softmax
from simulator.machine import Machine


@pytest.fixture(scope="module")
def small():
    return load_config("mtia-small")


def test_timing_only_counts_the_same_energy(small):
    with_numerics, out, ref = run_gemm(Machine(small), 128, 128, 128, BM=64, BN=64, BK=32)
    np.testing.assert_allclose(out, ref, rtol=2e-2, atol=2e-2)
    timing_only, _, _ = run_gemm(Machine(small, numerics=False), 128, 128, 128, BM=64, BN=64, BK=32)
    assert timing_only.cycles == with_numerics.cycles
    assert timing_only.energy.components == with_numerics.energy.components


def test_dpe_energy_is_issued_macs_times_energy_per_mac(small):
    r = Machine(small).run(dpe_loop(8), grid=(4,))
    macs = 4 * 8 * 256 * 256 * 32
    assert r.energy.components["dpe"] == pytest.approx(macs * small.energy.dpe_pj_per_mac["f16"] * 1e-12, rel=1e-12)
    # an i8 loop does twice the MACs per command, each at the i8 energy
    r8 = Machine(small).run(dpe_loop(8, k=64, dtype="i8"), grid=(4,))
    assert r8.energy.components["dpe"] == pytest.approx(2 * macs * small.energy.dpe_pj_per_mac["i8"] * 1e-12, rel=1e-12)


def test_energy_per_action_scales_only_its_component(small):
    def stream(cfg):
        m = Machine(cfg)
        return m.run(dram_stream(4, 8192), grid=(4,), args={"src": m.gmem.alloc(4 * 4 * 8192, "src")})
    base = stream(small)
    r = stream(load_config(small, {"energy.dram_read_pj_per_bit": 2 * small.energy.dram_read_pj_per_bit}))
    assert r.cycles == base.cycles
    assert r.energy.components["dram"] == pytest.approx(2 * base.energy.components["dram"], rel=1e-12)
    for k, v in base.energy.components.items():
        if k != "dram":
            assert r.energy.components[k] == pytest.approx(v, rel=1e-12), k


def test_dram_energy_counts_bits_activates_and_refresh(small):
    m = Machine(small)
    src = m.gmem.alloc(4 * 8 * 8192, "src")
    r = m.run(dram_stream(8, 8192), grid=(4,), args={"src": src})
    e, c = small.energy, r.energy.components
    assert c["dram"] == pytest.approx(r.bytes["dram_read"] * 8 * e.dram_read_pj_per_bit * 1e-12, rel=1e-12)
    # a stream opens each 2 KB page once per channel it maps to: at least its bytes / page, at most one per line
    acts = c["dram_activate"] / (e.dram_activate_pj * 1e-12)
    assert r.bytes["dram_read"] / small.dram.page_bytes <= round(acts) <= r.bytes["dram_read"] / small.sram.line_bytes
    intervals = r.seconds / (small.dram.refresh_interval_ns * 1e-9)
    assert c["dram_refresh"] == pytest.approx(small.dram.channels * intervals * e.dram_refresh_pj * 1e-12, rel=1e-9)


def test_ecc_costs_energy_as_well_as_time():
    runs = {}
    for name in ("mtia-2i", "mtia-2i-ecc"):
        cfg = load_config(name, {"grid.rows": 2, "grid.cols": 2, "dram.channels": 2, "dram.bandwidth_gbps": 12.8})
        m = Machine(cfg)
        src = m.gmem.alloc(4 * 16 * 8192, "src")
        runs[name] = m.run(dram_stream(16, 8192), grid=(4,), args={"src": src})
    plain, ecc = runs["mtia-2i"], runs["mtia-2i-ecc"]
    assert ecc.bytes == plain.bytes
    assert ecc.seconds > plain.seconds
    assert ecc.energy.components["dram"] == pytest.approx(1.125 * plain.energy.components["dram"], rel=1e-12)
    assert ecc.energy.components["static_pe"] > plain.energy.components["static_pe"]     # it runs longer
    assert ecc.energy.joules > plain.energy.joules


def test_memory_bound_run_draws_less_than_compute_bound_and_shows_dram(small):
    gemm = Machine(small).run(dpe_loop(64), grid=(4,))
    soft, out, ref = run_softmax(Machine(small), 64, 2048)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-7)
    assert soft.energy.watts < gemm.energy.watts
    assert soft.energy.dram_share > 0.2 > gemm.energy.dram_share
    assert "DRAM" in str(soft) and "GB/s per W" in str(soft)


def test_an_idle_run_draws_about_static_power(small):
    r = Machine(small).run(dpe_loop(1, m=32, n=32), grid=(1,))
    en = r.energy
    assert en.static_watts <= en.watts < 1.05 * en.static_watts
    static = sum(en.components[k] for k in ("static_pe", "static_uncore", "static_dram"))
    assert static == pytest.approx(en.static_watts * r.seconds, rel=1e-12)


def test_peak_window_power_is_at_least_the_average_and_is_stated(small):
    r = Machine(small).run(dpe_loop(64), grid=(4,))
    en = r.energy
    assert en.peak_watts >= en.watts
    assert en.peak_window_us == small.energy.peak_window_us
    assert f"over {en.peak_window_us:.3g} us" in str(r)


def test_average_above_tdp_is_flagged(small):
    hot = load_config(small, {"energy.tdp_w": 1.0})
    r = Machine(hot).run(dpe_loop(16), grid=(4,))
    assert r.energy.above_tdp and r.row()["above_tdp"]
    assert "ABOVE TDP" in str(r) and "throttle" in str(r)
    cool = Machine(small).run(dpe_loop(16), grid=(4,))
    assert not cool.energy.above_tdp and "ABOVE TDP" not in str(cool)


def test_energy_in_json_and_row(small):
    r = Machine(small).run(dpe_loop(4), grid=(4,))
    d = json.loads(r.to_json())["energy"]
    assert {"joules", "watts", "peak_watts", "components"} <= set(d)
    assert sum(float(v) for v in d["components"].values()) == pytest.approx(float(d["joules"]), rel=1e-9)
    row = r.row()
    assert row["joules"] == r.energy.joules and row["watts"] == r.energy.watts
    assert row["tflops_per_watt"] == pytest.approx(r.roofline.flops / r.energy.joules / 1e12)
    assert row["joules_dpe"] == r.energy.components["dpe"]


def test_combined_launches_add_their_energy(small):
    from simulator.report import combine
    a = Machine(small).run(dpe_loop(4), grid=(4,))
    b = Machine(small).run(dpe_loop(8), grid=(4,))
    both = combine([a, b], "both")
    assert both.energy.joules == pytest.approx(a.energy.joules + b.energy.joules, rel=1e-12)
    assert both.energy.watts == pytest.approx(both.energy.joules / both.seconds, rel=1e-12)
    assert both.energy.peak_watts == max(a.energy.peak_watts, b.energy.peak_watts)


def test_every_config_has_an_energy_for_each_dtype_it_runs():
    with pytest.raises(ConfigError, match="energy.dpe_pj_per_mac.*missing f16"):
        cfg = load_config("mtia-2i")
        data = cfg.model_dump()
        del data["energy"]["dpe_pj_per_mac"]["f16"]
        from simulator.config import config_from_dict
        config_from_dict(data)
    with pytest.raises(ConfigError, match="energy.se_pj_per_op"):
        load_config("mtia-2i", {"energy.se_pj_per_op": -1.0})


def test_trace_has_power_counters_that_integrate_to_the_energy(small):
    from simulator.trace import Tracer
    tracer = Tracer()
    m = Machine(small, trace=tracer)
    r = m.run(dpe_loop(64), grid=(4,))
    events = tracer.to_dict()["traceEvents"]
    chip = [e for e in events if e["ph"] == "C" and e["name"] == "power (W), whole chip"]
    assert len(chip) == m.power_timeline.n >= 2
    width_s = small.energy.peak_window_us * 1e-6
    ends = [e["ts"] * 1e-6 for e in chip[1:]] + [r.seconds]
    joules = sum(e["args"]["W"] * (end - e["ts"] * 1e-6) for e, end in zip(chip, ends))
    assert joules == pytest.approx(r.energy.joules, rel=1e-6)
    assert max(e["args"]["W"] for e in chip) == pytest.approx(r.energy.peak_watts)
    assert chip[0]["ts"] == 0 and chip[1]["ts"] == pytest.approx(width_s * 1e6)
    per_pe = [e for e in events if e["ph"] == "C" and e["name"] == "power (W)"]
    assert {e["pid"] for e in per_pe} == {1, 2, 3, 4}
    # a PE draws its static power at least, and the DPE's while its loop runs
    assert min(e["args"]["W"] for e in per_pe) >= small.energy.pe_static_w * (1 - 1e-9)
    assert max(e["args"]["W"] for e in per_pe) > 2 * small.energy.pe_static_w
