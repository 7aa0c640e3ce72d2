"""The README's sample report is what the first command prints today (but for host timings)."""
import re

from mtiasim.workloads import get_workload
from simulator import load_config
from simulator.machine import Machine

from repo import ROOT

README = ROOT / "README.md"


def test_the_readme_report_matches_the_simulator():
    text = README.read_text()
    block = text.split("The report it prints")[1].split("```")[1]
    shown = {line.split()[0]: line.strip() for line in block.strip().splitlines()[1:]}
    rep = get_workload("matmul")(Machine(load_config("mtia-2i"), numerics=False), (2048, 2048, 2048), False)
    now = {line.split()[0]: line.strip() for line in str(rep).splitlines()[1:]}
    for key in ("work", "memory", "dram", "engines", "floors", "compulsory", "stalls"):
        assert shown[key] == now[key], key
    strip_host = lambda s: re.sub(r"simulated in [\d.]+ s", "", s)   # noqa: E731
    assert strip_host(shown["time"]) == strip_host(now["time"])
    assert now["roofline"].startswith(shown["roofline"].removesuffix("..."))
