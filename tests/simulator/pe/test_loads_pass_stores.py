"""`pe.dma.loads_pass_waiting_stores` (off on mtia-2i): a store whose data is not written yet waits
aside, and later loads of other bytes start meanwhile. A load of the bytes the store writes still
waits for it, so a kernel reads back what it stored. Results on both executors against numpy, outputs
NaN-poisoned; the order of the transfers from a trace of the simulated run."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from simulator import get_config, use_config
from simulator.machine import Machine

from dma_starts import DmaStarts
from executors import EXECUTORS

PASS = {"pe.dma.loads_pass_waiting_stores": True}


@triton.jit
def _exp_rows(X, Out, N: tl.constexpr):
    """Each program stores exp of its row: the store waits for the SE, the next program's load does not
    touch its bytes."""
    r = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(Out + r, tl.exp(tl.load(X + r)))


@triton.jit
def _store_then_reload(X, Buf, Out, N: tl.constexpr):
    """The reload of Buf reads the bytes the store before it writes."""
    r = tl.arange(0, N)
    tl.store(Buf + r, tl.exp(tl.load(X + r)))
    tl.store(Out + r, tl.load(Buf + r) + 1.0)


def _run_rows(executor, passing, trace=None):
    x = np.random.default_rng(5).standard_normal((8, 512)).astype(np.float32)
    out = np.full_like(x, np.nan)
    if executor == "interpreter":
        _exp_rows[(8,)](x, out, N=512, executor="interpreter")
    else:
        with use_config("mtia-small", PASS if passing else {}):
            rec = _exp_rows[(8,)](x, out, N=512, executor="mtia", machine=Machine(get_config(), trace=trace))
        assert rec.executor == "mtia" and rec.cycles > 0
    np.testing.assert_allclose(out, np.exp(x), rtol=1e-5)
    return out


@pytest.mark.parametrize("executor", EXECUTORS)
def test_next_programs_load_passes_a_store_waiting_for_its_data(executor):
    """8 programs on 4 PEs: with the switch, each PE's second program loads before its first program's
    store starts (that store waits for the SE's exp); in program order without it. The same bits."""
    if executor == "interpreter":
        _run_rows(executor, True)
        return
    orders = {}
    for passing in (False, True):
        t = DmaStarts()
        out = _run_rows(executor, passing, t)
        orders[passing] = out
        for pe in {e[0] for e in t.dma}:
            mine = sorted((e for e in t.dma if e[0] == pe), key=lambda e: e[3])
            first, second = sorted({e[1] for e in mine})
            store = next(e[3] for e in mine if e[1] == first and e[2] == "dma.out")
            load = next(e[3] for e in mine if e[1] == second and e[2] == "dma.in")
            assert (load < store) == passing, (pe, mine)
    np.testing.assert_array_equal(orders[False], orders[True])


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("passing", [False, True])
def test_a_load_of_the_bytes_a_waiting_store_writes_waits_for_it(executor, passing):
    x = np.random.default_rng(6).standard_normal(1024).astype(np.float32)
    buf, out = np.full_like(x, np.nan), np.full_like(x, np.nan)
    if executor == "mtia":
        with use_config("mtia-small", PASS if passing else {}):
            rec = _store_then_reload[(1,)](x, buf, out, N=1024, executor="mtia")
        assert rec.cycles > 0
    else:
        _store_then_reload[(1,)](x, buf, out, N=1024, executor="interpreter")
    np.testing.assert_allclose(buf, np.exp(x), rtol=1e-5)
    np.testing.assert_allclose(out, np.exp(x) + 1.0, rtol=1e-5)
