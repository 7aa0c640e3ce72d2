"""`mtiasim model SCRIPT.py`: quiet by default (Inductor's autotuning log only with -v), whole kernel names with
a `#` column the chart's numbers follow, and a second run of the same script in a new process served from the
disk cache: nothing compiled, tuned or simulated, none of our packages imported, and any change to the script,
the model's state, the inputs, the config (its name, --set, its YAML files) or the sources a miss.
(`python -m mtiasim.bench.model_cache` times the second run against the first.)"""
import subprocess
import sys

import pytest

from mtiasim.bench.model_cache import same_output

from repo import ROOT

torch = pytest.importorskip("torch")

# two projections of one input through one Linear-shaped kernel: a kernel launched twice, for two modules
MODEL = '''
import torch
from torch import nn

class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.left = nn.Linear(64, 64)
        self.right = nn.Linear(64, 64)

    def forward(self, x):
        return self.left(x) + 1, self.right(x) * 2

torch.manual_seed(0)
model = TwoHeads().eval()
inputs = (torch.randn(64, 64),)
'''
INDUCTOR_LOG = ("AUTOTUNE", "Autotune Choices Stats", "UserWarning")


def model_cli(script, tmp_path, *flags) -> subprocess.CompletedProcess:
    env = {"MTIASIM_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    p = subprocess.run([sys.executable, "-m", "mtiasim", "model", str(script), "--config", "mtia-small", "-o",
                        str(tmp_path / "chart.png"), *flags], capture_output=True, text=True, cwd=ROOT, env=env,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    return p


@pytest.mark.slow
def test_model_is_quiet_numbered_and_cached_across_processes(tmp_path):
    script = tmp_path / "two_heads.py"
    script.write_text(MODEL)
    first = model_cli(script, tmp_path)
    assert not any(w in first.stdout + first.stderr for w in INDUCTOR_LOG), first.stderr
    rows = [ln.split() for ln in first.stdout.splitlines() if ln[:1].isdigit()]
    assert [r[0] for r in rows] == [str(i) for i in range(1, len(rows) + 1)]      # the chart's numbers
    modules = {r[2] for r in rows}
    assert {"left", "right"} <= modules                   # one kernel, two rows told apart by their module
    assert "from the cache" not in first.stdout
    chart = (tmp_path / "chart.png").read_bytes()

    second = model_cli(script, tmp_path)                 # a new process
    assert "nothing compiled, tuned or simulated" in second.stdout
    assert not any(w in second.stdout + second.stderr for w in INDUCTOR_LOG), second.stderr
    assert same_output(first.stdout, second.stdout)      # word for word, but for naming the cache
    assert (tmp_path / "chart.png").read_bytes() == chart

    script.write_text(MODEL.replace("* 2", "* 3"))     # another script: another key, a fresh run
    third = model_cli(script, tmp_path, "-v")
    assert "from the cache" not in third.stdout
    assert "AUTOTUNE" in third.stderr                   # -v: Inductor's own log is back


# ---- the cached path without a first run through Inductor (seconds, not minutes) --------------------------

class _Report:
    """What `model_runs.recorded` reads of a ModelReport: a stand-in, so the cache is filled in seconds."""
    config, kernels = "mtia-small", []

    def table(self) -> str:
        return "A TABLE FROM THE RECORD\nsimulated in 1.00 s of host time"

    def to_dict(self) -> dict:
        return {"cycles": 1234}

    def launch_labels(self) -> list:
        return []


def _fill(script, config: str, sets: list[str], outputs_offset: float = 0.0) -> str:
    """Store a run of `script` as a first `mtiasim model` would; the key."""
    from mtiasim import model_runs
    from mtiasim.cli import config_from_args
    from mtiasim.commands.model import load_script
    model, inputs = load_script(str(script))
    key = model_runs.run_key(script, model, inputs, config, sets)
    _, files = model_runs.config_read(lambda: config_from_args(config, sets))
    with torch.no_grad():
        outputs = tuple(o + outputs_offset for o in model(*inputs))
    model_runs.store_run(key, model_runs.recorded(outputs, _Report(), files))
    return key


def test_a_cached_run_prints_the_record_and_imports_none_of_our_packages(tmp_path, monkeypatch):
    monkeypatch.setenv("MTIASIM_CACHE_DIR", str(tmp_path / "cache"))
    script = tmp_path / "two_heads.py"
    script.write_text(MODEL)
    key = _fill(script, "mtia-small", [], outputs_offset=0.5)   # outputs 0.5 off eager's: they are the record's
    from mtiasim import model_runs
    chart = tmp_path / "chart.svg"
    run = model_runs.load_run(key)
    run["charts"][model_runs.chart_key(chart)] = b"<svg>a saved chart</svg>"
    model_runs.store_run(key, run)

    code = ("import sys\nfrom mtiasim.cli import main\n"
            f"rc = main(['model', {str(script)!r}, '--config', 'mtia-small', '-o', {str(chart)!r}])\n"
            "ours = ('isa', 'simulator', 'compiler', 'simpy', 'pydantic', 'matplotlib', 'torch._inductor')\n"
            "print(rc, sorted({m for m in sys.modules if m.split('.')[0] in ours or m.startswith(ours)}))")
    env = {"MTIASIM_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[-1] == "0 []", p.stdout            # nothing of ours, nor Inductor, imported
    assert "A TABLE FROM THE RECORD" in p.stdout and "nothing compiled, tuned or simulated" in p.stdout
    assert "1.00 s of host time, in the run that filled the cache" in p.stdout
    assert "check max |out - eager| = 0.5;" in p.stdout               # the recorded outputs, checked against eager
    assert chart.read_bytes() == b"<svg>a saved chart</svg>"
    assert not any(w in p.stdout + p.stderr for w in INDUCTOR_LOG) and not p.stderr, p.stderr


def test_any_change_to_what_a_run_depends_on_misses(tmp_path, monkeypatch):
    from mtiasim import model_runs
    from mtiasim.commands.model import load_script
    monkeypatch.setenv("MTIASIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "two_heads.py"
    script.write_text(MODEL)
    (tmp_path / "mine.yaml").write_text("extends: mtia-small\n")
    key = _fill(script, "mine.yaml", [])
    assert model_runs.load_run(key) is not None
    files = [path for path, _ in model_runs.load_run(key)["config_files"]]
    assert files[0] == "mine.yaml" and files[1].endswith("configs/mtia-small.yaml")   # the `extends` chain, as read

    (tmp_path / "mine.yaml").write_text("extends: mtia-small\n# edited\n")      # the user's file: another config
    assert model_runs.load_run(key) is None
    (tmp_path / "mine.yaml").write_text("extends: mtia-small\n")
    assert model_runs.load_run(key) is not None
    (tmp_path / "mine.yaml").unlink()
    assert model_runs.load_run(key) is None
    (tmp_path / "mine.yaml").write_text("extends: mtia-small\n")

    def key_of(config="mine.yaml", sets=(), edit=None):
        model, inputs = load_script(str(script))
        if edit is not None:
            model, inputs = edit(model, inputs)
        return model_runs.run_key(script, model, inputs, config, list(sets))
    assert key_of() == key
    with torch.no_grad():
        others = {key_of("mtia-2i"), key_of(sets=["dram.bandwidth_gbps=1"]),
                  key_of(edit=lambda m, x: (m, (x[0] + 1,))),
                  key_of(edit=lambda m, x: (m.left.weight.add_(1e-3) is not None and m, x)),
                  key_of(edit=lambda m, x: (m.right.register_buffer("extra", torch.zeros(1)) or m, x))}
    assert key not in others and len(others) == 5
    model_runs.disk_cache().set_source_hash("an edited simulator")
    try:
        assert key_of() != key
    finally:
        model_runs.disk_cache().set_source_hash(None)
    script.write_text(MODEL + "# another script\n")
    assert key_of() != key
    assert model_runs.run_key(script, lambda x: x, (torch.ones(1),), "mine.yaml", []) is None   # not a Module


def test_same_output_allows_only_the_lines_that_name_the_cache():
    """The check the slow test and `mtiasim.bench.model_cache` make of a cached run's output."""
    first = "1  k  fc  addmm\nsimulated in 1.00 s of host time\ncheck max |out - eager| = 0\n"
    second = ("1  k  fc  addmm\nsimulated in 1.00 s of host time, in the run that filled the cache\n"
              "(the outputs and report of an earlier run ..., from the cache in /c: nothing compiled, tuned or "
              "simulated; --no-cache runs it again)\ncheck max |out - eager| = 0\n")
    assert same_output(first, second)
    assert not same_output(first, second.replace("= 0", "= 1"))
    assert not same_output(first, second.replace("addmm", "mm"))
