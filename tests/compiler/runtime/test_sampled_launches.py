"""Sampled timing-only launches (simulator/sampling.py, simulator/sampled_loop.py,
compiler/runtime/sampled_launches.py): the first waves and the first trips of the K loop simulated, the
rest extended along their difference, close to the whole launch's figures; the report says it was
sampled; a launch whose first waves are not its steady state, one of few waves and short loops, one
whose loop runs a different number of trips in each program, and one that computes results run whole;
a sampled record never answers for a whole launch."""
from __future__ import annotations

import numpy as np
import pytest
from energy_check import assert_energy_consistent

import compiler as triton
import compiler.language as tl
from compiler.kernels.matmul import matmul_kernel
from compiler.runtime import launch_memo, sampled_launches
from compiler.runtime.mtia_executor import mtia_program
from simulator import load_config, sampled_loop, sampling, use_config
from simulator.errors import ProgramError
from simulator.machine import Machine

CONFIG = "mtia-small"                       # 4 PEs
BLOCK = 32
STREAM = (1024, 32, 256)    # 32 programs, 8 waves: each reads its own rows of A (B stays in the LLC): steady
REUSE = (128, 256, 512)     # 32 programs, 8 waves: the first waves bring in A and B, later ones find them
LONG_K = (64, 64, 4096)     # 4 programs, one wave, a K loop of 128 trips
BOTH = (1024, 32, 2048)     # 32 programs, 8 waves, 64 trips each


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


def _close(sampled, whole):
    assert sampled.cycles == pytest.approx(whole.cycles, rel=0.02)
    assert sampled.commands == whole.commands and sampled.transfers == whole.transfers
    assert sampled.roofline.flops == pytest.approx(whole.roofline.flops, rel=1e-9)
    assert sampled.bytes["dram_read"] == pytest.approx(whole.bytes["dram_read"], rel=0.02)
    assert sampled.energy.joules == pytest.approx(whole.energy.joules, rel=0.02)
    assert sampled.seconds >= sampled.roofline.floor_seconds


@pytest.mark.parametrize("shape", [LONG_K, BOTH], ids=["loop", "waves-and-loop"])
def test_a_launch_with_a_long_k_loop_runs_its_first_trips_and_is_close_to_the_whole_one(shape):
    with launch_memo.disabled():
        whole = _gemm(shape, numerics=False, sample_waves=False)[0].report
        sampled = _gemm(shape, numerics=False, sample_waves=True)[0].report
    trips = shape[2] // BLOCK
    assert sampled.sampled["loop_trips"] == list(sampling.LOOP_TRIPS) and sampled.sampled["trips"] == trips
    assert ("programs_per_pe" in sampled.sampled) == (shape == BOTH)
    _close(sampled, whole)
    assert f"8 of {trips} trips of the K loop" in str(sampled)
    assert_energy_consistent(sampled, load_config(CONFIG))


@triton.jit
def _triangle_kernel(a_ptr, out_ptr, BLOCK: tl.constexpr):
    """Program i multiplies i + 1 blocks: its loop's trips differ from every other program's (a causal
    attention's rows do the same)."""
    pid = tl.program_id(0)
    r = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), tl.float32)
    for k in range(0, (pid + 1) * 40):
        a = tl.load(a_ptr + (k % 4) * BLOCK * BLOCK + r[:, None] * BLOCK + r[None, :])
        acc += tl.dot(a, a)
    tl.store(out_ptr + pid * BLOCK * BLOCK + r[:, None] * BLOCK + r[None, :], acc)


def test_a_loop_whose_trips_differ_between_programs_is_not_shortened():
    a = np.random.default_rng(1).standard_normal((4 * BLOCK, BLOCK)).astype(np.float16)
    out = np.full((4 * BLOCK, BLOCK), np.nan, np.float32)
    with use_config(CONFIG):
        program = mtia_program(_triangle_kernel.compile(a, out, BLOCK=BLOCK), load_config(CONFIG))[0]
    assert sampled_loop.sampled_loop(program) is not None        # a loop it would shorten, but for its trips
    with launch_memo.disabled(), use_config(CONFIG):
        asked = _triangle_kernel[(4,)](a, out, BLOCK=BLOCK, numerics=False, sample_waves=True).report
        whole = _triangle_kernel[(4,)](a, out, BLOCK=BLOCK, numerics=False, sample_waves=False).report
    assert not asked.sampled and asked.cycles == whole.cycles


def test_the_loop_found_is_the_k_loop_and_a_program_without_one_refuses_a_trip_limit():
    m, n, k = LONG_K
    a, b, c = np.zeros((m, k), np.float16), np.zeros((k, n), np.float16), np.zeros((m, n), np.float16)
    cfg = load_config(CONFIG)
    with use_config(cfg):
        gemm = mtia_program(matmul_kernel.compile(a, b, c, m, n, k, k, 1, n, 1, n, 1, BLOCK_M=BLOCK, BLOCK_N=BLOCK,
                                                  BLOCK_K=BLOCK, GROUP_M=8, ACTIVATION=""), cfg)[0]
        add = mtia_program(_add_kernel.compile(np.zeros(64, np.float32), np.zeros(64, np.float32), BLOCK=64), cfg)[0]
    site = sampled_loop.sampled_loop(gemm)
    body = gemm.instrs[site.check:site.back]
    assert any(type(ins).unit == "dpe" for ins in body) and any(type(ins).unit == "dma" for ins in body)
    assert sampled_loop.sampled_loop(add) is None
    with pytest.raises(ProgramError, match="no K loop"):
        Machine(cfg, numerics=False).run(add, grid=(1,), args={"x_ptr": 0, "y_ptr": 0}, loop_trips=4)


@triton.jit
def _add_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(y_ptr + r, tl.load(x_ptr + r) + 1.0)
