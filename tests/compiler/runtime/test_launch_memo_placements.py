"""`launch_memo.across_placements()`: a model's identical layers (the same kernel on the same shapes, each
layer's arrays at their own device addresses) reuse one record, on request only; a kernel whose data
reaches its timing is still keyed by its data."""
from __future__ import annotations

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.runtime import device_array, launch_memo


@triton.jit
def _scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    tl.store(out_ptr + i, tl.load(x_ptr + i, mask) * 2.0, mask)


@triton.jit
def _gather(table_ptr, index_ptr, out_ptr, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + i, tl.load(table_ptr + tl.load(index_ptr + i)))


def _layers(n=3, size=1 << 16):
    """n layers' weights and outputs, each pair at its own device addresses (all live at once, as a model's)."""
    rng = np.random.default_rng(0)
    return [(device_array(rng.random(size, dtype=np.float32)), device_array(np.zeros(size, np.float32)))
            for _ in range(n)]


def _run(x, out, n=None):
    n = x.size if n is None else n
    return _scale[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024, executor="mtia", numerics=False)


def test_layers_at_other_addresses_simulate_each_without_it(simulations):
    layers = _layers()
    assert len({x.data_ptr() for x, _ in layers}) == 3
    records = [_run(x, out) for x, out in layers]
    assert len(simulations) == 3 and not any(r.reused for r in records)


def test_layers_at_other_addresses_reuse_the_first_within_it(simulations):
    layers = _layers()
    before = dict(launch_memo.STATS)
    with launch_memo.across_placements():
        records = [_run(x, out) for x, out in layers]
    assert len(simulations) == 1 and [r.reused for r in records] == [False, True, True]
    assert len({r.cycles for r in records}) == 1
    assert launch_memo.STATS["reused_elsewhere"] - before["reused_elsewhere"] == 2
    # outside it, only exact records serve: the first layer's launch was simulated, the others were not
    assert _run(*layers[0]).reused and len(simulations) == 1
    assert not _run(*layers[1]).reused and len(simulations) == 2


def test_an_exact_record_is_taken_first_within_it(simulations):
    layers = _layers(2)
    first = _run(*layers[0])                           # an exact record, before any relaxed one
    before = launch_memo.STATS["reused_elsewhere"]
    with launch_memo.across_placements():
        again, other = _run(*layers[0]), _run(*layers[1])
    assert len(simulations) == 1 and again.reused and other.reused and again.cycles == first.cycles
    assert launch_memo.STATS["reused_elsewhere"] - before == 1


def test_another_shape_or_offset_is_another_launch(simulations):
    (x, out), = _layers(1)
    with launch_memo.across_placements():
        _run(x, out)
        _run(x, out, x.size // 2)                      # fewer elements: another grid and n
        _run(x.view(np.float32, 4), out.view(np.float32, 4), x.size - 1)   # one element in: another offset
    assert len(simulations) == 3


def test_a_kernel_reading_its_indices_keeps_the_exact_key(simulations):
    table = device_array(np.arange(1 << 12, dtype=np.float32))
    out = device_array(np.zeros(256, np.float32))
    spread = device_array((np.arange(256, dtype=np.int32) * 16) % (1 << 12))
    same = device_array(np.zeros(256, np.int32))
    with launch_memo.across_placements():
        records = [_gather[(2,)](table, index, out, BLOCK=128, executor="mtia", numerics=False)
                   for index in (spread, same)]
    assert len(simulations) == 2 and not any(r.reused for r in records)


def test_carried_launches_on_buffers_cached_alike_reuse_within_it(simulations):
    """On a carried memory state, each layer's input cached to the same share but in other lines (as a
    prefill's activations are, partly evicted by each layer): the exact state class differs, so each is
    simulated outside `across_placements()`; inside it the coarse class (shares, not lines) matches."""
    from compiler.runtime import memo_state
    from simulator import load_config
    from simulator.chip.memory_state import MemoryState
    cfg = load_config("mtia-2i")
    layers = _layers(4)
    line = cfg.sram.line_bytes
    lines = layers[0][0].nbytes // line

    def state_with_half_of(x, offset):
        state = MemoryState(cfg)
        rel = np.arange(offset, lines, 2, dtype=np.int64)          # every other line, from `offset`
        state.restore_launch([(x.data_ptr(), x.data_ptr() + x.nbytes, rel, np.zeros(rel.size, np.bool_))])
        return state

    def run(x, out, state):
        n = x.size
        return _scale[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024, executor="mtia", numerics=False,
                                               memory_state=state)
    states = [state_with_half_of(x, i % 2) for i, (x, _) in enumerate(layers)]
    spans = [[(x.data_ptr(), x.data_ptr() + x.nbytes), (o.data_ptr(), o.data_ptr() + o.nbytes)] for x, o in layers]
    assert memo_state.state_class(states[0], spans[0]) != memo_state.state_class(states[1], spans[1])
    assert memo_state.coarse_class(states[0], spans[0]) == memo_state.coarse_class(states[1], spans[1])
    before = launch_memo.STATS["reused_elsewhere"]
    with launch_memo.across_placements():
        first = run(*layers[0], states[0])
        second = run(*layers[1], states[1])         # other lines cached, to the same share: the coarse class
    assert not first.reused and second.reused and len(simulations) == 1
    assert second.cycles == first.cycles
    assert launch_memo.STATS["reused_elsewhere"] == before + 1
    third = run(*layers[3], states[3])              # outside it: only layer 0's exact class would serve
    assert not third.reused and len(simulations) == 2


def test_a_carried_launch_whose_state_has_settled_is_not_simulated_again(simulations):
    """Three layers whose incoming states differ only in how much of the LLC other arrays fill (three
    coarse classes): the first two are simulated and agree, so the third takes the second's record."""
    from simulator import load_config
    from simulator.chip.memory_state import MemoryState
    cfg = load_config("mtia-2i")
    layers = _layers(3)
    line = cfg.sram.line_bytes
    elsewhere = 1 << 40                                            # lines of arrays no layer touches

    def state_filled(share):
        state = MemoryState(cfg)
        rel = np.arange(int(share * (cfg.sram.llc_mib << 20) // line), dtype=np.int64)
        if rel.size:
            state.restore_launch([(elsewhere, elsewhere + rel.size * line, rel, np.zeros(rel.size, np.bool_))])
        return state

    def run(x, out, state):
        return _scale[(triton.cdiv(x.size, 1024),)](x, out, x.size, BLOCK=1024, executor="mtia", numerics=False,
                                                    memory_state=state)
    with launch_memo.across_placements():
        records = [run(*layer, state_filled(share)) for layer, share in zip(layers, (0.0, 0.25, 0.5))]
    assert [r.reused for r in records] == [False, False, True] and len(simulations) == 2
    assert records[1].cycles == pytest.approx(records[0].cycles, rel=launch_memo.SETTLED)
    assert records[2].cycles == records[1].cycles
