"""A model run's energy: its kernels' joules summed, the same whether estimated or simulated."""
from __future__ import annotations

import copy

import pytest

import compiler.inductor as ci
from compiler.inductor.examples import make_mlp
from simulator.config import get_config


def test_model_energy_sums_its_kernels_and_estimate_agrees_with_simulate():
    model, inputs = make_mlp()
    _, simulated = ci.simulate(model, *inputs)
    report = ci.estimate(copy.deepcopy(model).to("meta"), *(x.to("meta") for x in inputs))
    drain = simulated.drain.get("energy", {})          # the dirty lines written back at the end (carried state)
    assert simulated.memory_state != "carried" or drain
    assert simulated.joules == pytest.approx(sum(k.report.energy.joules for k in simulated.kernels)
                                             + sum(drain.values()), rel=1e-12)
    assert report.joules == pytest.approx(simulated.joules, rel=1e-9)
    cfg = get_config()
    static_w = cfg.num_pes * cfg.energy.pe_static_w + cfg.energy.uncore_static_w + cfg.energy.dram_static_w
    assert report.joules > static_w * report.seconds              # static power plus the kernels' work
    assert report.watts == pytest.approx(report.joules / report.seconds)
    assert sum(report.energy_by_component().values()) == pytest.approx(report.joules, rel=1e-9)
    d = report.to_dict()
    assert d["joules"] == report.joules and d["kernels"][0]["joules"] == report.kernels[0].joules
    assert "energy" in report.table()
