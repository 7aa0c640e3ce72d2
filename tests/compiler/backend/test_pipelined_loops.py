"""Loops written software-pipelined (a block computed one iteration ahead and carried): the carried
tile rotates through two slots of its buffer instead of being copied at the end of each iteration,
and a tl.dot without an accumulator writes its result fresh (no zero tile filled first). Both
executors agree with numpy."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.backend.options import BackendOptions
from simulator import use_config

from executors import EXECUTORS, launch


@triton.jit
def ahead(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out = sum over blocks j of (a @ b_j) * 2, with a @ b_{j+1} issued before block j's scaling."""
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :])
    acc = tl.zeros([BLOCK, BLOCK], dtype=tl.float32)
    s = tl.dot(a, tl.load(b_ptr + r[:, None] * BLOCK + r[None, :]))
    for j in range(1, n):
        cur = s * 2.0
        s = tl.dot(a, tl.load(b_ptr + j * BLOCK * BLOCK + r[:, None] * BLOCK + r[None, :]))
        acc += cur
    acc += s * 2.0
    tl.store(out_ptr + r[:, None] * BLOCK + r[None, :], acc)


def _inputs(n, block=32):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((block, block)).astype(np.float16)
    b = rng.standard_normal((n, block, block)).astype(np.float16)
    ref = sum((a.astype(np.float32) @ b[j].astype(np.float32)) * 2 for j in range(n))
    return a, b, ref


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("n", [1, 2, 5])
def test_a_block_computed_one_iteration_ahead_is_right_on_both_executors(executor, n):
    a, b, ref = _inputs(n)
    out = np.full((32, 32), np.nan, np.float32)
    launch(ahead, (1,), a, b, out, n, executor=executor, BLOCK=32)
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-3)


def test_the_carried_block_rotates_through_two_slots_without_a_copy():
    a, b, _ = _inputs(3)
    asm = ahead.compile(a, b, np.zeros((32, 32), np.float32), 3, BLOCK=32).asm["mtia-asm"]
    loop = asm[asm.index("for_1:"):asm.index("endfor_2:")]
    s_cb = next(ln for ln in asm.splitlines() if "dpe.mm" in ln).split()[1].split(".")[0]     # e.g. cb3
    assert f"dpe.mm {s_cb}.push" in loop                     # the next block goes to the next slot
    assert f"{s_cb}.pop" in loop                             # its old value is popped by its last reader
    assert "se.mov" not in loop                              # and nothing copies it at the yield
    assert "slots=2" in next(ln for ln in asm.splitlines() if ln.startswith(f".cb {s_cb[2:]} "))


def test_a_dot_without_accumulator_fills_no_zero_tile():
    @triton.jit
    def mm(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
        r = tl.arange(0, BLOCK)
        a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :])
        b = tl.load(b_ptr + r[:, None] * BLOCK + r[None, :])
        tl.store(out_ptr + r[:, None] * BLOCK + r[None, :], tl.dot(a, b))

    a, b, _ = _inputs(1)
    asm = mm.compile(a, b[0], np.zeros((32, 32), np.float32), BLOCK=32).asm["mtia-asm"]
    assert "se.fill" not in asm and "dpe.mm" in asm and ".push" in asm.split("dpe.mm")[1].split(",")[0]


def test_rotation_off_copies_the_carried_block_and_gives_the_same_numbers():
    a, b, ref = _inputs(4)
    outs = []
    for opts in ({}, {"rotate_carried": False}):
        out = np.full((32, 32), np.nan, np.float32)
        with use_config("mtia-small"):
            ahead[(1,)](a, b, out, 4, BLOCK=32, mtia_options=opts)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_allclose(outs[0], ref, rtol=1e-3, atol=1e-3)
    from compiler.runtime.mtia_executor import mtia_program
    from simulator import get_config
    compiled = ahead.compile(a, b, outs[0], 4, BLOCK=32)
    off = mtia_program(compiled, get_config(), 3, BackendOptions.of({"rotate_carried": False}))[0].to_asm()
    assert "se.mov" in off[off.index("for_1:"):off.index("endfor_2:")]
