"""A spin lock (Triton's test_atomic_cas pattern) on both executors, and what its atomics cost on MTIA.

An atomic reads and writes its line in the LLC (the memory-side cache every PE's accesses pass), so
a lock many programs spin on stays cached: repeated atomics on one word move no DRAM bytes after the
line's first fill. The old model wrote each atomic's 4 bytes around the LLC to DRAM, and each retry
of a spinning CAS waited a DRAM round trip. The compare and new values of a CAS in a loop are filled
once before it (compiler/backend/passes/licm.py), not by three SE commands per retry.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from simulator import use_config

from executors import EXECUTORS, launch


@triton.jit
def serialized_add(data_ptr, lock_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    tl.store(data_ptr + offs, tl.load(data_ptr + offs) + 1.0)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr, 0)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_programs_take_a_spin_lock_one_at_a_time(executor):
    data = np.random.default_rng(2).integers(-1000, 1000, 32).astype(np.float32)   # (+1.0 each time: exact)
    want = data + 24
    lock = np.zeros(1, np.int32)
    launch(serialized_add, (24,), data, lock, 32, executor=executor)      # 24 programs on 4 PEs (mtia)
    np.testing.assert_array_equal(data, want)
    assert lock[0] == 0


def test_spinning_retries_stay_in_the_llc_and_refill_nothing():
    data, lock = np.zeros(32, np.float32), np.zeros(1, np.int32)
    with use_config("mtia-small"):
        rec = serialized_add[(24,)](data, lock, 32, executor="mtia")
        listing = serialized_add.compile(data, lock, 32).asm["mtia-asm"]
    assert (data == 24).all()
    loop = listing[listing.index("while_"):listing.index("endwhile_")]
    assert "dma.cas" in loop and "se.fill" not in loop      # one command per retry
    line = 128                                              # bytes (an LLC line; mtia-small)
    # the data block's line and the lock's: filled once each; nothing goes around to DRAM
    assert rec.report.bytes["dram_read"] <= 2 * line
    assert rec.report.bytes["dram_write"] == 0


@triton.jit
def count_up(counter_ptr, N: tl.constexpr):
    for _ in range(N):
        tl.atomic_add(counter_ptr, 1)


def test_repeated_atomics_on_one_word_read_its_line_once():
    counter = np.array([5], np.int32)
    with use_config("mtia-small"):
        rec = count_up[(1,)](counter, 64, executor="mtia")
    assert counter[0] == 5 + 64
    assert rec.report.bytes["dram_write"] == 0 and 0 < rec.report.bytes["dram_read"] <= 128
