"""The hardware target is passed down, not read from a global: the compiler reads the user's default config
(`simulator.get_config()`) only in compiler/runtime/target.py, and a launch under `use_config(X)` still
compiles and runs for X on both executors, as the driver's device properties describe X."""
import ast
import dataclasses

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.runtime.executor import LaunchOptions
from simulator.config import load_config, use_config

from executors import EXECUTORS
from repo import ROOT

COMPILER = ROOT / "compiler"

# where the compiler may call get_config(): (file, function) -> why
RESOLVES_THE_DEFAULT = {("runtime/target.py", "default_config"): "the one reader of the user's default"}


def _get_config_calls():
    """(file relative to compiler/, enclosing function) of every call of a name or attribute `get_config`."""
    calls = set()
    for path in sorted(COMPILER.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        rel = path.relative_to(COMPILER).as_posix()

        def visit(node, where, rel=rel):
            for child in ast.iter_child_nodes(node):
                inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else where
                if isinstance(child, ast.Call):
                    f = child.func
                    if (isinstance(f, ast.Name) and f.id == "get_config") or \
                            (isinstance(f, ast.Attribute) and f.attr == "get_config"):
                        calls.add((rel, where))
                visit(child, inner, rel)
        visit(tree, "<module>")
    return calls


def test_get_config_is_called_only_where_the_default_is_resolved():
    calls = _get_config_calls()
    assert calls == set(RESOLVES_THE_DEFAULT), (
        f"get_config() read outside compiler/runtime/target.py: {sorted(calls - set(RESOLVES_THE_DEFAULT))}; "
        f"take the config from the launch (options.config), the driver (runtime/driver.py) or an argument")


@triton.jit
def _where_each_program_ran(out_ptr):
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, tl.mtia.get_pe_id())


# mtia-small with one column of PEs (2, not 4) and half its local store
NARROW = load_config("mtia-small", {"grid.cols": 1, "pe.local_store_kib": 192})


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_launch_under_use_config_runs_on_that_config(executor):
    wide, narrow = np.full(8, -1, np.int32), np.full(8, -1, np.int32)
    with use_config("mtia-small"):
        _where_each_program_ran[(8,)](wide, executor=executor)
    with use_config(NARROW):
        rec = _where_each_program_ran[(8,)](narrow, executor=executor)
        props = triton.runtime.driver.active.utils.get_device_properties(0)
    assert sorted(set(wide.tolist())) == [0, 1, 2, 3]
    assert sorted(set(narrow.tolist())) == [0, 1]                # the programs went to X's two PEs
    assert (props["multiprocessor_count"], props["max_shared_mem"]) == (2, 192 << 10)
    if executor == "mtia":
        assert rec.config == NARROW.name and rec.report.config == NARROW.name


def test_the_launch_hands_its_resolved_config_to_the_executor():
    seen = []

    class Recording:
        name = "target-recording"

        def launch(self, compiled, grid, args, options):
            seen.append(options.config)
            from compiler.runtime.executor import RunRecord
            return RunRecord(compiled.name, tuple(grid), self.name)

    out = np.zeros(2, np.int32)
    with triton.runtime.use_executor(Recording()), use_config(NARROW):
        _where_each_program_ran[(2,)](out)
    assert seen == [NARROW]


def test_launch_options_are_typed_fields():
    opts = LaunchOptions(numerics=False, max_steps=10)
    assert (opts.numerics, opts.max_steps, opts.config, opts.machine) == (False, 10, None, None)
    assert opts.extra == {"numerics": False, "max_steps": 10}      # the keywords given, by name
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.numerics = True                                         # frozen
