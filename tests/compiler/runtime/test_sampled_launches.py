"""Sampled timing-only launches (simulator/sampling.py, compiler/runtime/sampled_launches.py): the first
waves simulated, the rest extended along their difference, close to the whole launch's figures; the
report says it was sampled; a launch whose first waves are not its steady state, one of few waves, and
one that computes results run whole; a sampled record never answers for a whole launch."""
from __future__ import annotations

import numpy as np
import pytest
from energy_check import assert_energy_consistent

import compiler as triton
from compiler.kernels.matmul import matmul_kernel
from compiler.runtime import launch_memo, sampled_launches
from simulator import load_config, sampling, use_config

CONFIG = "mtia-small"                       # 4 PEs
BLOCK = 32
STREAM = (1024, 32, 256)    # 32 programs, 8 waves: each reads its own rows of A (B stays in the LLC): steady
REUSE = (128, 256, 512)     # 32 programs, 8 waves: the first waves bring in A and B, later ones find them


def _gemm(shape, **options):
    m, n, k = shape
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float16)
    grid = (triton.cdiv(m, BLOCK) * triton.cdiv(n, BLOCK),)
    with use_config(CONFIG):
        return matmul_kernel[grid](a, b, c, m, n, k, k, 1, n, 1, n, 1, BLOCK_M=BLOCK, BLOCK_N=BLOCK, BLOCK_K=BLOCK,
                                   GROUP_M=8, ACTIVATION="", **options), c


@pytest.fixture(scope="module")
def pair():
    with launch_memo.disabled():
        whole = _gemm(STREAM, numerics=False, sample_waves=False)[0].report
        sampled = _gemm(STREAM, numerics=False, sample_waves=True)[0].report
    return whole, sampled


def test_a_sampled_launch_is_close_to_the_whole_one(pair):
    whole, sampled = pair
    assert not whole.sampled and sampled.sampled == {"programs_per_pe": list(sampling.SAMPLE_WAVES), "waves": 8,
                                                     "programs": 32}
    assert sampled.cycles == pytest.approx(whole.cycles, rel=0.02)
    # the work of equal programs is linear in the programs: exact
    assert sampled.commands == whole.commands and sampled.transfers == whole.transfers
    assert sampled.roofline.flops == pytest.approx(whole.roofline.flops, rel=1e-9)
    assert sampled.bytes["dram_read"] == pytest.approx(whole.bytes["dram_read"], rel=0.02)
    assert sampled.llc["hits"] == pytest.approx(whole.llc["hits"], rel=0.02)
    assert sampled.energy.joules == pytest.approx(whole.energy.joules, rel=0.02)
    assert sampled.seconds >= sampled.roofline.floor_seconds          # it never beats its own floor


def test_a_sampled_report_is_consistent_and_says_it_was_sampled(pair):
    _, sampled = pair
    assert_energy_consistent(sampled, load_config(CONFIG))
    assert "sampled     2 of 8 programs per PE simulated" in str(sampled)
    assert sampled.roofline.fraction == pytest.approx(sampled.roofline.floor_seconds / sampled.seconds)
    assert sampled.compulsory.dram_bytes <= sampled.compulsory.argument_bytes


def test_a_launch_whose_first_waves_fetch_what_later_ones_reuse_runs_whole():
    """Extended from its first waves, this GEMM would read A and B about twice over (its later waves hit
    in the LLC): the sample is refused, and the figures are the whole launch's."""
    with launch_memo.disabled():
        asked = _gemm(REUSE, numerics=False, sample_waves=True)[0].report
        whole = _gemm(REUSE, numerics=False, sample_waves=False)[0].report
    assert not asked.sampled and asked.cycles == whole.cycles


def test_few_waves_and_numeric_runs_are_never_sampled():
    with launch_memo.disabled():
        few = _gemm((128, 32, 256), numerics=False, sample_waves=True)[0].report        # 1 wave
        record, c = _gemm(STREAM, sample_waves=True)                                    # computes results
    assert not few.sampled
    assert not record.report.sampled and not np.isnan(c).any()


def test_the_setting_is_part_of_the_memo_key():
    """The context turns sampling on for launches that leave the option unset, and the setting is resolved
    before the memo keys a launch: a sampled record does not answer a whole launch of the same kernel."""
    with sampled_launches.sampled():
        first = _gemm(STREAM, numerics=False)[0].report
    again = _gemm(STREAM, numerics=False)[0].report
    assert first.sampled and not again.sampled
