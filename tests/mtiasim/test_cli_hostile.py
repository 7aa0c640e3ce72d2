"""Hostile but realistic command lines: each gets a named error in the user's terms (never
`internal error`), with the exit code of its kind, before any simulation runs where the cause is
known up front. Run in-process through `mtiasim.cli.main` (a subprocess each would cost seconds)."""
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mtiasim.cli import main

SMALL = ["--config", "mtia-small"]
BOMB = ("[&a [x, x, x, x, x, x, x, x, x], &b [*a, *a, *a, *a, *a, *a, *a, *a, *a], &c [*b, *b, *b, *b, *b, *b, *b, *b, *b],"
        " &d [*c, *c, *c, *c, *c, *c, *c, *c, *c], &e [*d, *d, *d, *d, *d, *d, *d, *d, *d], [*e, *e, *e, *e, *e, *e, *e]]")
SWEEP = {"name": "s", "base": "mtia-small", "grid": {"dram.bandwidth_gbps": [6.4]},
         "workloads": [{"name": "softmax_isa", "shape": [32, 64]}]}


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A working folder with the files the cases name."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    (tmp_path / "adir.py").mkdir()
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(SWEEP))
    (tmp_path / "notes.csv").write_text("name,value\nalpha,1\n")
    (tmp_path / "bomb.yaml").write_text(f"extends: mtia-small\nname: {BOMB}\n")
    (tmp_path / "sbomb.yaml").write_text(yaml.safe_dump(SWEEP).replace("- 6.4", f"- {BOMB}"))
    (tmp_path / "imp.py").write_text("import numpy as np\nimport numpy_missing_pkg\n")
    (tmp_path / "syn.py").write_text("x = = 1\n")
    (tmp_path / "exit3.py").write_text("import sys\nsys.exit(3)\n")
    return tmp_path


def _run(capsys, args) -> tuple[int, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.err


@pytest.mark.parametrize("args, code, words", [
    # outputs: checked before the run
    (["trace", "softmax_isa", *SMALL, "-o", "adir"], 2, ["adir is a folder: give the trace a file name, e.g. adir/trace.json"]),
    (["trace", "softmax_isa", *SMALL, "-o", "nofolder/t.json"], 2, ["nofolder/t.json: the folder nofolder does not exist"]),
    (["roofline", "gemm:256x256x128", *SMALL, "-o", "nofolder/r.png"], 2, ["the folder nofolder does not exist"]),
    (["sweep", "s.yaml", "--out", "missing/r.csv"], 1, ["missing/r.csv: the folder missing does not exist"]),
    (["sweep", "s.yaml", "--out", "notes.csv"], 1, ["notes.csv exists and is not a results table of a sweep"]),
    (["sweep", "adir"], 1, ["adir is not a file: a sweep is a YAML file"]),
    # huge shapes
    (["run", "softmax", "--shape", "99999999999999999999x5"], 2, ["rows = 99999999999999999999 is past the largest dim"]),
    (["run", "gemm", "--shape", "1048576", "1048576", "1048576"], 1, ["out of host memory", "smaller --shape"]),
    (["compile", "matmul", "--shape", "1000000000x1000000000x1000000000"], 1, ["out of host memory"]),
    (["compile", "matmul", "--shape", "64x64"], 2, ["--shape 64x64: this kernel's shape has 3 dims, e.g. 2048x2048x2048"]),
    (["run", "gemm", *SMALL, "-p", "BM=7"], 2, ["BM = 7 must be a multiple of 32 that divides M = 2048"]),
    # configs
    (["configs", "--config", "bomb.yaml"], 1, ["bomb.yaml: its aliases (*name) expand to more than 100,000 values"]),
    (["sweep", "sbomb.yaml"], 1, ["sbomb.yaml: its aliases (*name) expand to more than 100,000 values"]),
    (["run", "softmax_isa", *SMALL, "--set", f"pe.dpe.macs_per_cycle.f16={BOMB}"], 1,
     ["--set pe.dpe.macs_per_cycle.f16: its aliases (*name) expand"]),
    (["run", "softmax_isa", "--set", "pe.local_store_kib=1048576"], 1,
     ["pe.local_store_kib = 1048576: 64 PEs x 1,048,576 KiB", "allowed with 64 PEs: local_store_kib <= 16,384"]),
    (["run", "softmax_isa", "--set", "sram.size_mib=1048576", "--set", "sram.llc_mib=1048576"], 1,
     ["sram.llc_mib = 1048576: an LLC of 8,589,934,592 lines", "llc_mib <= 10,485"]),
    (["run", "softmax_isa", *SMALL, "--set", "clock_ghz=true"], 1, ["clock_ghz = True: Input should be a valid number"]),
    (["run", "softmax_isa", *SMALL, "--set", "dram.bandwidth_gbps=1e-300"], 1,
     ["dram.bandwidth_gbps = 1e-300: allowed for a value in gbps: 0.001 to 1e+07"]),
    (["run", "softmax_isa", *SMALL, "--set", "pe.vector.ops_per_cycle.f17=3"], 1, ["unknown dtype 'f17' (known: i8,"]),
    (["run", "softmax_isa", "--config", "s.yaml"], 1, ["s.yaml is a sweep file", "run it with `mtiasim sweep s.yaml`"]),
    # arguments
    (["trace", "softmax_isa", *SMALL, "--pes", "0-1000000000"], 2, ["PE(s) [1000000000] do not exist"]),
    (["trace", "softmax_isa", *SMALL, "--pes", "3-1"], 2, ["--pes 3-1: a range goes up, e.g. 1-3"]),
    (["bench", "--size", "100"], 2, ["--size 100: the benchmark GEMM takes a multiple of 256"]),
    (["run", "imp.py", "--shape", "5"], 2, ["--shape: for library workloads only; the script imp.py makes its own"]),
    (["run", "adir.py"], 2, ["adir.py is a folder, not a script"]),
    (["nosuch"], 2, ["unknown command 'nosuch' (commands: run,", "compile"]),
])
def test_hostile_inputs_get_one_line_in_the_users_terms(folder, capsys, args, code, words):
    got, err = _run(capsys, args)
    assert got == code, err
    assert err.count("\n") == 1 and err.startswith("mtiasim: ") and "internal error" not in err, err
    for w in words:
        assert w in err, (w, err)
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["adir", "adir.py", "s.yaml", "notes.csv", "bomb.yaml", "sbomb.yaml", "imp.py", "syn.py", "exit3.py"])


def test_a_scripts_own_error_shows_the_scripts_traceback_not_mtiasim(folder, capsys):
    code, err = _run(capsys, ["run", "imp.py"])
    assert code == 1
    assert err.splitlines() == [
        "mtiasim: the script imp.py raised ModuleNotFoundError",
        "Traceback (most recent call last), the script's frames:",
        '  File "imp.py", line 2, in <module>',
        "    import numpy_missing_pkg",
        "ModuleNotFoundError: No module named 'numpy_missing_pkg'"]
    code, err = _run(capsys, ["compile", "syn.py"])
    assert code == 1 and err.splitlines() == [
        "mtiasim: the script syn.py raised SyntaxError", '  File "syn.py", line 1', "    x = = 1", "        ^",
        "SyntaxError: invalid syntax"]
    code, err = _run(capsys, ["run", "exit3.py"])
    assert (code, err) == (1, "mtiasim: exit3.py exited with status 3\n")


def test_a_workload_module_that_fails_on_import_is_named_with_its_line(tmp_path):
    (tmp_path / "broken_mod.py").write_text("x = 1\nraise ValueError('broken at import')\n")
    exe = Path(sys.executable).with_name("mtiasim")
    p = subprocess.run([str(exe), "workloads"], capture_output=True, text=True, timeout=120,
                       env={"PATH": "/usr/bin:/bin", "MTIASIM_WORKLOADS": "broken_mod", "PYTHONPATH": str(tmp_path)})
    assert p.returncode == 2, p.stderr
    assert p.stderr == (f"mtiasim: workload module 'broken_mod' failed on import at {tmp_path / 'broken_mod.py'}:2: "
                        f"ValueError: broken at import\n")
