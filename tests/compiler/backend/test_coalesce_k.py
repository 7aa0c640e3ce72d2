"""K coalescing (compiler/backend/passes/coalesce_k.py): a matmul loop runs two K steps per iteration,
one box of [BM, 2BK], one of [2BK, BN] and one dpe.mm with kslices=2, whose halves are summed one after
the other as two commands would. Kernels run on both executors against numpy with NaN-poisoned
outputs, and the MTIA result is bitwise the interpreter's (two dots in sequence, f32 accumulation):
odd trip counts, masked K, K = 0, K < BK, pointers carried or recomputed from k, `acc += tl.dot`."""
import re

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.kernels.matmul_tutorial import matmul_tutorial_kernel
from compiler.runtime.mtia_executor import mtia_program
from simulator import get_config, use_config

from executors import EXECUTORS, launch

OFF = {"coalesce_k": False}


def _inputs(M, N, K, seed=3):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((M, K)).astype(np.float16), rng.standard_normal((K, N)).astype(np.float16)


def _tutorial(a, b, executor, blocks=(64, 64, 32), **kw):
    (M, K), N = a.shape, b.shape[1]
    bm, bn, bk = blocks
    c = np.full((M, N), np.nan, np.float16)
    launch(matmul_tutorial_kernel, (triton.cdiv(M, bm) * triton.cdiv(N, bn),), a, b, c, M, N, K, K, 1, N, 1, N, 1,
           executor=executor, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, **kw)
    return c


# K = 0 (no iteration), 20 < BK (one, masked), 96 (three: odd), 100 (four, the last masked), 128 (four);
# 64x64x32 blocks: a K step's tiles (8 KiB) are large enough to coalesce on mtia-small (pipeline.py)
SHAPES = [(64, 64, 0), (40, 64, 20), (128, 48, 96), (64, 100, 100), (33, 70, 128)]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("M,N,K", SHAPES)
def test_the_tutorial_matmul_is_right_on_both_executors(executor, M, N, K):
    a, b = _inputs(M, N, K)
    c = _tutorial(a, b, executor)
    ref = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), ref.astype(np.float32), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("M,N,K", SHAPES)
def test_the_coalesced_matmul_gives_the_interpreters_bits_and_the_uncoalesced_ones(M, N, K):
    a, b = _inputs(M, N, K, seed=K)
    ref = _tutorial(a, b, "interpreter")
    np.testing.assert_array_equal(_tutorial(a, b, "mtia"), ref)
    np.testing.assert_array_equal(_tutorial(a, b, "mtia", mtia_options=OFF), ref)


def _loop(asm: str) -> str:
    """The K loop's instructions."""
    return re.search(r"^for_\d+:\n(.*?)^endfor_\d+:", asm, re.S | re.M)[1]


def _asm(kernel_compiled, options=None):
    return mtia_program(kernel_compiled, get_config(), 3, options)[1]["mtia-asm"]


def _tutorial_compiled(M, N, K, blocks=(64, 64, 32)):
    a, b = _inputs(M, N, K)
    bm, bn, bk = blocks
    return matmul_tutorial_kernel.compile(a, b, np.zeros((M, N), np.float16), M, N, K, K, 1, N, 1, N, 1,
                                          BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8)


def test_the_loop_issues_one_box_per_operand_and_one_dpe_command_per_two_k_steps():
    with use_config("mtia-small"):
        asm = _asm(_tutorial_compiled(64, 64, 96))
    loop = _loop(asm)
    assert loop.count("dma.in") == 2 and loop.count("dpe.mm") == 1, loop
    assert "dma.in cb1.push:f16[64x64]" in loop and "dma.in cb2.push:f16[64x64]" in loop, loop
    assert "cb1.pop:f16[64x64], cb2.pop:f16[64x64], kslices=2, kused=x" in loop, loop
    assert "slots=2" in next(ln for ln in asm.splitlines() if ln.startswith(".cb 1 "))   # a pair ahead


def test_the_switch_off_gives_the_loop_as_written():
    with use_config("mtia-small"):
        asm = _asm(_tutorial_compiled(64, 64, 96), OFF)
    loop = _loop(asm)
    assert "kslices" not in asm and "dma.in cb1.push:f16[64x32]" in loop and "inc=32" in loop, loop
    assert "slots=3" in next(ln for ln in asm.splitlines() if ln.startswith(".cb 1 "))


def test_doubled_tiles_that_do_not_fit_the_local_store_at_full_depth_leave_the_loop_alone():
    # 128x128 f32 accumulator (2 x 64 KiB) + [128, 256] and [256, 128] f16 pairs (2 x 2 x 64 KiB) > 383 KiB
    c = _tutorial_compiled(128, 128, 384, blocks=(128, 128, 128))
    asm = _asm(c)
    assert "kslices" not in asm and "dma.in cb1.push:f16[128x128]" in asm
    assert "kslices" not in mtia_program(c, get_config(), 3)[1]["mtia.coalesce-k"]


@triton.jit
def _inductor_style(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                    EVEN_K: tl.constexpr):
    # Inductor's mm template: pointers recomputed from k_idx, `acc += tl.dot(a, b)`, K masked unless EVEN_K
    pid = tl.program_id(0)
    grid_n = tl.cdiv(N, BN)
    rm = (pid // grid_n) * BM + tl.arange(0, BM)
    rn = (pid % grid_n) * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k_idx in range(0, tl.cdiv(K, BK)):
        ka = offs_k[None, :] + k_idx * BK
        kb = offs_k[:, None] + k_idx * BK
        if EVEN_K:
            a = tl.load(a_ptr + (rm % M)[:, None] * K + ka)
            b = tl.load(b_ptr + kb * N + (rn % N)[None, :])
        else:
            a = tl.load(a_ptr + (rm % M)[:, None] * K + ka, mask=offs_k[None, :] < K - k_idx * BK, other=0.0)
            b = tl.load(b_ptr + kb * N + (rn % N)[None, :], mask=offs_k[:, None] < K - k_idx * BK, other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("K,even", [(96, True), (128, True), (80, False), (16, False)])
def test_inductors_template_shape_is_coalesced_and_right(executor, K, even):
    M, N = 96, 64
    a, b = _inputs(M, N, K)
    c = np.full((M, N), np.nan, np.float32)
    launch(_inductor_style, (2,), a, b, c, M, N, K, executor=executor, BM=64, BN=64, BK=32, EVEN_K=even)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)
    if executor == "mtia":
        ref = np.full((M, N), np.nan, np.float32)
        launch(_inductor_style, (2,), a, b, ref, M, N, K, executor="interpreter", BM=64, BN=64, BK=32, EVEN_K=even)
        np.testing.assert_array_equal(c, ref)
        compiled = _inductor_style.compile(a, b, c, M, N, K, BM=64, BN=64, BK=32, EVEN_K=even)
        with use_config("mtia-small"):
            assert "kslices=2" in _asm(compiled)


@triton.jit
def _scaled_operand(a_ptr, b_ptr, c_ptr, K, BK: tl.constexpr):
    # another op on a tile (a * 2) between the load and the dot: not the shape, left as it is
    r = tl.arange(0, 64)
    offs_k = tl.arange(0, BK)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptr + r[:, None] * K + k * BK + offs_k[None, :])
        b = tl.load(b_ptr + (k * BK + offs_k[:, None]) * 64 + r[None, :])
        acc = tl.dot(a * 2.0, b, acc)
    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_loop_of_another_shape_is_left_alone_and_right(executor):
    a, b = _inputs(64, 64, 96)
    c = np.full((64, 64), np.nan, np.float32)
    launch(_scaled_operand, (1,), a, b, c, 96, executor=executor, BK=32)
    np.testing.assert_allclose(c, (2 * a.astype(np.float32)) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)
    if executor == "mtia":
        with use_config("mtia-small"):
            assert "kslices" not in _asm(_scaled_operand.compile(a, b, c, 96, BK=32))


def test_small_tiles_keep_their_loads_in_flight():
    # 32x32x32: a K step's tiles (4 KiB) move in less than twice the DMA's latency, and halving the
    # loads in flight would leave it exposed (pipeline._latency_bytes): left as written
    with use_config("mtia-small"):
        assert "kslices" not in _asm(_tutorial_compiled(64, 64, 96, blocks=(32, 32, 32)))
