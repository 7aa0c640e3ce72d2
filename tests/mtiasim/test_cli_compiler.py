"""`mtiasim compile` and `mtiasim run SCRIPT.py`: the commands run in this process (tests/cli_run.py), and
`python -m mtiasim` runs them in a process of its own (tests/mtiasim/test_cli.py runs the console script)."""
import json
import subprocess
import sys

import pytest

from cli_run import mtiasim_main
from repo import ROOT


@pytest.fixture(autouse=True)
def _at_the_repository_root(monkeypatch):
    monkeypatch.chdir(ROOT)                 # the scripts are named from the repository root, as users do


def mtiasim(capsys, *args, check=True):
    return mtiasim_main(capsys, *args, ok=check)


def test_compile_a_library_kernel_prints_its_assembly_and_cpp(capsys):
    r = mtiasim(capsys, "compile", "matmul", "--shape", "128x128x64", "--stage", "mtia-asm", "--stage", "cpp",
                "--config", "mtia-small")
    assert "// ---- matmul_kernel: mtia-asm ----" in r.stdout
    assert "dpe.mm cb0.acc:f32[" in r.stdout
    assert "void matmul_kernel(mtia::half* a_ptr" in r.stdout


def test_compile_lists_stages_and_prints_backend_ir_as_json(capsys):
    r = mtiasim(capsys, "compile", "softmax", "--shape", "4x100", "--list-stages")
    assert "mtia.bufferize" in r.stdout and "mtia-asm" in r.stdout
    r = mtiasim(capsys, "compile", "softmax", "--shape", "4x100", "--stage", "mtia.bufferize", "--json")
    out = json.loads(r.stdout)
    assert out[0]["kernel"] == "softmax_kernel" and "mtia.load_box" in out[0]["text"]


def test_run_a_script_reports_each_launch(capsys):
    r = mtiasim(capsys, "run", "examples/vector_add.py", "--config", "mtia-small")
    assert "max |out - (x + y)| = 0.0" in r.stdout
    assert "add_kernel on mtia-small" in r.stdout and "roofline" in r.stdout


def test_bad_targets_are_usage_errors(capsys):
    r = mtiasim(capsys, "compile", "no_such_kernel", check=False)
    assert r.returncode == 2 and "neither a script (.py) nor a library kernel" in r.stderr
    r = mtiasim(capsys, "compile", "softmax", "--stage", "nope", check=False)
    assert r.returncode == 2 and "no stage 'nope'" in r.stderr


def test_bench_compile_times_every_library_kernel(capsys):
    r = mtiasim(capsys, "bench", "--compile", "--json")
    rows = json.loads(r.stdout)
    assert {row["library_kernel"] for row in rows} >= {"matmul", "softmax", "attention", "int8_gemm"}
    assert all(row["kernels"] >= 1 and row["total_s"] > 0 for row in rows)


def test_python_dash_m_mtiasim_runs_the_compiler_commands():
    # `python -m mtiasim` is the console script's main: the compiler's commands run from it too
    args = ["compile", "softmax", "--shape", "4x100", "--list-stages"]
    r = subprocess.run([sys.executable, "-m", "mtiasim", *args], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert "mtia.bufferize" in r.stdout and "mtia-asm" in r.stdout


def test_script_arguments_after_double_dash_reach_the_script(tmp_path, capsys):
    """What follows `--` is the script's, even with options between the script's name and the `--`
    (argparse alone refused `compile s.py --stage ir -- 7` as unrecognized arguments)."""
    from mtiasim.cli import main
    script = tmp_path / "s.py"
    script.write_text("import sys\nprint('argv', sys.argv[1:])\n")
    for argv in (["compile", str(script), "--stage", "ir", "--", "7", "--flag"],
                 ["compile", str(script), "--", "7", "--flag"],
                 ["run", str(script), "--config", "mtia-small", "--", "7", "--flag"]):
        assert main(argv) == 0, argv
        out = capsys.readouterr()            # (compile sends the script's prints to stderr: stdout is the stages)
        assert "argv ['7', '--flag']" in (out.err if argv[0] == "compile" else out.out), argv
