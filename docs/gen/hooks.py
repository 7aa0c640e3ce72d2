"""The MkDocs hook that adds the generated reference pages (mkdocs.yml: `hooks:`).

Each page is written at build time by a generator beside this file from the project's own modules, so
that the reference cannot drift from the code:

    reference/config.md        gen_config.py        the config schema: the pydantic models of simulator/config.py
    reference/cli.md           gen_cli.py           the command line: each command's argparse parser
    reference/isa.md           gen_isa.py           the instruction set: isa's declarations and their docstrings
    reference/performance.md   gen_performance.py   the kernel benchmark: docs/perf/kernels.json, as the tool wrote it
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

from mkdocs.structure.files import File

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent                    # the repository: the generators import its packages from here

PAGES = {"reference/config.md": "gen_config", "reference/cli.md": "gen_cli", "reference/isa.md": "gen_isa",
         "reference/performance.md": "gen_performance"}


def on_files(files, config):
    for path in (str(ROOT), str(HERE)):
        if path not in sys.path:
            sys.path.insert(0, path)
    for uri, module in PAGES.items():
        text = importlib.import_module(module).page()
        files.append(File.generated(config, uri, content=text))
    return files
