"""Make `import compiler` find the project's package, not this test directory.

pytest puts tests/ on sys.path (tests/conftest.py lives there), and there this directory,
tests/compiler/ (no __init__.py), is an implicit namespace package named `compiler` that shadows the
real one, which the editable install only offers *after* the path scan. Putting the repository root
first on sys.path restores the real package. (A `pythonpath = [".", "tests"]` in pyproject's pytest
options would do the same for the whole suite.)
"""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))
if sys.path[:1] != [_ROOT]:
    sys.path.insert(0, _ROOT)
if _HERE not in sys.path:          # shared helpers (check_ir) are imported by module name
    sys.path.append(_HERE)
_mod = sys.modules.get("compiler")
if _mod is not None and getattr(_mod, "__file__", None) is None:   # the namespace impostor got cached
    for _name in [n for n in sys.modules if n == "compiler" or n.startswith("compiler.")]:
        del sys.modules[_name]


# Every kernel compiled by these tests also checks that each printed IR stage parses back to the
# same text (see compiler.runtime.compile.CHECK_ROUNDTRIP).
import compiler.runtime.compile as _compile  # noqa: E402

_compile.CHECK_ROUNDTRIP = True


# These tests pin the frontend and the reference interpreter, so they launch on the interpreter
# unless MTIASIM_EXECUTOR names another executor (MTIASIM_EXECUTOR=mtia runs them on the simulator).
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _executor_for_frontend_tests():
    from compiler.runtime import use_executor
    with use_executor(os.environ.get("MTIASIM_EXECUTOR", "interpreter")):
        yield
