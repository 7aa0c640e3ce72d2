"""Flash-attention forward (Triton tutorial 06's algorithm): each program owns BLOCK_M queries of
one (batch, head), streams blocks of keys and values through the local store, and keeps a running
max, running sum and output accumulator, so the N x N score matrix never exists. The causal
variant stops at the diagonal; its programs do unequal work, which the zigzag PE mapping balances.
"""
from __future__ import annotations

import numpy as np

import compiler as triton
import compiler.language as tl

from . import LibraryKernel


@triton.jit
def _online_softmax(qk, cols, offs_m, m_i, l_i, acc, qk_scale, seq_len, CAUSAL: tl.constexpr, EVEN_N: tl.constexpr):
    """One block of scores into the running max, sum and rescaled accumulator; p as the DPE's f16."""
    if CAUSAL or not EVEN_N:                  # only then can a score fall outside the sequence
        keep = cols[None, :] < seq_len
        if CAUSAL:
            keep = keep & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(keep, qk, -1.0e6)
    # the scale folds into the exponent (qk_scale > 0, so max(qk * s) = s * max(qk)): one fma
    m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
    p = tl.math.exp2(tl.fma(qk, qk_scale, -m_ij[:, None]))
    alpha = tl.math.exp2(m_i - m_ij)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None]
    return p.to(tl.float16), m_ij, l_i, acc


@triton.jit
def attention_fwd_kernel(Q, K, V, Out, sm_scale, seq_len, stride_head, HEAD_DIM: tl.constexpr,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, EVEN_N: tl.constexpr):
    start_m = tl.program_id(0)
    head = tl.program_id(1)
    base = head * stride_head
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_m[:, None] < seq_len, other=0.0)
    m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504          # exp(x) = exp2(x * log2(e))
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, seq_len)
    else:
        hi = seq_len
    # Software-pipelined by one block: the scores of block j + 1 are issued to the DPE before p @ v of
    # block j, so the DPE multiplies them while the RE and SE turn block j's scores into p (each engine
    # runs its commands in order: without this, the DPE would wait for every block's softmax).
    k = tl.load(K + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_n[:, None] < seq_len, other=0.0)
    qk = tl.dot(q, tl.trans(k))
    for start_n in range(0, hi - BLOCK_N, BLOCK_N):
        cols = start_n + offs_n
        p, m_i, l_i, acc = _online_softmax(qk, cols, offs_m, m_i, l_i, acc, qk_scale, seq_len, CAUSAL, EVEN_N)
        nxt = cols + BLOCK_N
        k_next = tl.load(K + base + nxt[:, None] * HEAD_DIM + offs_d[None, :], mask=nxt[:, None] < seq_len, other=0.0)
        qk = tl.dot(q, tl.trans(k_next))
        v = tl.load(V + base + cols[:, None] * HEAD_DIM + offs_d[None, :], mask=cols[:, None] < seq_len, other=0.0)
        acc = tl.dot(p, v, acc)
    last = (tl.maximum(hi - 1, 0) // BLOCK_N) * BLOCK_N + offs_n      # the block the loop left in qk
    p, m_i, l_i, acc = _online_softmax(qk, last, offs_m, m_i, l_i, acc, qk_scale, seq_len, CAUSAL, EVEN_N)
    v = tl.load(V + base + last[:, None] * HEAD_DIM + offs_d[None, :], mask=last[:, None] < seq_len, other=0.0)
    acc = tl.dot(p, v, acc)
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(Out.dtype.element_ty),
             mask=offs_m[:, None] < seq_len)


def attention(q, k, v, causal: bool = False, sm_scale: float | None = None, BLOCK_M: int | None = None,
              BLOCK_N: int = 64, **launch):
    """q, k, v: [heads, seq_len, head_dim] f16. BLOCK_M defaults to 128 queries (each program then
    streams K and V once per 128 queries: half the SRAM traffic of 64) where the local store holds
    that block's tiles double-buffered, else 64."""
    heads, seq_len, head_dim = q.shape
    if BLOCK_M is None:
        BLOCK_M = 128 if _tile_bytes(128, BLOCK_N, head_dim) <= _ls_bytes() else 64
    out = np.full_like(q, np.nan)
    scale = sm_scale if sm_scale is not None else 1.0 / np.sqrt(head_dim)
    if causal:
        launch.setdefault("pe_mapping", "zigzag")
    run = attention_fwd_kernel[(triton.cdiv(seq_len, BLOCK_M), heads)](
        q, k, v, out, scale, seq_len, q.strides[0] // q.itemsize, HEAD_DIM=head_dim, BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N, CAUSAL=causal, EVEN_N=seq_len % BLOCK_N == 0, **launch)
    return (out,), [run]


def _tile_bytes(block_m: int, block_n: int, head_dim: int) -> int:
    """Local store the kernel's big tiles take at the depths that keep its engines busy: q (f16) in
    two slots, the f32 accumulator in one, the f32 scores in their two rotating slots, and about ten
    slots of f16 key and value blocks (the loop's three-deep loads, the prologue's and epilogue's)."""
    return 2 * block_m * head_dim * 2 + block_m * head_dim * 4 + 2 * block_m * block_n * 4 + 10 * block_n * head_dim * 2


def _ls_bytes() -> int:
    """A PE's local store, as the driver reports the device's shared memory per SM."""
    return triton.runtime.driver.active.utils.get_device_properties(0)["max_shared_mem"]


def attention_causal(q, k, v, **meta):
    return attention(q, k, v, causal=True, **meta)


def reference(q, k, v, causal: bool = False):
    qf, kf, vf = (x.astype(np.float32) for x in (q, k, v))
    s = qf @ np.swapaxes(kf, 1, 2) / np.sqrt(q.shape[-1])
    if causal:
        n = q.shape[1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return ((p / p.sum(-1, keepdims=True) @ vf).astype(q.dtype),)


def reference_causal(q, k, v):
    return reference(q, k, v, causal=True)


def make_inputs(shape, rng):
    heads, seq_len, head_dim = shape
    return tuple((rng.standard_normal((heads, seq_len, head_dim)) / 2).astype(np.float16) for _ in range(3))


LIBRARY = [
    LibraryKernel("attention", "flash-attention forward, f16", attention, reference, make_inputs, (16, 1024, 64),
                  ((1, 64, 16), (2, 100, 32), (3, 130, 64)), rtol=2e-2, atol=2e-2,
                  dims=("heads", "seq_len", "head_dim")),
    LibraryKernel("attention_causal", "causal flash-attention forward, f16 (zigzag PE mapping)", attention_causal,
                  reference_causal, make_inputs, (16, 1024, 64), ((1, 64, 16), (2, 100, 32), (3, 130, 64)),
                  rtol=2e-2, atol=2e-2, dims=("heads", "seq_len", "head_dim")),
]
