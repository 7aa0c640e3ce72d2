"""Printed IR parses back to the same text, for every kernel of the kernel tests and every stage.

(Every compile in this test suite also checks this on the fly: tests/conftest.py turns on
compiler.runtime.compile.CHECK_ROUNDTRIP. This file does it explicitly, stage by stage.)"""
import importlib.util
import inspect
import itertools
from pathlib import Path

import pytest

import compiler.runtime.compile as compile_module
from compiler.ir import parse_module, print_module, verify
from compiler.runtime import JITFunction, use_executor

from repo import TESTS

# launched on the reference interpreter unless MTIASIM_EXECUTOR names another (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("interpreter_by_default")

# test files (under tests/) whose kernels are compiled here; imported by path, as pytest imports them
KERNEL_MODULES = ["compiler/interpreter/test_interp_kernels.py", "compiler/frontend/test_frontend_ir.py",
                  "compiler/language/test_language_random.py"]


def _import(path: str):
    """A test file as a module of its own (its folder names, compiler/..., would shadow our packages)."""
    spec = importlib.util.spec_from_file_location(f"roundtrip_{Path(path).stem}", TESTS / path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_all_tests(mod):
    """Call every test function of `mod` (expanding parametrize marks) so its kernels get compiled."""
    for name, fn in inspect.getmembers(mod, inspect.isfunction):
        if not name.startswith("test_"):
            continue
        marks = [m for m in getattr(fn, "pytestmark", []) if m.name == "parametrize"]
        grids = []
        for m in marks:
            names = [n.strip() for n in m.args[0].split(",")] if isinstance(m.args[0], str) else list(m.args[0])
            values = [v if len(names) > 1 else (v,) for v in m.args[1]]
            grids.append([dict(zip(names, v)) for v in values])
        for combo in itertools.product(*grids) if grids else [()]:
            kwargs = {k: v for d in combo for k, v in d.items()}
            fn(**kwargs)


@pytest.mark.parametrize("module_name", KERNEL_MODULES)
def test_every_stage_of_every_kernel_round_trips(module_name):
    mod = _import(module_name)
    with use_executor("interpreter"):        # whatever executor other tests left selected
        run_all_tests(mod)
    kernels = [v for v in vars(mod).values() if isinstance(v, JITFunction) and v.cache]
    assert kernels
    checked = 0
    for k in kernels:
        for compiled in k.cache.values():
            for stage in compiled.asm:
                if not stage.startswith("ir"):
                    continue                  # backend stages (assembly, C++) are not IR
                text = compiled.asm[stage]
                module = parse_module(text)
                verify(module)
                assert print_module(module) == text, f"{k.__name__} {stage}"
                checked += 1
    assert checked >= 4 * len(kernels)


def test_the_suite_checks_round_trips_on_every_compile():
    assert compile_module.CHECK_ROUNDTRIP
