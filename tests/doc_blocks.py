"""The ```python blocks of a Markdown file, and how the docs tests run them.

Blocks run in file order in one fresh interpreter per file, sharing one namespace (a later block may
use what an earlier one defined), each compiled under the name `FILE:LINE` so that a traceback points
at the block in the page. The HTML comment on the line before a block marks it:

    <!-- docs-test: skip -->    illustrative (names a model or file the page does not define): not run
    <!-- docs-test: slow -->    runs only in the slow tests (`pytest -m slow`), torch and Inductor ones

An unmarked block always runs.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from repo import ROOT

FENCE = re.compile(r"^```python\s*$")
MARKER = re.compile(r"^<!--\s*docs-test:\s*(\w+)\s*-->\s*$")
MARKERS = ("skip", "slow")

# execs each block in one namespace, under its page's name and line
RUNNER = """
import json, sys
ns = {"__name__": "__main__"}
for b in json.load(open(sys.argv[1])):
    exec(compile("\\n" * b["line"] + b["code"], b["where"].rpartition(":")[0], "exec"), ns)
"""


@dataclass(frozen=True)
class Block:
    where: str          # "docs/page.md:12"
    line: int           # the line of the block's first code line, 0-based
    code: str
    marker: str         # "", "skip" or "slow"


def python_blocks(path: Path) -> list[Block]:
    lines = path.read_text().splitlines()
    blocks, i = [], 0
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    while i < len(lines):
        if FENCE.match(lines[i]):
            start = i + 1
            end = next(j for j in range(start, len(lines)) if lines[j].startswith("```"))
            m = MARKER.match(lines[i - 1]) if i else None
            marker = m.group(1) if m else ""
            if marker and marker not in MARKERS:
                raise ValueError(f"{rel}:{i}: unknown docs-test marker {marker!r} (known: {', '.join(MARKERS)})")
            blocks.append(Block(f"{rel}:{start + 1}", start, "\n".join(lines[start:end]) + "\n", marker))
            i = end
        i += 1
    return blocks


def run_blocks(blocks: list[Block], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    """Run the blocks in a fresh interpreter in `cwd` (files they write land there), on this checkout's
    packages, with no disk cache and no display."""
    spec = cwd / "blocks.json"
    spec.write_text(json.dumps([asdict(b) for b in blocks]))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           "MTIASIM_CACHE_DIR": "off", "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-c", RUNNER, str(spec)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
