"""A program that spins on a flag another program sets (`while tl.load(flag, volatile=True) == 0`) ends once
the flag is set. On MTIA it never did, for two reasons: loop-invariant code motion moved the volatile load
out of the loop (the loop writes no memory), and the control core, which runs scalar code ahead of the
clock, read global memory at a time before the other PE's write, every time. The interpreter runs programs
one after another, as Triton's does, so there the setter must be the earlier program."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch


@triton.jit
def hand_over(flag, data, out, spins, N: tl.constexpr):
    pid = tl.program_id(0)
    if pid == 0:
        offs = tl.arange(0, N)
        tl.store(data + offs, tl.load(data + offs) * 2 + 1)     # some work first
        tl.atomic_xchg(flag, 1)
    else:
        n = 0
        while tl.load(flag, volatile=True) == 0:
            n += 1
        tl.store(spins + pid, n)
        offs = tl.arange(0, N)
        tl.store(out + (pid - 1) * N + offs, tl.load(data + offs))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_waiters_see_the_flag_and_the_data_before_it(executor):
    n, waiters = 256, 3
    data = np.random.default_rng(0).integers(-1000, 1000, n).astype(np.int32)
    out = np.full((waiters, n), -7, np.int32)
    spins = np.full(waiters + 1, -1, np.int32)
    launch(hand_over, (waiters + 1,), np.zeros(1, np.int32), data.copy(), out, spins, executor=executor, N=n)
    np.testing.assert_array_equal(out, np.broadcast_to(data * 2 + 1, (waiters, n)))
    assert (spins[1:] >= 0).all()
    if executor == "mtia":
        assert (spins[1:] > 0).all()        # they ran beside the setter, and waited for it


def test_the_volatile_load_stays_in_the_loop():
    asm = hand_over.compile(np.zeros(1, np.int32), np.zeros(8, np.int32), np.zeros(8, np.int32),
                            np.zeros(2, np.int32), N=8).asm["mtia-asm"].splitlines()
    loop = asm.index(next(line for line in asm if line.startswith("while_")))
    assert any(line.strip().startswith("lw ") for line in asm[loop: loop + 4])
