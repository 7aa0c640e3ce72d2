"""What a sweep user needs around `mtiasim sweep`: `base:` as a list, modules beside the sweep file on the
import path for `imports:`, errors shown by their first clause whole, `mtiasim plot` of a results table (the
sweep notebook's two charts) and `mtiasim compare` of two configs or two saved runs."""
import json

import yaml

from mtiasim.commands.sweep import first_clause
from mtiasim.sweep import load_sweep, read_table, run_sweep
from mtiasim.sweep_charts import fraction_heatmaps, knobs, time_chart

from cli_run import mtiasim_main

SMALL = {"name": "small", "base": "mtia-small",
         "grid": {"dram.bandwidth_gbps": [6.4, 25.6], "pe.local_store_kib": [128, 384]},
         "workloads": [{"name": "softmax_isa", "shape": {"R": 64, "C": 256}}]}


def test_base_may_be_a_list_and_the_grid_runs_on_each(tmp_path):
    spec = {**SMALL, "base": ["mtia-small", "mtia-v1"], "grid": {"dram.bandwidth_gbps": [6.4, 25.6]}}
    sw = load_sweep(spec)
    assert sw.bases == ["mtia-small", "mtia-v1"] and len(sw.points()) == 4
    res = run_sweep(sw, out=None, workers=1, progress=False)
    assert not res.errors
    assert sorted((r["config"], r["dram.bandwidth_gbps"]) for r in res.rows) == \
        [("mtia-small", 6.4), ("mtia-small", 25.6), ("mtia-v1", 6.4), ("mtia-v1", 25.6)]


def test_imports_find_a_module_beside_the_sweep_file(tmp_path):
    (tmp_path / "beside_sweep_kernels.py").write_text(
        "from mtiasim.workloads import register_workload, get_workload\n"
        "def run(cfg, shape, numerics):\n"
        "    return get_workload('softmax_isa')(cfg, (shape['R'], 64), numerics)\n"
        "register_workload('beside_sweep', run, shape={'R': 32}, description='a workload beside its sweep')\n")
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump({**SMALL, "imports": ["beside_sweep_kernels"],
                                    "grid": {"dram.bandwidth_gbps": [6.4]},
                                    "workloads": [{"name": "beside_sweep", "shape": [32]}]}))
    res = run_sweep(load_sweep(path), out=None, workers=1, progress=False)
    assert [r["error"] for r in res.rows] == [""] and res.rows[0]["cycles"] > 0


def test_an_errors_first_clause_is_shown_whole():
    long = "OutOfResources: the kernel's tiles need 410 KiB of local store and the config has 384 KiB " \
           "(acc 256 KiB, a 64 KiB, b 64 KiB, spills 1 KiB); use smaller block sizes\nand a second line"
    assert first_clause(long) == long.split("; ")[0]
    words = "word " * 100
    cut = first_clause(words, cap=50)
    assert cut.endswith(" ...") and all(w == "word" for w in cut[:-4].split())


def test_plot_draws_the_sweep_notebooks_two_charts(tmp_path, capsys):
    out = tmp_path / "small.csv"
    run_sweep(SMALL, out=out, workers=1, progress=False)
    rows = read_table(out)
    assert knobs(rows) == ["dram.bandwidth_gbps", "pe.local_store_kib"]
    time = time_chart(rows, "dram.bandwidth_gbps", "pe.local_store_kib")
    assert sorted((p["dram.bandwidth_gbps"], p["pe.local_store_kib"], p["us"]) for p in time.points) == \
        sorted((r["dram.bandwidth_gbps"], r["pe.local_store_kib"], r["seconds"] * 1e6) for r in rows)
    heat = fraction_heatmaps(rows, "pe.local_store_kib", "dram.bandwidth_gbps")
    assert {round(p["percent"], 6) for p in heat.points if p["metric"] == "roofline_fraction"} == \
        {round(100 * r["roofline_fraction"], 6) for r in rows}
    p = mtiasim_main(capsys, "plot", out, "-o", tmp_path / "charts.png")
    for what in ("time", "fractions"):
        png = tmp_path / f"charts_{what}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and str(png) in p.stdout
    bad = mtiasim_main(capsys, "plot", out, "--x", "clock_ghz", ok=False)
    assert bad.returncode == 2 and "not a swept knob" in bad.stderr


def test_compare_two_configs_and_two_saved_runs(tmp_path, capsys):
    p = mtiasim_main(capsys, "compare", "mtia-small", "mtia-v1", "-w", "softmax_isa", "--shape", "64", "256", "--json")
    out = json.loads(p.stdout)
    metrics = {r["metric"]: r for r in out["metrics"]}
    cycles = metrics["cycles"]
    assert cycles["delta"] == cycles["b"] - cycles["a"] and cycles["a"] != cycles["b"]
    assert "clock_ghz" in {r["metric"] for r in out["config"]}
    for name, cfg in (("a.json", "mtia-small"), ("b.json", "mtia-v1")):
        (tmp_path / name).write_text(mtiasim_main(capsys, "run", "softmax_isa", "--shape", "64", "256", "--config", cfg,
                                             "--timing-only", "--json").stdout)
    saved = json.loads(mtiasim_main(capsys, "compare", tmp_path / "a.json", tmp_path / "b.json", "--json").stdout)
    assert {r["metric"]: r for r in saved["metrics"]}["cycles"]["a"] == cycles["a"]
    mixed = mtiasim_main(capsys, "compare", "mtia-small", tmp_path / "b.json", ok=False)
    assert mixed.returncode == 2 and "not one of each" in mixed.stderr
