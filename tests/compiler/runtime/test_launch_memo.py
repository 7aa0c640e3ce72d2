"""A timing-only launch identical to an earlier one reuses its record (compiler/runtime/launch_memo.py);
a launch that computes results always simulates; a data-dependent kernel is keyed by its data too."""
from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.runtime import launch_memo
from simulator.config import use_config
from simulator.machine import Machine


@triton.jit
def _add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    tl.store(out_ptr + i, tl.load(x_ptr + i, mask) + tl.load(y_ptr + i, mask), mask)


@triton.jit
def _gather(table_ptr, index_ptr, out_ptr, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rows = tl.load(index_ptr + i)
    tl.store(out_ptr + i, tl.load(table_ptr + rows))


def _arrays(n=4096):
    x = np.random.default_rng(0).random(n, dtype=np.float32)
    return x, x + 1, np.zeros_like(x)


def _launch(x, y, out, block=256, **kw):
    return _add[(triton.cdiv(x.size, block),)](x, y, out, x.size, BLOCK=block, executor="mtia", **kw)


def test_the_second_identical_timing_only_launch_does_not_simulate(simulations):
    x, y, out = _arrays()
    first = _launch(x, y, out, numerics=False)
    second = _launch(x, y, out, numerics=False)
    assert len(simulations) == 1
    assert (first.reused, second.reused) == (False, True)
    assert second.cycles == first.cycles and second.seconds == first.seconds
    assert second.report is first.report


def test_launches_computing_results_always_simulate(simulations):
    x, y, out = _arrays()
    _launch(x, y, out, numerics=False)
    for _ in range(2):
        out[:] = 0
        record = _launch(x, y, out)
        assert not record.reused
        np.testing.assert_array_equal(out, x + y)
    assert len(simulations) == 3


@pytest.mark.parametrize("change", ["shape", "block", "num_stages", "config", "switch"])
def test_a_launch_that_differs_in_anything_simulates(simulations, change):
    x, y, out = _arrays()
    _launch(x, y, out, numerics=False)
    if change == "shape":
        record = _launch(*_arrays(2048), numerics=False)
    elif change == "block":
        record = _launch(x, y, out, block=512, numerics=False)
    elif change == "num_stages":
        record = _launch(x, y, out, numerics=False, num_stages=2)
    elif change == "switch":
        record = _launch(x, y, out, numerics=False, mtia_options={"defer_stores": False})
    else:
        with use_config("mtia-small"):
            record = _launch(x, y, out, numerics=False)
    assert not record.reused and len(simulations) == 2


def test_a_launch_on_a_callers_machine_always_simulates(simulations):
    """Its memory state (a warm LLC) is the caller's, not a fresh machine's."""
    x, y, out = _arrays()
    machine = Machine(numerics=False)
    records = [_launch(x, y, out, numerics=False, machine=machine) for _ in range(2)]
    assert not any(r.reused for r in records) and len(simulations) == 2


def test_a_kernel_that_reads_its_indices_is_keyed_by_their_values(simulations):
    table = np.arange(1024, dtype=np.float32)
    out = np.zeros(256, np.float32)
    spread = (np.arange(256, dtype=np.int32) * 4) % 1024
    same_row = np.zeros(256, np.int32)
    for index in (spread, spread.copy(), same_row):
        record = _gather[(2,)](table, index, out, BLOCK=128, executor="mtia", numerics=False)
    assert len(simulations) == 2          # the copy of `spread` reused the first record, `same_row` did not
    assert not record.reused


def test_reuse_can_be_turned_off(simulations):
    x, y, out = _arrays()
    with launch_memo.disabled():
        for _ in range(2):
            assert not _launch(x, y, out, numerics=False).reused
    assert len(simulations) == 2


def test_the_interpreter_never_reuses(simulations):
    x, y, out = _arrays()
    records = [_add[(16,)](x, y, out, x.size, BLOCK=256, executor="interpreter", numerics=False) for _ in range(2)]
    assert not any(r.reused for r in records)




_SITE = """
import compiler as triton
import compiler.language as tl


@triton.jit
def {name}(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    tl.store(out_ptr + i, tl.load(x_ptr + i, mask) + tl.load(y_ptr + i, mask), mask)
"""


def _kernel_in_module(folder, name: str):
    """A kernel in a module file of its own, as Inductor writes one per generated kernel."""
    path = folder / f"{name}.py"
    path.write_text(_SITE.format(name=name))
    spec = importlib.util.spec_from_file_location(f"memo_site_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module            # the frontend reads the kernel's source through it
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_the_same_kernel_under_another_name_is_reused_under_its_own(simulations, tmp_path):
    """Inductor defines one template kernel under another name, in another module, at each call site."""
    x, y, out = _arrays()
    first, second = (_kernel_in_module(tmp_path, name)[(16,)](x, y, out, x.size, BLOCK=256, executor="mtia",
                                                              numerics=False)
                     for name in ("triton_mm_3", "triton_mm_7"))
    assert len(simulations) == 1 and second.reused and second.cycles == first.cycles
    assert (second.kernel, second.report.kernel) == ("triton_mm_7", "triton_mm_7")
