"""Timing-only runs (`numerics=False`) leave tile data uncomputed only in programs that cannot see
it (simulator/pe/timing_only.py): where a value can decide an address or a branch, the run computes
everything, so its cycles are the numeric run's."""
from __future__ import annotations

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from isa import Program, parse_instr
from simulator import use_config
from simulator.pe.timing_only import is_blind


def _program(*lines: str) -> Program:
    p = Program("t")
    p.instrs = [parse_instr(s) for s in lines] + [parse_instr("halt")]
    return p


MATMUL_STEP = ["dma.in cb1.push:f16[32x32], x1, [x2, 1]", "dma.in cb2.push:f16[32x32], x3, [x2, 1]",
               "dpe.mm cb0.acc:f32[32x32], cb1.pop:f16[32x32], cb2.pop:f16[32x32]",
               "se.mov cb3.push:i32[32x32], cb0.keep:f32[32x32]", "dma.out cb3.pop:i32[32x32], x4, [x2, 1]"]


def test_a_program_that_only_moves_and_computes_tiles_is_blind():
    assert is_blind(_program(*MATMUL_STEP))
    # a float the core loads and only computes floats with (layernorm's mean) decides nothing
    assert is_blind(_program(*MATMUL_STEP, "flw f1, 0(x5)", "fdiv.s f2, f1, f1", "fsw f2, 0(x6)"))


@pytest.mark.parametrize("extra", [
    ["dma.gather cb5.push:f32[64], x1, cb4.pop:i32[64]"],            # indices from a tile
    ["lw x7, 0(x5)"],                                                # an integer loaded by the core
    ["flw f1, 0(x5)", "flt.s x7, f1, f2"],                           # a float that becomes a branch
    ["flw f1, 0(x5)", "fcvt.l.s x7, f1"],                            # ... or an integer
], ids=["gather", "int-load", "float-compare", "float-to-int"])
def test_a_program_whose_data_can_reach_an_address_or_a_branch_is_not_blind(extra):
    assert not is_blind(_program(*MATMUL_STEP, *extra))


@triton.jit
def _gather_by_float_index(x_ptr, table_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    where = tl.load(x_ptr + offs, mask=m, other=0.0)          # floats that become addresses
    idx = (where * 4.0).to(tl.int32)
    tl.store(out_ptr + offs, tl.load(table_ptr + idx, mask=m, other=0.0), mask=m)


@triton.jit
def _loop_until_small(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    steps = 0
    while tl.max(tl.abs(x)) > 1.0:                             # data-dependent trip count
        x = x * 0.5
        steps += 1
    tl.store(out_ptr + offs, x + steps)


def test_float_data_that_becomes_gather_indices_gives_the_numeric_cycles():
    """Failed before: the SE multiply was skipped, the indices were garbage, 3547 cycles vs 4721."""
    rng = np.random.default_rng(3)
    n, rows = 3000, 4096
    x = rng.integers(0, rows // 4, n).astype(np.float32)      # exact after * 4
    table = rng.standard_normal(rows * 4).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    with use_config("mtia-small"):
        numeric = _gather_by_float_index[(3,)](x, table, out, n, BLOCK=1024, executor="mtia")
        np.testing.assert_array_equal(out, table[(x * 4).astype(np.int32)])
        timing = _gather_by_float_index[(3,)](x, table, np.full(n, np.nan, np.float32), n, BLOCK=1024,
                                              executor="mtia", numerics=False)
    assert timing.cycles == numeric.cycles


def test_a_loop_whose_trip_count_depends_on_float_data_gives_the_numeric_cycles():
    x = (np.random.default_rng(4).standard_normal(256) * 40).astype(np.float32)
    out = np.full_like(x, np.nan)
    steps = int(np.ceil(np.log2(np.abs(x).max()))) if np.abs(x).max() > 1 else 0
    with use_config("mtia-small"):
        numeric = _loop_until_small[(1,)](x, out, BLOCK=256, executor="mtia")
        np.testing.assert_allclose(out, x * 0.5 ** steps + steps)
        timing = _loop_until_small[(1,)](x, np.full_like(x, np.nan), BLOCK=256, executor="mtia", numerics=False)
    assert timing.cycles == numeric.cycles
