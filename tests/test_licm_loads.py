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
from executors import EXECUTORS, launch
from simulator import use_config


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
def persistent_grouped_axpy(a_table, c_table, sizes_ptr, groups, alpha, NPROG: tl.constexpr, BLOCK: tl.constexpr):
    """The grouped-GEMM tutorial's loop nest: programs walk the tiles of every group, the group's arrays
    reached through address tables loaded inside the while loop (which also stores)."""
    tile = tl.program_id(0)
    last = 0
    for g in range(groups):
        n = tl.load(sizes_ptr + g)
        num_tiles = tl.cdiv(n, BLOCK)
        while tile >= last and tile < last + num_tiles:
            a = tl.load(a_table + g).to(tl.pointer_type(tl.float32))
            c = tl.load(c_table + g).to(tl.pointer_type(tl.float32))
            ld = tl.load(sizes_ptr + g)                       # the tutorial's leading dimensions
            offs = (tile - last) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            acc = tl.zeros((BLOCK,), tl.float32)
            a_ptrs = a + offs
            for k in range(0, tl.cdiv(ld, n), 1):
                acc += tl.load(a_ptrs, mask=m) * alpha
                a_ptrs += 0 * ld
            tl.store(c + offs, acc, mask=m)
            tile += NPROG
        last += num_tiles


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_persistent_loop_over_groups_writes_every_group(executor):
    """The loop nest of tutorial 08, whose groups after the first were left unwritten on MTIA when the
    while loop's scalar code was hoisted with its loads kept inside (main a86a7cc). This smaller kernel
    does not trigger that bug (the tutorial itself does, and is checked by the tutorial harness); it
    checks the pattern's values on both executors."""
    from compiler.runtime import device_array
    rng = np.random.default_rng(9)
    sizes = [300, 64, 130, 17]
    a = [device_array(rng.standard_normal(s).astype(np.float32)) for s in sizes]
    c = [device_array(np.full(s, np.nan, np.float32)) for s in sizes]
    tables = [np.array([x.data_ptr() for x in arrays], np.int64) for arrays in (a, c)]
    launch(persistent_grouped_axpy, (3,), *tables, np.array(sizes, np.int32), len(sizes), 2.0, 3, 64,
           executor=executor)
    for ai, ci in zip(a, c):
        np.testing.assert_array_equal(ci.to_host(), ai.to_host() * np.float32(2.0))
