"""The `mtiasim` console script, end to end, as the README shows it."""
import json
import os
import subprocess
import sys

import pytest
import yaml

import mtiasim.commands  # noqa: F401  (registers the commands)
from mtiasim.cli import COMMANDS

from repo import ROOT, mtiasim_exe

SMALL = ["--config", "mtia-small"]


def mtiasim(*args, cwd=None, env=None, ok=True) -> subprocess.CompletedProcess:
    p = subprocess.run([mtiasim_exe(), *map(str, args)], capture_output=True, text=True, cwd=cwd,
                       env={**os.environ, **(env or {})}, timeout=300)
    if ok:
        assert p.returncode == 0, p.stderr
    return p


def assert_one_line_error(p, code: int, *words):
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mtiasim"), p.stderr
    assert "Traceback" not in p.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])


def test_run_gemm_as_the_readme_shows():
    p = mtiasim("run", "gemm", "--shape", 256, 256, 128, *SMALL)
    assert p.stdout.startswith("gemm on mtia-small, grid (4, 1, 1)")
    for part in ("time", "engines", "roofline", "floors", "check       max |C - A@B| = "):
        assert part in p.stdout


def test_run_any_workload_with_json():
    p = mtiasim("run", "softmax_isa", "--shape", "64x256", *SMALL, "--json", "--timing-only")
    rep = json.loads(p.stdout)
    assert rep["kernel"] == "softmax" and rep["config"] == "mtia-small" and rep["numerics"] is False
    assert rep["commands"] == 7 * 2
    p = mtiasim("run", "gemm", "--shape", "M=128", "N=128", "K=64", "--region", "dram", *SMALL,
                "--set", "dram.bandwidth_gbps=25.6", "--json")
    rep = json.loads(p.stdout)
    assert rep["bytes"]["dram_read"] >= (128 * 64 + 64 * 128) * 2
    assert float(rep["roofline"]["dram_bandwidth"]) == 25.6e9


@pytest.mark.parametrize("args, code, words", [
    (["run", "nope"], 2, ["unknown workload 'nope'", "gemm"]),
    (["run", "gemm", "--shape", "1", "2"], 2, ["M N K"]),
    (["run", "gemm", "--shape", "100", "100", "100"], 2, ["multiples of 32"]),
    (["run", "gemm", "--config", "nope"], 1, ["no config named 'nope'", "mtia-2i"]),
    (["run", "softmax_isa", *SMALL, "--set", "dram.bandwidth_gbps=-1"], 1, ["bandwidth_gbps", "greater than 0"]),
    (["run", "softmax_isa", *SMALL, "--set", "dram.bandwith_gbps=1"], 1, ["unknown key 'bandwith_gbps'"]),
    (["run", "dpe_loop", "--region", "dram"], 2, ["no region option"]),
    (["trace", "softmax_isa", *SMALL, "--pes", "7"], 2, ["PE(s) [7] do not exist"]),
    (["roofline", "gemm", "-o", "chart.txt"], 2, [".png"]),
    (["sweep", "missing.yaml"], 1, ["no sweep file"]),
    (["bench", "--quick"], 2, ["--quick", "--kernels"]),
])
def test_errors_are_one_line_without_traceback(tmp_path, args, code, words):
    assert_one_line_error(mtiasim(*args, cwd=tmp_path, ok=False), code, *words)


def test_every_command_has_help():
    assert {"run", "sweep", "trace", "roofline", "configs", "workloads", "bench"} <= set(COMMANDS)
    assert {"compile", "model"} <= set(COMMANDS)                  # the compiler's
    top = mtiasim("--help").stdout
    for name in COMMANDS:
        assert name in top
        p = mtiasim(name, "--help")
        assert p.stdout.startswith("usage: mtiasim " + name)
        if name not in ("workloads", "configs", "bench", "sweep", "plot", "compare"):   # a table; two configs
            assert "--config" in p.stdout


def test_configs_and_workloads_lists():
    p = mtiasim("configs")
    for name in ("mtia-2i", "mtia-v1", "mtia-small", "dram-x-ls"):
        assert name in p.stdout
    data = json.loads(mtiasim("configs", "--json").stdout)
    assert {c["config"] for c in data["configs"]} >= {"mtia-2i", "mtia-v1", "mtia-small"}
    one = json.loads(mtiasim("configs", "--config", "mtia-v1", "--json").stdout)
    assert one["clock_ghz"] == 0.8
    ws = json.loads(mtiasim("workloads", "--json").stdout)
    assert {"gemm", "softmax_isa", "softmax", "dram_stream", "dpe_loop"} <= set(ws)
    assert ws["gemm"]["dims"] == ["M", "N", "K"]


def test_a_workload_registered_in_another_module_appears_everywhere(tmp_path):
    (tmp_path / "my_kernels.py").write_text(
        "from mtiasim.workloads import get_workload, register_workload\n"
        "def twice_softmax(m, shape, numerics):\n"
        "    return get_workload('softmax_isa')(m, {'R': 2 * shape['rows'], 'C': 64}, numerics)\n"
        "register_workload('twice_softmax', twice_softmax, shape={'rows': 16}, description='test kernel')\n")
    env = {"MTIASIM_WORKLOADS": "my_kernels", "PYTHONPATH": str(tmp_path)}
    assert "twice_softmax" in mtiasim("workloads", env=env).stdout
    rep = json.loads(mtiasim("run", "twice_softmax", "--shape", 32, *SMALL, "--json", env=env).stdout)
    assert rep["kernel"] == "softmax" and rep["grid"][0] * 0 == 0
    spec = {"base": "mtia-small", "imports": ["my_kernels"], "grid": {"dram.bandwidth_gbps": [6.4, 12.8]},
            "workloads": [{"name": "twice_softmax", "shape": [32]}]}
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(spec))
    mtiasim("sweep", "s.yaml", "--out", "r.csv", "--workers", 2, "--no-progress", cwd=tmp_path,
            env={"PYTHONPATH": str(tmp_path)})
    assert (tmp_path / "r.csv").read_text().count("twice_softmax") == 2


def test_sweep_writes_a_table_and_resumes(tmp_path):
    spec = {"name": "tiny", "base": "mtia-small", "grid": {"dram.bandwidth_gbps": [6.4, 12.8, 25.6]},
            "workloads": [{"name": "softmax_isa", "shape": [64, 256]}]}
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(spec))
    p = mtiasim("sweep", "tiny.yaml", "--workers", 1, cwd=tmp_path)
    assert "3 rows in tiny.csv: 3 run now, 0 already there, 0 with errors" in p.stdout
    assert "sweep tiny" in p.stderr                                  # the progress bar
    rows = (tmp_path / "tiny.csv").read_text().splitlines()
    assert len(rows) == 4 and rows[0].startswith("point,workload,shape,dram.bandwidth_gbps,kernel,config,cycles")
    again = json.loads(mtiasim("sweep", "tiny.yaml", "--json", cwd=tmp_path).stdout)
    assert (again["ran"], again["skipped"]) == (0, 3)


def test_trace_writes_perfetto_json(tmp_path):
    p = mtiasim("trace", "softmax_isa", "--shape", 128, 256, *SMALL, "-o", tmp_path / "t.json", "--pes", "0,1",
                "--max-events", 1000)
    assert "ui.perfetto.dev" in p.stdout
    trace = json.loads((tmp_path / "t.json").read_text())
    names = {e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
    assert names == {"PE 0 (0, 0)", "PE 1 (0, 1)", "chip (mtia-small, traced PEs)"}
    assert len(trace["traceEvents"]) <= 1000 and trace["otherData"]["pes_traced"] == [0, 1]


def test_roofline_chart_for_two_configs(tmp_path):
    p = mtiasim("roofline", "gemm:256x256x128", "softmax_isa:R=128,C=256", "--config", "mtia-small",
                "--config", "mtia-2i", "-o", tmp_path / "r.svg", "--utilization", tmp_path / "u.png", "--json")
    out = json.loads(p.stdout)
    assert len(out["points"]) == 4 and {r["config"] for r in out["roofs"]} == {"mtia-small", "mtia-2i"}
    assert (tmp_path / "r.svg").stat().st_size > 0 and (tmp_path / "u.png").stat().st_size > 0


def test_bench_still_runs():
    b = json.loads(mtiasim("bench", "--size", 256, *SMALL, "--json").stdout)
    assert b["config"] == "mtia-small" and len(b["runs"]) == 3


@pytest.mark.slow
def test_ctrl_c_keeps_finished_runs_and_a_rerun_continues(tmp_path):
    import signal
    import time
    spec = {"name": "long", "base": "mtia-2i", "grid": {"dram.bandwidth_gbps": [51.2 * i for i in range(1, 13)]},
            "workloads": [{"name": "softmax_isa", "shape": [2048, 1024]}]}
    (tmp_path / "long.yaml").write_text(yaml.safe_dump(spec))
    out = tmp_path / "long.csv"
    p = subprocess.Popen([mtiasim_exe(), "sweep", "long.yaml", "--workers", "2", "--no-progress"], cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 120
    while time.time() < deadline and (not out.exists() or out.read_text().count("\n") < 2):
        time.sleep(0.1)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130 and "interrupted" in err and "Traceback" not in err
    kept = out.read_text().count("\n") - 1
    assert 1 <= kept < 12
    again = json.loads(mtiasim("sweep", "long.yaml", "--workers", 2, "--json", cwd=tmp_path).stdout)
    assert (again["ran"], again["skipped"]) == (12 - kept, kept) and len(again["rows"]) == 12


def test_help_lists_every_command_without_importing_their_packages():
    """`mtiasim --help` is fast because it imports no command's module: `mtiasim bench --startup`
    prints the time against `python -c 'import numpy'` (a figure, not a pass/fail test)."""
    code = ("import sys\nfrom mtiasim.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('simpy', 'pydantic', 'matplotlib', 'compiler', 'isa', 'yaml') if m in sys.modules))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[-1] == "[]", p.stdout
    assert "compile   compile a library kernel or a script's kernels" in p.stdout


def test_bench_startup_prints_both_figures_and_their_ratio():
    b = json.loads(mtiasim("bench", "--startup", "--json").stdout)
    assert b["numpy_import_s"] > 0 and b["mtiasim_help_s"] > 0
    assert b["ratio"] == pytest.approx(b["mtiasim_help_s"] / b["numpy_import_s"])
