"""tl.mtia extensions on the simulated chip: re_reduce over the reduction network (get_pe_id: test_placement.py)."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.errors import KernelRuntimeError
from simulator import use_config


@triton.jit
def all_reduce_kernel(x_ptr, out_ptr, OP: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    y = tl.mtia.re_reduce(tl.load(x_ptr + offs), OP)
    tl.store(out_ptr + offs, y)


@pytest.mark.parametrize("config, programs", [("mtia-small", 4), ("mtia-2i", 64), ("mtia-2i", 7)])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_re_reduce_gives_every_program_the_combined_value(config, programs, op):
    rng = np.random.default_rng(programs)
    x = rng.standard_normal((programs, 32)).astype(np.float32)
    out = np.full_like(x, np.nan)
    with use_config(config):
        run = all_reduce_kernel[(programs,)](x, out, OP=op, BLOCK=32)
    want = {"sum": x.sum(0), "max": x.max(0), "min": x.min(0)}[op]
    np.testing.assert_allclose(out, np.broadcast_to(want, x.shape), rtol=1e-5, atol=1e-5)
    assert run.cycles > 0


def test_re_reduce_needs_one_program_per_pe():
    x = np.ones((5, 32), np.float32)
    out = np.full_like(x, np.nan)
    with use_config("mtia-small"), pytest.raises(KernelRuntimeError, match=r"needs every program on its own PE "
                                                                           r"at once: the grid has 5 programs for 4 PEs"):
        all_reduce_kernel[(5,)](x, out, OP="sum", BLOCK=32)
    assert np.isnan(out).all()                     # the arrays are left as they were


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 1024}),
                          triton.Config({"BLOCK": 256})], key=["n"])
@triton.jit
def tuned_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def test_autotune_picks_the_config_with_the_fewest_simulated_cycles():
    x = np.random.default_rng(0).random(20_000, dtype=np.float32)
    out = np.full_like(x, np.nan)
    with use_config("mtia-small"):
        tuned_add[lambda meta: (triton.cdiv(x.size, meta["BLOCK"]),)](x, x, out, x.size)
    np.testing.assert_array_equal(out, 2 * x)
    timings = tuned_add.timings[(x.size,)] if (x.size,) in tuned_add.timings else next(iter(tuned_add.timings.values()))
    best = min(timings, key=timings.get)
    assert tuned_add.best_config.kwargs["BLOCK"] == [64, 1024, 256][best]
    assert len(set(timings.values())) == 3                       # three different simulated costs
    assert tuned_add.best_config.kwargs["BLOCK"] != 64           # tiny blocks pay a command per 64 elements


@pytest.mark.parametrize("workers, launches_here", [(1, [False, False, False, True]), (2, [False, True])])
def test_autotune_trials_run_timing_only_and_the_winner_computes(monkeypatch, workers, launches_here):
    # the first trial runs here, the others here too (workers=1) or in worker processes, unseen by the spy
    monkeypatch.setattr(tuned_add, "workers", workers)
    monkeypatch.setattr(tuned_add, "best_configs", {})
    x = np.random.default_rng(1).random(9_000, dtype=np.float32)
    out = np.full_like(x, np.nan)
    records = []
    run = tuned_add.fn.run

    def spy(*args, **kwargs):
        record = run(*args, **kwargs)
        records.append(record.numerics)
        return record
    monkeypatch.setattr(tuned_add.fn, "run", spy)
    with use_config("mtia-small"):
        tuned_add[lambda meta: (triton.cdiv(x.size, meta["BLOCK"]),)](x, x, out, x.size)
    assert records == launches_here
    np.testing.assert_array_equal(out, 2 * x)
