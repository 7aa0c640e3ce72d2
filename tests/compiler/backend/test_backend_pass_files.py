"""Every backend pass checked on its printed output: one file per pass in tests/compiler/backend/passes/ (FileCheck).

A file is named after its pass (`lower-memory.ir`; `command-forms.asm` for a rewrite of the register-
allocated program, on `mtia-asm` text) and holds, per case (cases separated by `// -----`): a
`// RUN: opt --pass NAME [...]` line (the first case's holds for the later ones unless they give
their own), the input (the previous stage of a small kernel, `compiled.asm["mtia.<pass>"]`, which the
case's comment describes), and `// CHECK...:` lines on the output. Each
case runs in-process through compiler.backend.opt.run_passes, and again without the file's pass, where
its checks must fail: so a check that the input already passes, or that another pass makes true,
cannot slip in.
"""
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.backend.opt import arg_parser, pass_table, program_rewrites, run_passes, split_input
from simulator.config import load_config

from filecheck import check_ir
from repo import ROOT

HERE = Path(__file__).parent / "passes"


def _cases():
    """(file, index, opt's parsed arguments, input IR, CHECK lines) of every case of every file."""
    out = []
    for path in sorted(HERE.glob("*.ir")) + sorted(HERE.glob("*.asm")):
        run = None
        for i, raw in enumerate(path.read_text().split("\n// -----\n")):
            lines = raw.splitlines()
            runs = [ln.split("RUN:", 1)[1] for ln in lines if ln.lstrip().startswith("// RUN:")]
            run = runs[0] if runs else run
            assert run is not None, f"{path.name}: case {i} has no RUN line and no earlier case gives one"
            argv = shlex.split(run)
            assert argv[0] == "opt", f"{path.name}: a RUN line runs opt, got {run!r}"
            checks = "\n".join(ln.lstrip()[3:] for ln in lines if ln.lstrip().startswith("// CHECK"))
            assert checks, f"{path.name}: case {i} checks nothing"
            (text,) = split_input(raw)
            out.append(pytest.param(path, i, arg_parser().parse_args(argv[1:]), text, checks,
                                    id=f"{path.stem}-{i}"))
    return out


CASES = _cases()


def _opt(args, text: str, leave_out: str | None = None) -> str:
    names = [n for n in args.passes if n != leave_out]
    return run_passes(text, names, args.config, args.num_stages, dict(args.switches) or None)


@pytest.mark.parametrize("path, index, args, text, checks", CASES)
def test_pass_output_matches_its_checks(path, index, args, text, checks):
    assert path.stem in args.passes, f"{path.name}: its RUN line does not run the pass {path.stem}"
    check_ir(_opt(args, text), checks)


@pytest.mark.parametrize("path, index, args, text, checks", CASES)
def test_checks_fail_without_the_pass(path, index, args, text, checks):
    """The checks say what the pass does: the same RUN line without it must not pass them."""
    with pytest.raises(AssertionError):
        check_ir(_opt(args, text, leave_out=path.stem), checks)


def test_every_pass_of_the_pipeline_has_its_file():
    """A new pass needs tests/compiler/backend/passes/<name>.ir, a new rewrite of the program <name>.asm (every
    switch on, so every pass is listed)."""
    cfg = load_config("mtia-2i")
    wanted = [f"{n}.ir" for n in pass_table(cfg)] + [f"{n}.asm" for n in program_rewrites(cfg)]
    missing = [f for f in wanted if not (HERE / f).exists()]
    assert not missing, f"passes without a FileCheck file in {HERE}: {missing}"
    stray = [p.name for p in HERE.iterdir() if p.name not in wanted]
    assert not stray, f"files named after no pass of the pipeline: {stray}"


def test_opt_runs_as_a_command_and_names_unknown_passes():
    src = HERE / "cse.ir"
    done = subprocess.run([sys.executable, "-m", "compiler.backend.opt", "--pass", "cse", str(src)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("module {") and done.stdout.count("module {") == len(split_input(src.read_text()))
    bad = subprocess.run([sys.executable, "-m", "compiler.backend.opt", "--pass", "no-such-pass", "-"], cwd=ROOT,
                         input="module {\n}\n", capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1
    assert "unknown pass 'no-such-pass'" in bad.stderr and "lower-memory" in bad.stderr and "Traceback" not in bad.stderr
