"""`mtiasim trace SCRIPT.py`: a user's own kernels traced from the command line, each command's kernel source
line on its trace event, `--summary`'s stalls by source line, and the source lines beside the MTIA assembly."""
import json

import pytest

from cli_run import mtiasim_main
from repo import ROOT

SCRIPT = "examples/vector_add.py"        # the README's vector-add script
STORE = "tl.store(out_ptr + offsets, x + y, mask=mask)"


@pytest.fixture(autouse=True)
def _at_the_repository_root(monkeypatch):
    """The commands run in this process (tests/cli_run.py), from the repository root as a user runs them."""
    monkeypatch.chdir(ROOT)


def test_trace_summary_of_the_readme_script_prints_stalls_by_source_line(tmp_path, capsys):
    p = mtiasim_main(capsys, "trace", SCRIPT, "--summary", "--config", "mtia-small", "-o", tmp_path / "t.json")
    out = p.stdout
    assert "max |out - (x + y)| = 0.0" in out                      # the script itself ran
    assert "add_kernel on mtia-small" in out and "stalls by source line" in out
    rows = [ln.split() for ln in out.splitlines() if ln.strip().startswith("vector_add.py:")]
    assert [r[0] for r in rows][:1] == ["vector_add.py:19"]       # the add and store wait for both loads
    assert {r[0] for r in rows} == {"vector_add.py:17", "vector_add.py:18", "vector_add.py:19"}
    assert int(rows[0][1].replace(",", "")) > 0 and STORE in out


def test_summary_figures_are_the_trace_events_summed(tmp_path, capsys):
    """Each line's busy cycles are its commands' slices in the trace, summed; its stall is at most the
    time those commands waited after issue. The script's prints go to stderr, so stdout is JSON."""
    p = mtiasim_main(capsys, "trace", SCRIPT, "--summary", "--json", "--config", "mtia-small", "-o", tmp_path / "t.json")
    assert "max |out - (x + y)|" in p.stderr
    summary = json.loads(p.stdout)
    trace = json.loads((tmp_path / "t.json").read_text())
    assert not trace["otherData"]["truncated"]
    clock_mhz = trace["otherData"]["clock_ghz"] * 1e3
    busy, waited = {}, {}
    for e in trace["traceEvents"]:
        if e["ph"] == "X":
            src = e["args"]["source"]
            assert src.startswith(SCRIPT + ":")
            line = "vector_add.py:" + src.rsplit(":", 1)[1]
            busy[line] = busy.get(line, 0) + e["dur"] * clock_mhz
            waited[line] = waited.get(line, 0) + e["args"]["waited_cycles"]
    rows = {r["where"]: r for r in summary["stalls_by_line"]}
    assert set(rows) == set(busy)
    for line, r in rows.items():
        assert abs(r["busy_cycles"] - busy[line]) <= 1 + 1e-6 * busy[line], line
        assert 0 <= r["stall_cycles"] <= waited[line] + 1, line
    assert rows["vector_add.py:19"]["text"] == STORE


def test_mtia_asm_carries_the_kernel_source_lines(capsys):
    asm = mtiasim_main(capsys, "compile", SCRIPT, "--stage", "mtia-asm", "--config", "mtia-small").stdout
    assert f"    # 19: {STORE}\n" in asm
    dma_out = next(ln for ln in asm.splitlines() if ln.strip().startswith("dma.out"))
    assert dma_out.endswith("  # vector_add.py:19")


AUTOTUNED = '''
import numpy as np
import compiler as triton
import compiler.language as tl

@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"], workers=1)
@triton.jit
def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

x = np.arange(1000, dtype=np.float32)
out = np.empty_like(x)
double[lambda meta: (triton.cdiv(x.size, meta["BLOCK"]),)](x, out, x.size)
print("max error", np.abs(out - 2 * x).max())
'''


def test_run_json_stays_json_and_labels_autotune_trials(tmp_path, capsys):
    script = tmp_path / "tuned.py"
    script.write_text(AUTOTUNED)
    p = mtiasim_main(capsys, "run", script, "--json", "--config", "mtia-small")
    assert "max error 0.0" in p.stderr                      # the script's prints: not in the JSON
    runs = json.loads(p.stdout)
    assert [r["autotune_trial"] for r in runs] == [True, True, False]
    text = mtiasim_main(capsys, "run", script, "--config", "mtia-small").stdout
    assert text.count("autotune trial (BLOCK=") == 2 and "timing only" in text


def test_compile_prints_only_the_stages(capsys):
    p = mtiasim_main(capsys, "compile", SCRIPT, "--stage", "ir", "--config", "mtia-small")
    assert p.stdout.startswith("// ---- add_kernel: ir ----")
    assert "max |out - (x + y)|" in p.stderr and "max |out" not in p.stdout
    plain = mtiasim_main(capsys, "compile", SCRIPT, "--no-source", "--config", "mtia-small").stdout
    assert "#" not in plain.split(".meta", 1)[1].split("\n", 1)[1]


def test_json_out_writes_the_reports_and_stdout_keeps_the_text(tmp_path, capsys):
    out = tmp_path / "runs.json"
    p = mtiasim_main(capsys, "run", SCRIPT, "--config", "mtia-small", "--json-out", out)
    assert "max |out - (x + y)| = 0.0" in p.stdout and "add_kernel on mtia-small" in p.stdout
    (launch,) = json.loads(out.read_text())
    assert launch["kernel"] == "add_kernel" and launch["autotune_trial"] is False
    assert f"{launch['cycles']:,.0f} cycles" in p.stdout
