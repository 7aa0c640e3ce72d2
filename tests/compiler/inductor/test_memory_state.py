"""A model run's kernels sharing the chip's LLC (estimate/simulate memory_state="carried"): what carrying
moves against isolated kernels, the dirty lines drained at the end, and the launch memo kept sound."""
import numpy as np
import pytest
import torch
import torch.nn as nn

from compiler.inductor import estimate, simulate
from compiler.inductor.examples import DecoderBlock, make_mlp
from compiler.runtime import launch_memo
from simulator import get_config


class Stack(nn.Module):
    """Decoder blocks one after another; `shared`: one block applied every time (its weights stay warm)."""

    def __init__(self, layers=3, shared=False):
        super().__init__()
        block = DecoderBlock() if shared else None
        self.layers = nn.ModuleList(block or DecoderBlock() for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def _meta_stack(shared=False, layers=3):
    with torch.device("meta"):
        return Stack(layers, shared=shared).eval(), torch.randn(2, 16, 64)


def _estimate(model, x, memory_state, memo):
    launch_memo.clear()
    if memo:
        return estimate(model, x, memory_state=memory_state)
    with launch_memo.disabled():
        return estimate(model, x, memory_state=memory_state)


@pytest.fixture(scope="module")
def runs():
    # two blocks: the second block's kernels find the first's lines warm as a third block's would find the
    # second's (each of the two runs simulates every launch: the memo is off)
    model, x = _meta_stack(layers=2)
    return {m: _estimate(model, x, m, memo=False) for m in ("carried", "isolated")}


def test_carried_kernels_find_warm_lines_and_the_dirty_ones_are_drained(runs):
    carried, isolated = runs["carried"], runs["isolated"]
    assert (carried.memory_state, isolated.memory_state) == ("carried", "isolated")
    moves = carried.memory_moves()
    assert moves["warm_read_bytes"] > 0 and isolated.memory_moves()["warm_read_bytes"] == 0
    # the dirty lines the last kernel left in the LLC are what the run drains, at no more than DRAM's peak
    left = carried.kernels[-1].report.llc["dirty_bytes"]
    assert left > 0 and carried.drain["bytes"] == left
    cfg = get_config()
    assert carried.drain["cycles"] >= left / (cfg.dram.bandwidth_gbps / cfg.clock_ghz)
    assert carried.cycles == sum(k.cycles for k in carried.kernels) + carried.drain["cycles"]
    assert isolated.drain == {} and isolated.cycles == sum(k.cycles for k in isolated.kernels)
    assert "found warm" in carried.table() and "isolated kernels" in isolated.table()
    rates = [k.llc_hit_rate for k in carried.kernels]
    assert all(0 <= r <= 1 for r in rates) and carried.to_dict()["kernels"][1]["llc_hit_rate"] == rates[1]


def test_carried_kernels_differ_from_isolated_ones_only_where_they_found_lines_warm(runs):
    carried, isolated = runs["carried"], runs["isolated"]
    assert [k.name for k in carried.kernels] == [k.name for k in isolated.kernels]
    warm = 0
    for c, i in zip(carried.kernels, isolated.kernels):
        if c.report.llc["warm_hits"] == 0 and c.report.llc["warm_writebacks"] == 0:
            assert c.cycles == pytest.approx(i.cycles, rel=0.01), c.name     # what it found was a cold chip's
        else:
            warm += 1
            assert c.cycles <= i.cycles * 1.01, c.name                          # warm lines cost no DRAM read
    assert warm >= 6                                             # every kernel after the first reads an activation
    saved = isolated.cycles - sum(k.cycles for k in carried.kernels)
    assert 0 < saved < 0.5 * isolated.cycles
    # LLC hit rates: the carried run hits more, in every op class
    for cls, row in isolated.llc_by_op_class().items():
        assert carried.llc_by_op_class()[cls]["hit_rate"] >= row["hit_rate"], cls


def test_the_memo_gives_a_layer_stack_the_cycles_it_would_simulate():
    # one block applied three times: from the second application on every line is warm, reuse is exact
    model, x = _meta_stack(shared=True)
    on, off = _estimate(model, x, "carried", True), _estimate(model, x, "carried", False)
    assert on.cycles == off.cycles
    assert [k.cycles for k in on.kernels] == [k.cycles for k in off.kernels]
    assert any(k.reused for k in on.kernels) and not any(k.reused for k in off.kernels)
    # three blocks of their own weights: the third reuses the second's records (same state class), whose cold
    # weight reads fell on other DRAM channels: totals within 1%
    model, x = _meta_stack()
    on, off = _estimate(model, x, "carried", True), _estimate(model, x, "carried", False)
    third = [k for k in on.kernels if k.module.startswith("layers.2")]
    assert third and any(k.reused for k in third)
    assert on.cycles == pytest.approx(off.cycles, rel=0.01)


def test_numerics_do_not_depend_on_the_memory_state():
    model, (x,) = make_mlp(rows=8)
    with torch.no_grad():
        expected = model(x)
    outs = {m: simulate(model, x, memory_state=m) for m in ("carried", "isolated")}
    for m, (out, report) in outs.items():
        np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-4, atol=1e-4)
        assert report.memory_state == m
    assert outs["carried"][1].memory_moves()["warm_read_bytes"] > 0


def test_an_unknown_memory_state_is_refused():
    model, (x,) = make_mlp(rows=8)
    with pytest.raises(ValueError, match="carried.*isolated"):
        simulate(model, x, memory_state="warm")
