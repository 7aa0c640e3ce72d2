"""The sensitivity table's arithmetic: scaling one energy figure moves the energy exactly as a run with
that figure changed in the config does (its counts and cycles do not move)."""
from __future__ import annotations

import pytest

from mtiasim.bench.energy_sensitivity import FIGURES, scaled_joules, table, write_into
from simulator import load_config
from simulator.examples.softmax import run_softmax
from simulator.machine import Machine


def _scaled(cfg, figure: str, factor: float):
    value = getattr(cfg.energy, figure)
    if isinstance(value, dict):
        return load_config(cfg, {f"energy.{figure}.{k}": v * factor for k, v in value.items()})
    return load_config(cfg, {f"energy.{figure}": value * factor})


@pytest.mark.parametrize("figure", [f for f, _ in FIGURES])
def test_scaled_figure_predicts_the_rerun(figure):
    cfg = load_config("mtia-small")
    base, _, _ = run_softmax(Machine(cfg, numerics=False), 32, 1024)
    rerun, _, _ = run_softmax(Machine(_scaled(cfg, figure, 2.0), numerics=False), 32, 1024)
    assert rerun.cycles == base.cycles
    assert scaled_joules(base, cfg, figure, 2.0) == pytest.approx(rerun.energy.joules, rel=1e-9)


def test_table_is_written_between_the_markers(tmp_path):
    cfg = load_config("mtia-small")
    r, _, _ = run_softmax(Machine(cfg, numerics=False), 32, 1024)
    text = table([("softmax", r, cfg)])
    assert text.count("\n") == len(FIGURES) + 2 and "`dram_read_pj_per_bit`" in text
    doc = tmp_path / "energy.md"
    doc.write_text("before\n<!-- sensitivity:begin -->\nold\n<!-- sensitivity:end -->\nafter\n")
    write_into(doc, text)
    assert doc.read_text() == f"before\n<!-- sensitivity:begin -->\n{text}\n<!-- sensitivity:end -->\nafter\n"
