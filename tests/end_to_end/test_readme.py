"""The README: its sample report is what the first command prints today (but for host timings), its
test command is the one CI runs, its Python examples run, and it stays a README (short, no history)."""
import re

from mtiasim.workloads import get_workload
from simulator import load_config
from simulator.machine import Machine

from doc_blocks import python_blocks, run_blocks
from repo import ROOT

README = ROOT / "README.md"
FIRST_COMMAND = "pip install -e . && mtiasim run matmul --shape 2048x2048x2048"


def _bash_blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, re.S)]


def test_the_readme_report_matches_the_simulator():
    text = README.read_text()
    assert FIRST_COMMAND in _bash_blocks(text)
    block = text.split("The report the first command prints")[1].split("```")[1]
    shown = {line.split()[0]: line.strip() for line in block.strip().splitlines()[1:]}
    rep = get_workload("matmul")(Machine(load_config("mtia-2i"), numerics=False), (2048, 2048, 2048), False)
    now = {line.split()[0]: line.strip() for line in str(rep).splitlines()[1:]}
    assert block.strip().splitlines()[0] == str(rep).splitlines()[0].removesuffix(" (timing only)")
    for key in ("work", "memory", "dram", "engines", "floors", "compulsory", "stalls"):
        assert shown[key] == now[key], key
    strip_host = lambda s: re.sub(r"simulated in [\d.]+ s", "", s)   # noqa: E731
    assert strip_host(shown["time"]) == strip_host(now["time"])
    assert now["roofline"].startswith(shown["roofline"].removesuffix("..."))


def test_the_readme_test_command_is_the_one_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    verbatim = ci[ci.index(next(line for line in ci if "the README's test command, verbatim" in line)) + 1]
    assert verbatim.startswith("pip install") and verbatim in _bash_blocks(README.read_text())


def test_the_readme_stays_short_and_current():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    assert not re.search(r"\b\d{4}-\d{2}-\d{2}\b", text), "a date: history goes to CHANGELOG.md"
    hashes = [h for h in re.findall(r"\b[0-9a-f]{7,40}\b", text) if re.search(r"[a-f]", h) and re.search(r"\d", h)]
    assert not hashes, f"commit hashes {hashes}: history goes to CHANGELOG.md"
    was = re.search(r"[^\n]*\bwas\b[^\n]*", text, re.I)
    assert not was, f"'was' in {was.group(0)!r}: the README says what is, CHANGELOG.md what changed"
    for link in re.findall(r"\]\(([\w./-]+)\)", text):          # a Markdown link to a file
        assert link.startswith("http") or (ROOT / link).exists(), f"the README links to {link}, which does not exist"


def test_the_readme_python_examples_run(tmp_path):
    blocks = [b for b in python_blocks(README) if b.marker != "skip"]
    assert blocks, "the README shows a kernel"
    done = run_blocks(blocks, tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "add_kernel on mtia-2i" in done.stdout          # the example prints its report
