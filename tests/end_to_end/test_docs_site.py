"""The documentation site builds with warnings as errors (`mkdocs build --strict`: a broken link, a page
missing from the nav, a generator that fails), and its generated reference pages say what the code says."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest
from pydantic import BaseModel

from repo import ROOT

# the site must build wherever the suite runs: the test extra installs mkdocs (no skip when it is missing)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    missing = [m for m in ("mkdocs", "material") if importlib.util.find_spec(m) is None]
    assert not missing, f"{', '.join(missing)} not installed: the test extra has them (pip install -e '.[test]')"
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "MTIASIM_CACHE_DIR": "off",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def _text(site, page: str) -> str:
    return (site / page / "index.html").read_text()


def test_every_page_of_the_nav_is_built(site):
    for page in ("getting-started", "kernel-authors", "architects", "pytorch", "report", "triton-compatibility",
                 "timing-model", "reference/config", "reference/cli", "reference/isa", "reference/performance"):
        assert (site / page / "index.html").exists(), page


def test_the_config_schema_has_every_field_with_its_range_and_reason(site):
    from simulator.config import load_config
    html = _text(site, "reference/config")
    cfg = load_config("mtia-2i")

    def keys(model, prefix=""):
        # a field holding a section (a pydantic model) is a table of its own; a dict keyed by dtype
        # (macs_per_cycle, dpe_pj_per_mac, ...) is one field
        for k in type(model).model_fields:
            v = getattr(model, k)
            if isinstance(v, BaseModel):
                yield from keys(v, f"{prefix}{k}.")
            else:
                yield prefix + k
    for key in keys(cfg):
        assert f"<code>{key}</code>" in html, key
    assert "Typical LPDDR5 loaded latency" in html         # a value's reason, from configs/mtia-2i.yaml
    assert "1 MB/s to 10 PB/s" in html                      # a range's reason, from simulator/config.py


def test_the_cli_reference_has_every_command(site):
    from mtiasim import cli
    cli.build_parser([])
    html = _text(site, "reference/cli")
    for name in cli.COMMANDS:
        assert f"usage: mtiasim {name}" in html, name
    assert "--timing-only" in html and "my_rmsnorm" not in html


def test_the_isa_reference_has_every_instruction(site):
    import isa
    html = _text(site, "reference/isa")
    for mnemonic in isa.REGISTRY:
        assert f"<code>{mnemonic}" in html, mnemonic


def test_the_performance_page_renders_the_committed_benchmark(site):
    result = json.loads((ROOT / "docs" / "perf" / "kernels.json").read_text())
    html = _text(site, "reference/performance")
    for row in result["rows"]:
        assert f"{row['cycles']:,}" in html and row["kernel"].replace("^", "") in html.replace("^", ""), row["kernel"]
