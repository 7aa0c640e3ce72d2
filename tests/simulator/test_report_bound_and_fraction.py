"""A report names the unit that binds (dpe, se, re, vector, mlu, dram, sram or noc), and its "% of roof"
is one figure, floor / time, wherever it is shown: the report, its JSON and table row, the roofline
chart and `mtiasim roofline`'s table."""
import json

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from mtiasim.commands.roofline import points_table
from mtiasim.plots import roofline_chart
from simulator import use_config
from simulator.report import UNITS


@triton.jit
def polish(x_ptr, y_ptr, n, BLOCK: tl.constexpr, STEPS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    for _ in tl.static_range(STEPS):            # many SE operations per DRAM byte: the SE binds
        x = tl.sin(x) * 0.5 + x
    tl.store(y_ptr + offs, x, mask=m)


def _reference(x, steps):
    x = x.astype(np.float64)
    for _ in range(steps):
        x = np.sin(x) * 0.5 + x
    return x


@pytest.fixture(scope="module")
def se_bound():
    n = 4 * 4096
    x = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    y = np.full_like(x, np.nan)
    with use_config("mtia-small"):
        run = polish[(4,)](x, y, n, BLOCK=4096, STEPS=32)
    np.testing.assert_allclose(y, _reference(x, 32), rtol=1e-4, atol=1e-4)
    return run.report


def test_the_interpreter_computes_the_same(se_bound):
    n = 4 * 4096
    x = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    y = np.full_like(x, np.nan)
    polish[(4,)](x, y, n, BLOCK=4096, STEPS=32, executor="interpreter")
    np.testing.assert_allclose(y, _reference(x, 32), rtol=1e-4, atol=1e-4)


def test_the_bound_is_the_unit_with_the_longest_floor(se_bound):
    rf = se_bound.roofline
    assert set(rf.floors) == set(UNITS)
    assert rf.floors["se"] > rf.floors["dram"] > 0            # (so "compute" or "dpe" would mislead)
    assert rf.bound == "se" and rf.floor_seconds == rf.floors["se"]
    assert rf.compute_roof == "se"
    line = next(ln for ln in str(se_bound).splitlines() if ln.lstrip().startswith("roofline"))
    assert f"{100 * rf.fraction:.1f}% of roof, bound by se" in line, line
    assert json.loads(se_bound.to_json())["roofline"]["bound"] == "se"


def test_one_fraction_of_roof_in_the_report_the_chart_and_the_tables(se_bound):
    rf = se_bound.roofline
    assert rf.fraction == pytest.approx(rf.floor_seconds / se_bound.seconds)
    row = se_bound.row()
    assert row["roofline_fraction"] == rf.fraction and row["bound"] == "se"
    chart = roofline_chart([("polish", se_bound)])
    p = chart.points[0]
    assert p["fraction"] == rf.fraction and p["roof_y"] == pytest.approx(rf.attainable_flops)
    assert p["y"] / p["roof_y"] == pytest.approx(rf.fraction)       # the roof above the point is the floor's
    labels = [t.get_text() for t in chart.figure.axes[0].texts]
    assert any(f"{100 * rf.fraction:.0f}% of roof" in t for t in labels), labels
    table = points_table(chart.points)
    assert f"{100 * rf.fraction:.1f}" in table and table.rstrip().endswith(" se"), table


@triton.jit
def spin(x_ptr, y_ptr, STEPS: tl.constexpr):
    r = tl.arange(0, 64)
    offs = tl.program_id(0) * 4096 + r[:, None] * 64 + r[None, :]
    x = tl.load(x_ptr + offs)
    for _ in range(STEPS):                      # transposes: the MLU's work, no arithmetic at all
        x = tl.trans(x)
    tl.store(y_ptr + offs, x)


@pytest.mark.parametrize("executor", ["interpreter", "mtia"])
def test_a_run_of_transposes_is_bound_by_the_mlu(executor):
    x = np.random.default_rng(5).standard_normal(4 * 4096).astype(np.float32)
    y = np.full_like(x, np.nan)
    with use_config("mtia-small"):
        run = spin[(4,)](x, y, STEPS=65, executor=executor)
    np.testing.assert_array_equal(y, x.reshape(4, 64, 64).transpose(0, 2, 1).reshape(-1))
    if executor == "mtia":
        rf = run.report.roofline
        assert rf.floors["mlu"] > rf.floors["dram"] and rf.bound == "mlu"
        assert "bound by mlu" in str(run.report)
