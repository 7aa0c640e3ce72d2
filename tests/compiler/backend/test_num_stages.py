"""`num_stages` is the pipeline depth of a loop's loads: the CBs a DMA fills inside a loop get that
many slots (the launch's, or a loop's own `tl.range(..., num_stages=n)`), 1 leaves the loop
unpipelined; on a loop that is a DRAM stream with little in flight, 1 stage is latency-bound and
3 are not. The answer never changes."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.kernels import library
from compiler.runtime.mtia_executor import mtia_program
from simulator import get_config


@triton.jit
def _two_loops(X, Out, N, BLOCK: tl.constexpr, INNER: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        acc += tl.load(X + off + tl.arange(0, BLOCK))
    for off in tl.range(0, N, BLOCK, num_stages=INNER):
        acc += tl.load(X + N + off + tl.arange(0, BLOCK))
    tl.store(Out + tl.arange(0, BLOCK), acc)


def _slots(num_stages, inner):
    x = np.zeros(256, np.float32)
    out = np.zeros(32, np.float32)
    compiled = _two_loops.compile(x, out, 128, BLOCK=32, INNER=inner)
    prog = mtia_program(compiled, get_config(), num_stages)[0]
    return [ln.split("slots=")[1] for ln in prog.to_asm().splitlines()
            if ln.startswith(".cb") and "load" in ln]


@pytest.mark.parametrize("num_stages", [1, 2, 3, 5])
def test_loads_in_a_loop_get_num_stages_slots_and_a_loop_hint_wins(num_stages):
    assert _slots(num_stages, inner=4) == [str(num_stages), "4"]
    assert _slots(num_stages, inner=1) == [str(num_stages), "1"]


def test_one_stage_is_latency_bound_on_a_dram_stream_and_three_are_not():
    k = library()["row_sum"]
    (x,) = k.make_inputs((32, 4096), np.random.default_rng(3))
    ref = k.reference(x)[0]
    cycles = {}
    for n in (1, 3):
        (out,), runs = k.run(x, BLOCK=128, num_stages=n)
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-3)
        cycles[n] = runs[0].report.cycles
    # one 512 B load in flight on each of 32 PEs is 16 KB, less than DRAM bandwidth x round trip
    assert cycles[1] > 1.5 * cycles[3]
