"""No module of ours reads another module's private (`_name`) names: what modules share is public where it
is defined. Checked on the source (ast), imports inside functions included:

- `from pkg.mod import _name` and `import pkg._mod`, where pkg is one of our packages;
- `mod._name`, where `mod` names one of our modules (imported as a module);
- a private submodule is fine where it is the importer's own package's (`from ._members import f`, or
  `from . import _members` in compiler/language/core.py): the package keeps it to itself.
Dunders (`__version__`, `__all__`) are not private names.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

from repo import ROOT

PACKAGES = ("isa", "compiler", "simulator", "mtiasim")

def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_name(path: Path) -> tuple[str, bool]:
    """(dotted module name, whether it is a package's __init__)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def _is_module(dotted: str) -> bool:
    p = ROOT.joinpath(*dotted.split("."))
    return p.with_suffix(".py").is_file() or p.is_dir()


def _own_submodule(dotted: str, package: str) -> bool:
    """Whether `dotted` is a module whose only private part is its last, directly inside `package`."""
    head, _, last = dotted.rpartition(".")
    return head == package and _private(last) and not any(_private(p) for p in head.split(".")) and \
        _is_module(dotted)


def violations(path: Path) -> list[str]:
    mod, is_pkg = _module_name(path)
    package = mod if is_pkg else mod.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    out = []
    modules: dict[str, str] = {}        # local name -> the module of ours it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                src = ".".join(base + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            if src.split(".")[0] not in PACKAGES:
                continue
            if any(_private(p) for p in src.split(".")) and not _own_submodule(src, package):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: from {src} import ...")
            for alias in node.names:
                full = f"{src}.{alias.name}"
                if _private(alias.name) and not _own_submodule(full, package):
                    out.append(f"{path.relative_to(ROOT)}:{node.lineno}: from {src} import {alias.name}")
                if _is_module(full):
                    modules[alias.asname or alias.name] = full
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] not in PACKAGES:
                    continue
                if any(_private(p) for p in parts) and not _own_submodule(alias.name, package):
                    out.append(f"{path.relative_to(ROOT)}:{node.lineno}: import {alias.name}")
                modules[alias.asname or parts[0]] = alias.name if alias.asname else parts[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            chain, value = [], node.value
            while isinstance(value, ast.Attribute):          # pkg.mod._name: the dotted module it reads
                chain.insert(0, value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in modules:
                target = ".".join([modules[value.id], *chain])
                if _is_module(target) and not _own_submodule(f"{target}.{node.attr}", package):
                    out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {target}.{node.attr}")
    return out


def _sources():
    for pkg in PACKAGES:
        yield from sorted((ROOT / pkg).rglob("*.py")) if (ROOT / pkg).is_dir() else ()


def test_no_module_reads_another_modules_private_names():
    found = [v for path in _sources() for v in violations(path)]
    assert not found, "\n".join(found)


def test_the_check_finds_each_kind_of_private_read(tmp_path, monkeypatch):
    pkg = tmp_path / "compiler" / "demo"
    pkg.mkdir(parents=True)
    (tmp_path / "compiler" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "_own.py").write_text("")
    (pkg / "helpers.py").write_text("_hidden = 1\n")
    (pkg / "user.py").write_text("from .helpers import _hidden\nfrom . import helpers\nx = helpers._hidden\n"
                                 "from ._own import thing\nfrom . import _own\ny = helpers.__name__\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = violations(pkg / "user.py")
    assert [f.split(": ", 1)[1] for f in found] == ["from compiler.demo.helpers import _hidden",
                                                    "compiler.demo.helpers._hidden"]
