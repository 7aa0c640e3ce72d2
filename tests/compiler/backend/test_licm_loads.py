"""A load may leave a loop only if nothing in the loop writes memory.

Triton's test_nested_while: a loop that loads a value from memory, adds one and stores it back gave
1 instead of 40 on MTIA (loop-invariant code motion moved the scalar load before the loop, so every
iteration read the value from before the first store: a silent wrong answer). Both executors; the
loop-invariant load of a loop that only reads memory still leaves the loop.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from simulator import use_config

from executors import EXECUTORS, launch


@triton.jit
def count_in_memory(data, count_ptr, TRIPS: tl.constexpr):
    for i in range(TRIPS):
        count = tl.load(count_ptr)
        while count > 0:
            tl.store(data, tl.load(data) + 1.0)
            count = count - 2


@triton.jit
def scaled_copy(x_ptr, scale_ptr, o_ptr, N: tl.constexpr, TRIPS: tl.constexpr):
    offs = tl.arange(0, N)
    for i in range(TRIPS):
        s = tl.load(scale_ptr)      # loop-invariant, but the loop stores (to o_ptr): it stays in the loop
        tl.store(o_ptr + i * N + offs, tl.load(x_ptr + i * N + offs) * s)


@triton.jit
def sum_of_scaled(x_ptr, scale_ptr, o_ptr, N: tl.constexpr, TRIPS: tl.constexpr):
    offs = tl.arange(0, N)
    acc = tl.zeros((N,), tl.float32)
    for i in range(TRIPS):
        acc += tl.load(x_ptr + i * N + offs) * tl.load(scale_ptr)    # nothing written in the loop
    tl.store(o_ptr + offs, acc)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_load_after_a_store_in_the_same_loop_sees_the_store(executor):
    data = np.zeros(1, np.float32)
    count = np.array([8], np.int32)
    launch(count_in_memory, (1,), data, count, 10, executor=executor)
    assert data[0] == 40.0


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_loop_that_writes_memory_reloads_and_one_that_only_reads_hoists(executor):
    rng = np.random.default_rng(8)
    x = rng.standard_normal(4 * 16).astype(np.float32)
    scale = np.array([1.5], np.float32)
    o = np.full(64, np.nan, np.float32)
    launch(scaled_copy, (1,), x, scale, o, 16, 4, executor=executor)
    np.testing.assert_array_equal(o, x * np.float32(1.5))
    o2 = np.full(16, np.nan, np.float32)
    launch(sum_of_scaled, (1,), x, scale, o2, 16, 4, executor=executor)
    np.testing.assert_allclose(o2, (x.reshape(4, 16) * np.float32(1.5)).sum(0), rtol=1e-6)


def test_licm_keeps_the_load_in_a_writing_loop_and_hoists_it_from_a_reading_one():
    x, o = np.zeros(64, np.float32), np.zeros(64, np.float32)
    scale = np.ones(1, np.float32)
    with use_config("mtia-small"):
        writing = scaled_copy.warmup(x, scale, o, 16, 4, grid=(1,), executor="mtia").asm["mtia.licm"]
        reading = sum_of_scaled.warmup(x, scale, o, 16, 4, grid=(1,), executor="mtia").asm["mtia.licm"]

    def scale_load_before_loop(ir):
        return ir.find("tt.load %scale_ptr") < ir.find("scf.for")

    assert not scale_load_before_loop(writing)
    assert scale_load_before_loop(reading)



@triton.jit
def grouped_matmul(a_tab, b_tab, c_tab, dims, lds, groups, NPROG: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                   BK: tl.constexpr):
    """The grouped-GEMM tutorial's loop nest, in our words: programs walk the tiles of every group; each
    group's sizes, leading dimensions and array addresses are loaded inside the while loop, which stores."""
    tile = tl.program_id(0)
    done = 0
    for g in range(groups):
        m = tl.load(dims + g * 3)
        n = tl.load(dims + g * 3 + 1)
        kdim = tl.load(dims + g * 3 + 2)
        tiles_n = tl.cdiv(n, BN)
        tiles = tl.cdiv(m, BM) * tiles_n
        while tile >= done and tile < done + tiles:
            lda = tl.load(lds + g * 3)
            ldb = tl.load(lds + g * 3 + 1)
            ldc = tl.load(lds + g * 3 + 2)
            a = tl.load(a_tab + g).to(tl.pointer_type(tl.float16))
            b = tl.load(b_tab + g).to(tl.pointer_type(tl.float16))
            c = tl.load(c_tab + g).to(tl.pointer_type(tl.float16))
            t = tile - done
            rm = (t // tiles_n) * BM + tl.arange(0, BM)
            rn = (t % tiles_n) * BN + tl.arange(0, BN)
            rk = tl.arange(0, BK)
            pa = a + rm[:, None] * lda + rk[None, :]
            pb = b + rk[:, None] * ldb + rn[None, :]
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for kk in range(0, tl.cdiv(kdim, BK)):
                acc += tl.dot(tl.load(pa), tl.load(pb))
                pa += BK
                pb += BK * ldb
            tl.store(c + rm[:, None] * ldc + rn[None, :], acc.to(tl.float16))
            tile += NPROG
        done = done + tiles


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_grouped_matmul_over_address_tables_writes_every_group(executor):
    """With the table loads kept in the while loop, hoisting the while loop's scalar code left every
    group after the first unwritten on MTIA (Triton's tutorial 08 on main a86a7cc): the hoisted code
    made the outer loop's counter spill, and a spilled register that an instruction both reads and
    writes lost its reload (tests/compiler/backend/test_register_spills.py)."""
    from compiler.runtime import device_array
    rng = np.random.default_rng(10)
    sizes = [128, 64, 32]
    a = [device_array(rng.standard_normal((s, s)).astype(np.float16)) for s in sizes]
    b = [device_array(rng.standard_normal((s, s)).astype(np.float16)) for s in sizes]
    c = [device_array(np.full((s, s), np.nan, np.float16)) for s in sizes]
    tables = [np.array([x.data_ptr() for x in arrays], np.int64) for arrays in (a, b, c)]
    dims = np.array([[s, s, s] for s in sizes], np.int32).ravel()
    launch(grouped_matmul, (4,), *tables, dims, dims.copy(), len(sizes), 4, 32, 32, 32, executor=executor)
    for ai, bi, ci in zip(a, b, c):
        want = ai.to_host().astype(np.float32) @ bi.to_host().astype(np.float32)
        np.testing.assert_allclose(ci.to_host().astype(np.float32), want, rtol=1e-2, atol=5e-2)
