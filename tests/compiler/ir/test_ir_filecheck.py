"""Tests of the FileCheck helper itself (tests/filecheck.py)."""
import pytest

from filecheck import check_ir

# launched on the reference interpreter unless MTIASIM_EXECUTOR names another (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("interpreter_by_default")

TEXT = """a = 1
b = add a, a
c = mul b, b
d = sub c, a"""


def test_check_and_next():
    check_ir(TEXT, """
        CHECK: add
        CHECK-NEXT: mul
        CHECK: sub
    """)


def test_check_regex_and_not():
    check_ir(TEXT, """
        CHECK: a = {{[0-9]+}}
        CHECK-NOT: div
        CHECK: d =
    """)


@pytest.mark.parametrize("patterns", ["CHECK: div", "CHECK: mul\nCHECK-NEXT: add", "CHECK: a = 1\nCHECK-NOT: mul\nCHECK: sub",
                                      "CHECK: sub\nCHECK: add"])
def test_failures_are_reported(patterns):
    with pytest.raises(AssertionError):
        check_ir(TEXT, patterns)
