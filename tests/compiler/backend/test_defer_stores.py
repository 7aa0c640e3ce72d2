"""Deferred result stores (compiler/backend/program/defer_store.py, the `defer_stores` switch): a matmul-shaped
program runs as a persistent program over its PE's program ids (`mtia.next_pid`), each program's final
store issued by the next program on the PE after that one's first loads. Kernels run on both executors
against numpy with NaN-poisoned outputs, with more programs than PEs (mtia-small has 4 PEs), edge tiles,
masked K and K = 0 (the K loop never runs, so no command of the next program reads the accumulator
before its epilogue); the MTIA result is bitwise the interpreter's with the switch on and off. The
transfer order comes from the simulated run, and the 2048^3 tutorial matmul's cycles are held to 92% of
the DPE peak computed from the config."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.kernels.matmul_tutorial import matmul_tutorial, matmul_tutorial_kernel
from compiler.runtime.mtia_executor import mtia_program
from simulator import get_config, use_config
from simulator.machine import Machine

from dma_starts import DmaStarts
from executors import EXECUTORS, launch

OFF = {"defer_stores": False}


def _inputs(M, N, K, seed=3):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((M, K)).astype(np.float16), rng.standard_normal((K, N)).astype(np.float16)


def _tutorial(a, b, executor, blocks=(32, 32, 32), **kw):
    (M, K), N = a.shape, b.shape[1]
    bm, bn, bk = blocks
    c = np.full((M, N), np.nan, np.float16)
    rec = launch(matmul_tutorial_kernel, (triton.cdiv(M, bm) * triton.cdiv(N, bn),), a, b, c, M, N, K, K, 1, N, 1,
                 N, 1, executor=executor, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, **kw)
    return c, rec


# programs per PE of mtia-small's 4: 4 (whole tiles), 3 with edge tiles in M and N, 6 with K masked, 2 with
# K = 0 (the loop never runs), 1 (a PE with one program, the last one stores at once)
SHAPES = [(128, 128, 96), (70, 90, 64), (96, 256, 40), (64, 64, 0), (64, 64, 32)]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("M,N,K", SHAPES)
def test_the_tutorial_matmul_is_right_with_many_programs_per_pe(executor, M, N, K):
    a, b = _inputs(M, N, K, seed=M + K)
    c, _ = _tutorial(a, b, executor)
    ref = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), ref.astype(np.float32), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("M,N,K", SHAPES)
def test_deferred_stores_give_the_interpreters_bits_and_the_undeferred_ones(M, N, K):
    a, b = _inputs(M, N, K, seed=K)
    ref, _ = _tutorial(a, b, "interpreter")
    on, rec = _tutorial(a, b, "mtia")
    assert rec.switched_off == ()
    np.testing.assert_array_equal(on, ref)
    np.testing.assert_array_equal(_tutorial(a, b, "mtia", mtia_options=OFF)[0], ref)


def _compiled(M, N, K, blocks=(32, 32, 32)):
    a, b = _inputs(M, N, K)
    bm, bn, bk = blocks
    return matmul_tutorial_kernel.compile(a, b, np.zeros((M, N), np.float16), M, N, K, K, 1, N, 1, N, 1,
                                          BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8)


def _commands(lines, names=("dma.in", "dma.out", "dpe.mm", "se.mov")):
    return [ln.split()[0] for ln in lines if ln.split() and ln.split()[0] in names]


def test_the_program_loops_over_its_pes_programs_and_converts_and_stores_after_the_next_ones_loads():
    with use_config("mtia-small"):
        asm = mtia_program(_compiled(128, 128, 96), get_config())[1]["mtia-asm"]
        off = mtia_program(_compiled(128, 128, 96), get_config(), 3, OFF)[1]["mtia-asm"]
    lines = [ln.strip() for ln in asm.splitlines()]
    assert sum(ln.startswith("mtia.next_pid") for ln in lines) == 1, asm
    assert "mtia.next_pid" not in off and off.count("dma.out") == 1 and off.count("se.mov") == 1
    # the converted tile gets a CB of its own: the conversion pops the accumulator, the store that CB
    assert ".cb 3 deferred" in asm and "se.mov cb3.push:f16[32x32], cb0.pop:f32[32x32]" in asm, asm
    # in the K loop: the loads, then a branch to the previous program's conversion or store (out of
    # line, after the halt, and back), then the DPE command reading the accumulator it has popped
    loop = lines[next(i for i, ln in enumerate(lines) if ln.startswith("for_")):lines.index("halt")]
    head = loop[:next(i for i, ln in enumerate(loop) if ln.startswith("dpe.mm")) + 1]
    assert _commands(head) == ["dma.in", "dma.in", "dpe.mm"] and head[-3].startswith("bne x"), head
    stub = lines[lines.index(head[-3].split()[-1] + ":"):]
    assert _commands(stub) == ["se.mov", "dma.out"] and stub[-1].startswith("j " + head[-2][:-1]), stub
    # after the PE's last program: its conversion and its store
    tail = lines[next(i for i, ln in enumerate(lines) if ln.startswith("mtia.next_pid")):lines.index("halt")]
    assert _commands(tail) == ["se.mov", "dma.out"], tail


def test_where_the_converted_tile_does_not_fit_only_the_store_is_deferred():
    # 128x256 f32 accumulators (2 x 128 KiB) and the operands leave no room for a 64 KiB f16 tile
    a, b = _inputs(512, 1024, 64, seed=5)
    with use_config("mtia-small"):
        asm = mtia_program(_compiled(512, 1024, 64, (128, 256, 32)), get_config())[1]["mtia-asm"]
    assert ".cb 3" not in asm and "mtia.next_pid" in asm and asm.count("se.mov") == 1, asm
    # (bitwise against the store in place: at tiles this large the simulator's dot and the interpreter's
    # already differ in the last bit of a few elements, with the switch off as on)
    c, _ = _tutorial(a, b, "mtia", (128, 256, 32))
    np.testing.assert_array_equal(c, _tutorial(a, b, "mtia", (128, 256, 32), mtia_options=OFF)[0])
    np.testing.assert_allclose(c.astype(np.float32), (a.astype(np.float32) @ b.astype(np.float32)), rtol=2e-3,
                               atol=2e-2)


@pytest.mark.parametrize("deferred", [True, False])
def test_the_next_programs_first_loads_start_before_the_store(deferred):
    """On each PE, the second program's first load starts before the first program's store with the
    switch (the store waits for the SE's conversion), after it without."""
    a, b = _inputs(128, 64, 256)
    t = DmaStarts()
    with use_config("mtia-small"):
        c, _ = _tutorial(a, b, "mtia", mtia_options=None if deferred else OFF, machine=Machine(get_config(), trace=t))
    for pe in {e[0] for e in t.dma}:
        mine = [e for e in t.dma if e[0] == pe]
        second = sorted({e[1] for e in mine})[1]
        store = min(e[3] for e in mine if e[2] == "dma.out")     # the first program's (issued by the second)
        load = min(e[3] for e in mine if e[1] == second and e[2] == "dma.in")
        assert (load < store) == deferred, (pe, sorted(mine, key=lambda e: e[3]))
    ref = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), ref.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_a_launch_that_writes_an_array_it_reads_keeps_the_stores_in_place():
    # C is A: a later program's load could overtake the deferred store of the same bytes
    a, b = _inputs(64, 64, 64)
    with use_config("mtia-small"):
        rec = matmul_tutorial_kernel[(4,)](a, b, a, 64, 64, 64, 64, 1, 64, 1, 64, 1, BLOCK_SIZE_M=32,
                                            BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, executor="mtia")
        other = matmul_tutorial_kernel[(4,)](a, b, np.zeros((64, 64), np.float16), 64, 64, 64, 64, 1, 64, 1, 64, 1,
                                             BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=8,
                                             executor="mtia")
    assert rec.switched_off == ("defer_stores",) and other.switched_off == ()


@triton.jit
def _exp_rows(X, Out, N: tl.constexpr):
    r = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(Out + r, tl.exp(tl.load(X + r)))


def test_a_program_without_a_loop_is_left_as_it_is():
    x = np.zeros((8, 64), np.float32)
    with use_config("mtia-small"):
        asm = mtia_program(_exp_rows.compile(x, x, N=64), get_config())[1]["mtia-asm"]
    assert "mtia.next_pid" not in asm


def test_the_2048_cubed_tutorial_matmul_reaches_92_percent_of_the_dpe_peak():
    # the floor: M N K multiply-accumulates at the config's f16 rate on every PE
    M = N = K = 2048
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    cfg = get_config()
    floor = M * N * K / (cfg.pe.dpe.macs_per_cycle["f16"] * cfg.num_pes)
    _, (run,) = matmul_tutorial(a, b, numerics=False, sram_resident=True)
    _, (off,) = matmul_tutorial(a, b, numerics=False, sram_resident=True, mtia_options=OFF)
    assert run.cycles <= floor / 0.92 and run.cycles < 0.97 * off.cycles, (run.cycles, off.cycles, floor)
