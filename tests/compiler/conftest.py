"""Make `import compiler` find the project's package, not this test directory.

pytest puts tests/ on sys.path (tests/conftest.py lives there), and there this directory,
tests/compiler/ (no __init__.py), is an implicit namespace package named `compiler` that shadows the
real one, which the editable install only offers *after* the path scan. Putting the repository root
first on sys.path restores the real package. (A `pythonpath = ["."]` in pyproject's pytest options
would do the same for the whole suite.)
"""
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if sys.path[:1] != [_ROOT]:
    sys.path.insert(0, _ROOT)
_mod = sys.modules.get("compiler")
if _mod is not None and getattr(_mod, "__file__", None) is None:   # the namespace impostor got cached
    for _name in [n for n in sys.modules if n == "compiler" or n.startswith("compiler.")]:
        del sys.modules[_name]
