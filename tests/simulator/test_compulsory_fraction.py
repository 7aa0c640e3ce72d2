"""The fraction of the roofline is measured against the floor of the run's own traffic, so a kernel
that moves more bytes than it must still scores well; the fraction of the compulsory floor (the bytes
each argument must move once, the useful work at peak) stands beside it wherever a fraction is shown:
the report, its table row, sweep tables and the roofline chart."""
import pytest

from mtiasim.commands.sweep import sweep_table
from mtiasim.plots import roofline_chart
from mtiasim.sweep import run_sweep
from simulator import load_config
from simulator.examples.micro import dram_stream
from simulator.machine import Machine

CHUNK = 32768


@pytest.fixture(scope="module")
def twice():
    """Two PEs read the same slice, with no LLC to share it: twice the DRAM bytes the kernel needs."""
    m = Machine(load_config("mtia-small", {"sram.llc_mib": 0}), numerics=False)
    src = m.gmem.alloc(16 * CHUNK, "src")
    return m.run(dram_stream(16, CHUNK, share=2), grid=(2,), args={"src": src})


def test_a_run_that_moves_twice_its_bytes_reaches_half_its_compulsory_floor(twice):
    c, rf = twice.compulsory, twice.roofline
    assert c.dram_ratio == pytest.approx(2.0)
    assert c.fraction == pytest.approx(c.floor_seconds / twice.seconds)
    assert rf.bound == "dram" and c.fraction == pytest.approx(rf.fraction / 2, rel=1e-6)
    assert f"{100 * c.fraction:.1f}% of the compulsory floor" in str(twice)
    row = twice.row()
    assert row["compulsory_fraction"] == c.fraction and row["roofline_fraction"] == rf.fraction


def test_the_chart_labels_each_point_with_both_fractions(twice):
    # (a stream does no FLOPs: the chart lists it unplotted; the fractions are still its report's)
    chart = roofline_chart([("stream", twice)])
    p = chart.points[0]
    assert p["fraction"] == twice.roofline.fraction and p["compulsory_fraction"] == twice.compulsory.fraction


def test_a_sweep_table_shows_the_compulsory_fraction_beside_the_roofline_fraction(tmp_path):
    spec = {"name": "two-links", "base": "mtia-small", "grid": {"sram.llc_mib": [0, 32]},
            "workloads": [{"name": "softmax_isa", "shape": [32, 64]}], "numerics": False}
    res = run_sweep(spec, tmp_path / "r.csv", workers=1, progress=False)
    assert not [r for r in res.rows if r["error"]]
    for r in res.rows:
        assert 0 < r["compulsory_fraction"] <= 1 and r["compulsory_fraction"] == pytest.approx(
            r["compulsory_floor_seconds"] / r["seconds"])
    table = sweep_table(res).splitlines()
    head = table[0].split()
    assert "% of roof" in table[0] and "% of compulsory" in table[0], table[0]
    assert head.index("compulsory") > head.index("roof"), table[0]
    for r in res.rows:
        assert any(f"{100 * r['compulsory_fraction']:.1f}" in ln for ln in table[2:]), table


def test_a_plotted_point_is_labelled_with_both_fractions():
    from mtiasim.workloads import get_workload
    rep = get_workload("softmax_isa")("mtia-small", (32, 64), False)
    chart = roofline_chart([("softmax", rep)])
    labels = [t.get_text() for t in chart.figure.axes[0].texts]
    want = f"{100 * rep.roofline.fraction:.0f}% of roof, {100 * rep.compulsory.fraction:.0f}% of compulsory"
    assert any(want in t for t in labels), labels


def test_an_argument_read_in_part_counts_only_the_lines_it_touched():
    """A kernel that reads a quarter of a buffer (as a gather reads the rows its indices name) must move
    that quarter, not the buffer: counting the whole size made such kernels beat their "floor"."""
    m = Machine(load_config("mtia-small", {"sram.llc_mib": 0}), numerics=False)
    src = m.gmem.alloc(4 * 16 * CHUNK, "src")                    # four times what the kernel reads
    r = m.run(dram_stream(16, CHUNK), grid=(1,), args={"src": src})
    c = r.compulsory
    assert c.argument_bytes == 4 * 16 * CHUNK
    assert c.sram_bytes == c.dram_bytes == 16 * CHUNK
    assert c.dram_ratio == pytest.approx(1.0)
    assert c.fraction <= 1.0
    assert "it touched, of 2.1 MB in all" in str(r)


def test_an_embedding_bag_never_beats_its_compulsory_floor():
    from mtiasim.workloads import get_workload
    r = get_workload("embedding_bag")(load_config("mtia-2i"), None, numerics=False)
    c = r.compulsory
    assert c.argument_bytes > 5 * c.sram_bytes                   # it reads a few rows of a large table
    assert c.fraction <= 1.0 and c.dram_ratio >= 0.99
