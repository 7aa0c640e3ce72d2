"""The packages' layering: `isa` at the bottom, the chip model (`simulator`) and the compiler above it,
the application (`mtiasim`: the CLI, sweeps, workloads, charts, benchmarks) on top. A package never
imports one above it, not even inside a function, so the chip model and the compiler can be used (and
tested) without the tools that drive them. Read from the source with `ast`, every import statement."""
import ast
from pathlib import Path

import pytest

from repo import ROOT

# package -> the top-level packages of this project it must not import
FORBIDDEN = {
    "isa": {"simulator", "compiler", "mtiasim"},
    "simulator": {"compiler", "mtiasim"},
    "compiler": {"mtiasim"},
}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in a file; relative imports stay inside their
    own package, so only absolute ones can cross a layer."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
    return out


def private_names(path: Path) -> list[tuple[int, str]]:
    """(line, 'module.name') of every `from module import _name` in a file (a dunder is not private)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            out += [(node.lineno, f"{module}.{a.name}") for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")]
    return out


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_package_imports_one_above_it(package):
    bad = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for line, module in imported_modules(path):
            if module.split(".")[0] in FORBIDDEN[package]:
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports {module}")
    assert not bad, "\n".join(bad)


def _resolved(path: Path, node: ast.ImportFrom) -> str:
    """The absolute module a `from ... import` names, relative ones resolved against the file's package."""
    if node.level == 0:
        return node.module or ""
    package = list(path.relative_to(ROOT).parent.parts)
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def test_instruction_semantics_import_no_timing_model():
    """simulator/semantics/ says what each instruction computes; the PEs (pe/), the memory system (chip/)
    and the machine charge the time. The timing side calls the semantics, never the reverse."""
    bad = []
    for path in sorted((ROOT / "simulator" / "semantics").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [_resolved(path, node)] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            bad += [f"{path.relative_to(ROOT)}:{node.lineno}: imports {n}" for n in names
                    if n.startswith(("simulator.pe", "simulator.chip", "simulator.machine"))]
    assert not bad, "\n".join(bad)


def test_the_application_imports_no_private_name():
    bad = [f"{path.relative_to(ROOT)}:{line}: imports {name}"
           for path in sorted((ROOT / "mtiasim").rglob("*.py")) for line, name in private_names(path)]
    assert not bad, "\n".join(bad)


def test_the_checks_see_imports_inside_functions(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from mtiasim.plots import roofline_chart\n    from .x import _y\n")
    assert imported_modules(f) == [(2, "mtiasim.plots")]
    assert private_names(f) == [(3, ".x._y")]
