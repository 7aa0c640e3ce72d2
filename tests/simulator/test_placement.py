"""Program placement is defined once (`simulator.launch`) and both executors follow it:
`tl.mtia.get_pe_id()` is the same on the interpreter and on the simulated chip for every grid and
mapping, and each mapping does what its name says."""
from __future__ import annotations

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
import compiler.runtime.mtia_executor  # noqa: F401  (registers the executor)
from simulator import use_config
from simulator.launch import PE_MAPPINGS, map_programs


@triton.jit
def pe_ids(out_ptr):
    pid = tl.program_id(0) + tl.num_programs(0) * (tl.program_id(1) + tl.num_programs(1) * tl.program_id(2))
    tl.store(out_ptr + pid, tl.mtia.get_pe_id())


def _pe_ids(grid, mapping, executor, config):
    out = np.full(int(np.prod(grid)), -1, np.int32)
    with use_config(config):
        pe_ids[grid](out, pe_mapping=mapping, executor=executor)
    return out


@pytest.mark.parametrize("mapping", PE_MAPPINGS)
@pytest.mark.parametrize("config, grid", [("mtia-small", (1,)), ("mtia-small", (3,)), ("mtia-small", (5,)),
                                          ("mtia-small", (13,)), ("mtia-small", (3, 2, 2)),
                                          ("mtia-2i", (100,)), ("mtia-2i", (130,)), ("mtia-2i", (7, 5))])
def test_get_pe_id_agrees_on_both_executors(mapping, config, grid):
    interp = _pe_ids(grid, mapping, "interpreter", config)
    mtia = _pe_ids(grid, mapping, "mtia", config)
    np.testing.assert_array_equal(interp, mtia)
    npes = 4 if config == "mtia-small" else 64
    n = interp.size
    assert interp.min() >= 0 and interp.max() < npes
    i = np.arange(n)
    if mapping == "round_robin":
        np.testing.assert_array_equal(interp, i % npes)
    elif mapping == "zigzag":
        np.testing.assert_array_equal(interp, np.where(i // npes % 2 == 0, i % npes, npes - 1 - i % npes))
    else:                         # contiguous blocks of ceil(n / PEs) ids, in order
        np.testing.assert_array_equal(interp, i // -(-n // npes))


@pytest.mark.parametrize("mapping", PE_MAPPINGS)
@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 1000])
def test_every_program_runs_once_in_order_on_its_pe(mapping, n):
    per_pe = map_programs((n, 1, 1), 64, mapping)
    assert len(per_pe) == 64
    allids = np.concatenate(per_pe)
    np.testing.assert_array_equal(np.sort(allids), np.arange(n))
    assert all((np.diff(p) > 0).all() for p in per_pe)
    assert max(len(p) for p in per_pe) == -(-n // 64)       # no PE holds more than its share
