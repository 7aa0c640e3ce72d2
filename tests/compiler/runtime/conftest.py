"""Fixtures of the runtime's tests."""
import pytest

from compiler.runtime import launch_memo
from simulator.machine import Machine


@pytest.fixture
def simulations(monkeypatch):
    """The number of Machine.run calls so far (a list: its length), from an empty launch memo."""
    calls = []
    run = Machine.run

    def counted(self, *a, **kw):
        calls.append(1)
        return run(self, *a, **kw)
    monkeypatch.setattr(Machine, "run", counted)
    launch_memo.clear()
    return calls
