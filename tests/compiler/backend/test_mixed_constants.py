"""A constant read both as a whole tile and as a scalar: CSE merges the zero accumulator of a matmul
with the `0` of a later `x >= 0`, and the tile must not stay live until that comparison.

Before map-engines split such constants, the zeros tile (128 KiB at 128x256 f32) lived from the loop's
start to the epilogue's compare, so the loop could not accumulate in place: the leaky-ReLU matmul of
Triton's indirected-loads tutorial, at its own 128x256x64 blocks, needed 412,480 bytes of local store
where mtia-2i has 392,192, and was refused."""
import numpy as np
import pytest

import compiler
import compiler.language as tl
from simulator import use_config

from executors import EXECUTORS


@compiler.jit
def matmul_leaky(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(a, b)
    acc = acc + 1
    acc = tl.where(acc >= 0, acc, 0.01 * acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_leaky_epilogue_of_a_full_size_accumulator_fits(executor):
    BM, BN, BK, K = 128, 256, 64, 128
    rng = np.random.default_rng(7)
    a = rng.standard_normal((BM, K)).astype(np.float16)
    b = rng.standard_normal((K, BN)).astype(np.float16)
    c = np.full((BM, BN), np.nan, np.float16)
    with use_config("mtia-2i"):           # the tutorial's blocks fill 2i's local store; mtia-small's is smaller
        rec = matmul_leaky[(1,)](a, b, c, K, BM=BM, BN=BN, BK=BK, executor=executor)
    if executor == "mtia":
        assert rec.executor == "mtia" and rec.cycles > 0
    ref = a.astype(np.float32) @ b.astype(np.float32) + 1
    ref = np.where(ref >= 0, ref, np.float32(0.01) * ref)
    assert not np.isnan(c).any()
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=2e-3, atol=2e-2)
    assert (c < 0).any() and (c > 0).any()      # both sides of the ReLU taken


def test_the_compare_reads_a_uniform_copy():
    a = np.ones((128, 128), np.float16)
    b = np.ones((128, 256), np.float16)
    c = np.zeros((128, 256), np.float16)
    with use_config("mtia-2i"):
        text = matmul_leaky.compile(a, b, c, 128, BM=128, BN=256, BK=64).asm["mtia.map-engines"]
    compares = [ln for ln in text.splitlines() if "arith.cmpf" in ln]
    assert len(compares) == 1
    operand = compares[0].split("arith.cmpf")[1].split(",")[1].split("{")[0].strip()
    defining = next(ln for ln in text.splitlines() if ln.strip().startswith(f"{operand} = "))
    assert 'engine = "uniform"' in defining, defining
