"""These tests pin the frontend and the reference interpreter, so they launch on the interpreter
unless MTIASIM_EXECUTOR names another executor (MTIASIM_EXECUTOR=mtia runs them on the simulator)."""
import os

import pytest


@pytest.fixture(autouse=True)
def _executor_for_frontend_tests():
    from compiler.runtime import use_executor
    with use_executor(os.environ.get("MTIASIM_EXECUTOR", "interpreter")):
        yield
