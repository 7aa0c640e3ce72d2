"""Shared test setup.

- Every simulation any test runs is checked against an independent roofline floor: it may never
  finish faster than its work at the config's peak rates allows; and its energy is checked to add up
  and to agree with its counts and its time (tests/energy_check.py).
- Every kernel any test compiles checks that each printed IR stage parses back to the same text
  (compiler.runtime.compile.CHECK_ROUNDTRIP).
- Property tests are derandomized: a run of the suite tries the same cases every time, so CI's
  verdict does not depend on luck. `HYPOTHESIS_PROFILE=explore pytest tests/end_to_end/test_properties.py`
  searches new random cases; what it finds is pinned as an explicit `@example`.
"""
from __future__ import annotations

import os

# No disk cache while the suite collects and runs: every process of a run (xdist's workers, the
# subprocesses tests start) compiles and simulates what it launches, as the tests assume; a test of the
# cache points MTIASIM_CACHE_DIR at its own tmp_path.
os.environ["MTIASIM_CACHE_DIR"] = "off"

import pytest
from energy_check import assert_energy_consistent
from hypothesis import settings

import compiler.runtime.compile as _compile
from simulator.machine import Machine

from floor import assert_above_floor

_compile.CHECK_ROUNDTRIP = True
settings.register_profile("suite", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))
_run = Machine.run


def _checked_run(self, *a, **kw):
    report = _run(self, *a, **kw)
    assert_above_floor(report, self.cfg)
    assert_energy_consistent(report, self.cfg)
    return report


def pytest_collection_modifyitems(config, items):
    """Modules with a `slow` test run first, each module's tests in their own order and together (their
    module fixtures are built once). xdist's worksteal hands each worker a contiguous share of this list
    and an idle worker takes the tail of another's queue: long cases start early, and the run ends on
    short ones, not on one worker finishing a minute-long notebook while the other idles."""
    has_slow = {item.nodeid.split("::")[0] for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in has_slow)      # stable


@pytest.fixture(autouse=True, scope="session")
def _floor_check_on_every_run():
    Machine.run = _checked_run
    yield
    Machine.run = _run


@pytest.fixture(autouse=True)
def _no_cache_carried_between_tests(monkeypatch):
    """Each test simulates what it launches: the disk cache is off (a test of it sets MTIASIM_CACHE_DIR to
    its tmp_path) and no launch record or tuned block size carries over from an earlier test, which may
    have patched the simulator (compiler/runtime/launch_memo.py)."""
    from compiler.inductor import tuning
    from compiler.runtime import launch_memo
    monkeypatch.setenv("MTIASIM_CACHE_DIR", "off")
    launch_memo.clear()
    tuning.clear()


@pytest.fixture
def interpreter_by_default():
    """For the suites that pin the frontend and the reference interpreter (`pytestmark =
    pytest.mark.usefixtures("interpreter_by_default")`): they launch on the interpreter unless
    MTIASIM_EXECUTOR names another executor (end_to_end/test_semantics_on_mtia.py runs three of them with
    MTIASIM_EXECUTOR=mtia)."""
    from compiler.runtime import use_executor
    with use_executor(os.environ.get("MTIASIM_EXECUTOR", "interpreter")):
        yield
