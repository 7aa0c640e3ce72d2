"""Roofline and utilisation charts put each run where its report says, under its config's roofs."""
import math

import pytest
from matplotlib.colors import to_hex

from mtiasim.plots import config_roofs, pe_heatmap, roof_at, roofline_chart, save_figure, utilization_chart
from mtiasim.workloads import get_workload
from simulator import load_config


@pytest.fixture(scope="module")
def cfg():
    return load_config("mtia-2i")


@pytest.fixture(scope="module")
def runs(cfg):
    gemm = get_workload("gemm")(cfg, (2048, 2048, 2048), numerics=False)
    softmax = get_workload("softmax")(cfg, (4096, 1024), numerics=False)
    return {"gemm": gemm, "softmax": softmax}


def test_gemm_sits_at_the_compute_roof_and_softmax_on_the_dram_slope(cfg, runs):
    chart = roofline_chart(list(runs.items()), configs=[cfg])
    pts = {p["label"]: p for p in chart.points}
    roofs = config_roofs(cfg)
    dpe = next(r for r in roofs if r["name"].startswith("DPE f16"))
    dram = next(r for r in roofs if r["engine"] == "dram")["value"]

    g = pts["gemm"]
    assert g["y"] >= 0.8 * roof_at(roofs, g["x"], "dpe:f16") and g["y"] <= dpe["value"]
    # its fraction is the report's: floor over time, the FLOP/s that floor allows as the roof above it
    assert g["roof_y"] == runs["gemm"].roofline.attainable_flops <= dpe["value"]
    assert g["fraction"] == runs["gemm"].roofline.fraction
    assert g["compulsory_fraction"] == runs["gemm"].compulsory.fraction

    s = pts["softmax"]
    ridge = next(r for r in roofs if r["engine"] == "se")["ridge"]
    assert s["x"] < ridge < dpe["ridge"]                            # left of the ridge point: memory-bound
    assert dram * s["x"] / 2 <= s["y"] <= dram * s["x"]              # within a factor of 2 of the DRAM roof

    for label, rep in runs.items():                                   # plotted = reported
        assert pts[label]["x"] == rep.roofline.arithmetic_intensity
        assert pts[label]["y"] == pts[label]["y_plotted"] == rep.roofline.achieved_flops
    assert pts["softmax"]["x_plotted"] == runs["softmax"].roofline.arithmetic_intensity
    assert math.isinf(g["x"]) and g["x_plotted"] == chart.figure.axes[0].get_xlim()[1] / 1.5  # no DRAM bytes

    ax = chart.figure.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    offsets = [tuple(c.get_offsets()[0]) for c in ax.collections]
    assert offsets == [(g["x_plotted"], g["y"]), (s["x"], s["y"])]


def test_roofs_of_a_config(cfg):
    roofs = {r["name"]: r for r in config_roofs(cfg)}
    assert roofs["DPE f16"]["value"] == pytest.approx(176.9472e12)
    assert roofs["DPE i8"]["value"] == 2 * roofs["DPE f16"]["value"]
    assert roofs["SE"]["value"] == 32 * 64 * 1.35e9
    assert roofs["DRAM"]["value"] == 204.8e9 and roofs["SRAM"]["value"] == 2700e9
    assert roofs["DPE f16"]["ridge"] == pytest.approx(176.9472e12 / 204.8e9)
    assert "DPE f32" in {r["name"] for r in config_roofs(cfg, ["f32"])}        # a dtype a run used
    assert "DPE f16/bf16" in {r["name"] for r in config_roofs(cfg, ["bf16"])}  # same rate: one line


def test_several_configs_share_a_chart_in_their_own_colours(tmp_path, runs):
    v1 = load_config("mtia-v1")
    soft_v1 = get_workload("softmax")(v1, (1024, 1024), numerics=False)
    chart = roofline_chart([("softmax", runs["softmax"]), ("softmax", soft_v1)],
                           configs=[load_config("mtia-2i"), v1], title="2i vs v1")
    assert {r["config"] for r in chart.roofs} == {"mtia-2i", "mtia-v1"}
    ax = chart.figure.axes[0]
    colour = {}
    for line in ax.get_lines():
        colour.setdefault(line.get_label().split(":")[0], set()).add(to_hex(line.get_color()))
    assert len(colour["mtia-2i"]) == len(colour["mtia-v1"]) == 1 and colour["mtia-2i"] != colour["mtia-v1"]
    for suffix in ("png", "svg"):
        path = chart.save(tmp_path / f"roofline.{suffix}")
        assert path.stat().st_size > 10_000
    assert (tmp_path / "roofline.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "roofline.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="png"):
        save_figure(chart.figure, tmp_path / "chart.txt")


def test_runs_without_flops_are_listed_not_plotted(cfg):
    stream = get_workload("dram_stream")(load_config("mtia-small"), (2, 32768), False)
    chart = roofline_chart([stream])
    (p,) = chart.points
    assert p["plotted"] is False and p["x_plotted"] is None


def test_utilization_bars_and_pe_heatmap(tmp_path, runs):
    chart = utilization_chart(list(runs.items()))
    got = {(p["label"], p["engine"]): p["value"] for p in chart.points}
    for label, rep in runs.items():
        for eng, v in rep.utilization.items():
            assert got[(label, eng)] == pytest.approx(v)
    heights = sorted(round(b.get_height(), 9) for b in chart.figure.axes[0].patches)
    assert heights == sorted(round(100 * v, 9) for v in got.values())
    heat = pe_heatmap(runs["gemm"], "dpe")
    assert len(heat.points) == 64 and {(p["row"], p["col"]) for p in heat.points} == {(r, c) for r in range(8)
                                                                                    for c in range(8)}
    assert [p["value"] for p in heat.points] == [pe["dpe"] for pe in runs["gemm"].per_pe]
    heat.save(tmp_path / "heat.png")
    utilization_chart([runs["gemm"]]).save(tmp_path / "util.svg")


def test_many_points_get_numbers_and_a_key(runs):
    many = [(f"run{i}", runs["softmax"]) for i in range(14)]
    chart = roofline_chart(many)
    assert [p["number"] for p in chart.points] == list(range(1, 15))
    texts = [t.get_text() for t in chart.figure.axes[0].texts]
    assert any(t.startswith(" 1  run0\n") for t in texts)
    assert "number" not in roofline_chart(many[:3]).points[0]          # a few points: named labels


def test_energy_chart_stacks_each_runs_components_to_its_total(runs):
    from mtiasim.plots import energy_chart
    chart = energy_chart(list(runs.items()))
    for label, rep in runs.items():
        mine = [p for p in chart.points if p["label"] == label]
        assert sum(p["share"] for p in mine) == pytest.approx(1.0)
        assert sum(p["joules"] for p in mine) == pytest.approx(rep.energy.joules)
    dram = {p["label"]: p["share"] for p in chart.points if p["component"] == "dram"}
    assert dram["softmax"] > dram["gemm"]


def test_perf_per_watt_chart_picks_the_metric_by_bound(runs):
    from mtiasim.plots import perf_per_watt_chart
    rows = [dict(rep.row(), workload=name, knob=k, error="") for name, rep in runs.items() for k in (1, 2)]
    chart = perf_per_watt_chart(rows, "knob")
    metric = {p["workload"]: p["metric"] for p in chart.points}
    assert metric["softmax"] == "dram_gbps_per_watt"
    assert metric["gemm"] == ("dram_gbps_per_watt" if runs["gemm"].roofline.bound in ("dram", "sram", "noc")
                              else "tflops_per_watt")
    y = {p["workload"]: p["y"] for p in chart.points}
    assert y["softmax"] == pytest.approx(runs["softmax"].energy.dram_bytes_per_joule / 1e9)
def _overlap(a, b) -> float:
    w, h = min(a.x1, b.x1) - max(a.x0, b.x0), min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


def test_labels_never_cover_one_another_the_legend_or_the_key(runs):
    """Ten runs at one spot, named (not numbered), and twenty numbered ones beside a key: measured on the
    drawn figure, no label's box overlaps another's, the legend's or the key's."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text
    for pairs, numbered in (([(f"softmax {i}", runs["softmax"]) for i in range(10)], False),
                            ([(f"r{i}", runs["softmax" if i % 2 else "gemm"]) for i in range(20)], True)):
        chart = roofline_chart(pairs, numbered=numbered)
        fig = chart.figure
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        renderer = canvas.get_renderer()
        ax = fig.axes[0]
        # each label's text (Text's own extent: an annotation's would take in its leader line)
        boxes = [Text.get_window_extent(t, renderer) for t in ax.texts] + [ax.get_legend().get_window_extent(renderer)]
        assert len(ax.texts) >= len(pairs)
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert _overlap(a, b) == 0, (a, b)


def test_utilization_bars_group_by_config_one_hue_per_workload(cfg, runs):
    v1 = load_config("mtia-v1")
    softmax_v1 = get_workload("softmax")(v1, (4096, 1024), numerics=False)
    chart = utilization_chart([("gemm", runs["gemm"]), ("softmax", runs["softmax"]), ("softmax", softmax_v1)])
    bars = chart.figure.axes[0].patches
    drawn = len(bars) // 6                             # runs: each draws a bar per engine (5 and the core)
    colours = [to_hex(bars[i * 6].get_facecolor()) for i in range(drawn)]
    hatches = [bars[i * 6].get_hatch() or "" for i in range(drawn)]
    assert colours[1] == colours[2] != colours[0]      # softmax on both configs: one hue
    assert hatches[0] == hatches[1] != hatches[2]      # mtia-2i's two runs, then mtia-v1's
