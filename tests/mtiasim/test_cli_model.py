"""`mtiasim model SCRIPT.py`: quiet by default (Inductor's autotuning log only with -v), whole kernel names with
a `#` column the chart's numbers follow, and a second run of the same script in a new process served from the
disk cache: nothing compiled, tuned or simulated."""
import subprocess
import sys

import pytest

from repo import ROOT

pytest.importorskip("torch")

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
    table = [ln for ln in second.stdout.splitlines() if ln[:1].isdigit()]
    assert table == [ln for ln in first.stdout.splitlines() if ln[:1].isdigit()]
    assert (tmp_path / "chart.png").read_bytes() == chart

    script.write_text(MODEL.replace("* 2", "* 3"))     # another script: another key, a fresh run
    third = model_cli(script, tmp_path, "-v")
    assert "from the cache" not in third.stdout
    assert "AUTOTUNE" in third.stderr                   # -v: Inductor's own log is back
