"""compiler.inductor without the triton package (the `torch` extra alone) is refused at its entry with
what to install, not deep inside Inductor ("LoweringException: TypeError: object() takes no arguments")."""
from __future__ import annotations

import sys

import pytest
import torch

import compiler.inductor as ci
from compiler.inductor import hooks

_ADVICE = r"needs the triton package.*pip install -e '\.\[inductor\]'"


@pytest.fixture
def without_triton(monkeypatch):
    monkeypatch.setitem(sys.modules, "triton", None)       # `import triton` now raises ImportError


def test_simulate_without_triton_says_what_to_install(without_triton):
    with pytest.raises(ImportError, match=_ADVICE):
        ci.simulate(torch.nn.Linear(4, 4), torch.randn(2, 4))


def test_the_dynamo_backend_without_triton_says_what_to_install(without_triton):
    with pytest.raises(ImportError, match=_ADVICE):
        with hooks.installed():
            pass
