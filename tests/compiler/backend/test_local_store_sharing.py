"""Tiles that are never live at once share a circular buffer when one slot each does not fit the local
store (compiler/backend/passes/share_ls.py), rotating loop-carried accumulators included.

Found with upstream tutorial 06's attention backward at its own blocks (32, 128, 128, 32): its dK/dV
loop and its dQ loop are each split into two calls of a helper, and each call's loop carries f32
accumulators in two rotating slots. On MTIA it was refused (OutOfResources, 398,720 bytes against
392,192) although the loops run one after another: sharing was tried only when one slot each did not
fit (the rotating tiles' second slots were not counted), rotating tiles were never shared, and the
one `tl.zeros` the three accumulators began from (merged by common subexpression elimination) held
its tile from the first loop to the last. The kernel here is written from scratch in that shape and
checked against numpy on both executors, its outputs poisoned with NaN.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from simulator import use_config

from executors import EXECUTORS, launch

HD = 64
BLOCKS = dict(BM1=32, BN1=128, BM2=128, BN2=32)        # the tutorial's own


@triton.jit
def _key_grads(dk, dv, Q, k, v, DO, M, D, lo, hi, BM: tl.constexpr, HD: tl.constexpr):
    offs_d = tl.arange(0, HD)
    for start in range(lo, hi, BM):
        rows = start + tl.arange(0, BM)
        qT = tl.load(Q + rows[None, :] * HD + offs_d[:, None])
        pT = tl.math.exp2(tl.dot(k, qT) - tl.load(M + rows)[None, :])
        do = tl.load(DO + rows[:, None] * HD + offs_d[None, :])
        dv += tl.dot(pT.to(tl.float16), do)
        dpT = tl.dot(v, tl.trans(do))
        dsT = (pT * (dpT - tl.load(D + rows)[None, :])).to(tl.float16)
        dk += tl.dot(dsT, tl.trans(qT))
    return dk, dv


@triton.jit
def _query_grads(dq, q, do, m, Di, K, V, lo, hi, BN: tl.constexpr, HD: tl.constexpr):
    offs_d = tl.arange(0, HD)
    for start in range(lo, hi, BN):
        cols = start + tl.arange(0, BN)
        kT = tl.load(K + cols[None, :] * HD + offs_d[:, None])
        vT = tl.load(V + cols[None, :] * HD + offs_d[:, None])
        p = tl.math.exp2(tl.dot(q, kT) - m)
        ds = (p * (tl.dot(do, vT) - Di[:, None])).to(tl.float16)
        dq += tl.dot(ds, tl.trans(kT))
    return dq


@triton.jit
def attention_grads(Q, K, V, DO, M, D, DQ, DK, DV, N_CTX, BM1: tl.constexpr, BN1: tl.constexpr,
                    BM2: tl.constexpr, BN2: tl.constexpr, HD: tl.constexpr):
    pid = tl.program_id(0)
    offs_d = tl.arange(0, HD)
    keys = pid * BN1 + tl.arange(0, BN1)
    k = tl.load(K + keys[:, None] * HD + offs_d[None, :])
    v = tl.load(V + keys[:, None] * HD + offs_d[None, :])
    dk = tl.zeros([BN1, HD], dtype=tl.float32)
    dv = tl.zeros([BN1, HD], dtype=tl.float32)
    dk, dv = _key_grads(dk, dv, Q, k, v, DO, M, D, 0, BN1, BM1 // 2, HD)     # half steps, then whole ones
    dk, dv = _key_grads(dk, dv, Q, k, v, DO, M, D, BN1, N_CTX, BM1, HD)
    tl.store(DV + keys[:, None] * HD + offs_d[None, :], dv)
    tl.store(DK + keys[:, None] * HD + offs_d[None, :], dk)
    queries = pid * BM2 + tl.arange(0, BM2)
    q = tl.load(Q + queries[:, None] * HD + offs_d[None, :])
    do = tl.load(DO + queries[:, None] * HD + offs_d[None, :])
    m = tl.load(M + queries)[:, None]
    Di = tl.load(D + queries)
    dq = tl.zeros([BM2, HD], dtype=tl.float32)
    dq = _query_grads(dq, q, do, m, Di, K, V, 0, BM2, BN2 // 2, HD)
    dq = _query_grads(dq, q, do, m, Di, K, V, BM2, N_CTX, BN2, HD)
    tl.store(DQ + queries[:, None] * HD + offs_d[None, :], dq)


def _problem(n, seed=0):
    """Inputs as the forward pass leaves them (log2-domain row statistics) and the fp64 gradients."""
    rng = np.random.default_rng(seed)
    q, k, v, do = (rng.normal(0, 0.5, (n, HD)).astype(np.float16) for _ in range(4))
    s = q.astype(np.float64) @ k.astype(np.float64).T
    m = (np.log2(np.exp(s - s.max(1, keepdims=True)).sum(1)) + s.max(1) / np.log(2)).astype(np.float32)
    k2 = (k.astype(np.float32) / np.log(2)).astype(np.float16)
    p = np.exp2(q.astype(np.float64) @ k2.astype(np.float64).T - m[:, None])
    delta = ((p @ v.astype(np.float64)) * do.astype(np.float64)).sum(1).astype(np.float32)
    ds = p * (do.astype(np.float64) @ v.astype(np.float64).T - delta[:, None])
    want = dict(dq=ds @ k2.astype(np.float64), dk=ds.T @ q.astype(np.float64), dv=p.T @ do.astype(np.float64))
    return (q, k2, v, do, m, delta), want


@pytest.mark.parametrize("executor", EXECUTORS)
def test_split_loops_at_the_tutorials_blocks(executor):
    n = 256
    inputs, want = _problem(n)
    got = {name: np.full((n, HD), np.nan, np.float32) for name in ("dq", "dk", "dv")}
    launch(attention_grads, (n // BLOCKS["BN1"],), *inputs, got["dq"], got["dk"], got["dv"], n,
           executor=executor, HD=HD, **BLOCKS)
    for name, ref in want.items():
        np.testing.assert_allclose(got[name], ref, rtol=0, atol=2e-3, err_msg=name)


def test_rotating_accumulators_share_one_buffer():
    """On MTIA the dQ accumulator takes the buffer the dK or dV one left (a name joined with `|`, two
    slots); the plan fits the local store."""
    n = 256
    inputs, _ = _problem(n)
    outs = [np.empty((n, HD), np.float32) for _ in range(3)]
    with use_config("mtia-small"):
        compiled = attention_grads.compile(*inputs, *outs, n, HD=HD, **BLOCKS)
        plan = compiled.asm["mtia.allocate-ls"]
    shared = [line for line in plan.splitlines() if "mtia.cb" in line and "dq" in line]
    assert len(shared) == 1 and "|" in shared[0] and "min_slots = 2" in shared[0], shared


def test_each_accumulator_starts_from_its_own_fill():
    """The three `tl.zeros` merged into one constant become one fill per loop that starts from it on
    MTIA (bufferize's `_own_constant_inits`): three fills of 128x64 f32."""
    n = 256
    inputs, _ = _problem(n)
    outs = [np.empty((n, HD), np.float32) for _ in range(3)]
    with use_config("mtia-small"):
        text = attention_grads.compile(*inputs, *outs, n, HD=HD, **BLOCKS).asm["mtia.bufferize"]
    fills = [line for line in text.splitlines() if "arith.constant" in line and line.endswith("tensor<128x64xf32>")]
    assert len(fills) == 3, fills
