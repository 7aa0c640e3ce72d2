"""The ```python blocks of docs/*.md run as written (tests/doc_blocks.py: one interpreter per page, the
blocks in order; `<!-- docs-test: skip -->` before a block leaves an illustrative one out and
`<!-- docs-test: slow -->` keeps a torch or Inductor one to the slow tests)."""
import pytest

from doc_blocks import python_blocks, run_blocks
from repo import ROOT

PAGES = sorted((ROOT / "docs").glob("*.md"))


def _cases():
    for page in PAGES:
        blocks = [b for b in python_blocks(page) if b.marker != "skip"]
        if blocks:
            slow = any(b.marker == "slow" for b in blocks)
            yield pytest.param(page, blocks, id=page.name, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("page, blocks", _cases())
def test_the_page_code_runs(page, blocks, tmp_path):
    done = run_blocks(blocks, tmp_path, timeout=900 if any(b.marker == "slow" for b in blocks) else 300)
    assert done.returncode == 0, f"{page.name}: a code block failed:\n{done.stderr[-3000:]}"


def test_the_report_page_shows_the_readme_report():
    """docs/report.md explains the README's sample report (which test_readme checks against the simulator)."""
    sample = (ROOT / "README.md").read_text().split("The report the first command prints")[1].split("```")[1]
    shown = (ROOT / "docs" / "report.md").read_text().split("```")[1]
    assert shown.strip().splitlines() == [ln for ln in sample.strip().splitlines() if not ln.strip().startswith("check")]


def test_an_unknown_marker_is_refused(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- docs-test: skipp -->\n```python\nprint(1)\n```\n")
    with pytest.raises(ValueError, match="unknown docs-test marker 'skipp'"):
        python_blocks(page)
