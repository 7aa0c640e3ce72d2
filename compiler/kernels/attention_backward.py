"""Flash-attention backward: dq, dk and dv of softmax(q k^T * scale [causal]) v without the score matrix.

The gradient of attention needs, for every query row i, the probabilities P_ij = exp(s_ij - lse_i)
(lse_i: the row's log-sum-exp) and delta_i = sum_d O_id dO_id (= sum_j P_ij dP_ij). With those two
per-row numbers each block of scores can be rebuilt from q and k alone, as the forward builds it:

    dV_j = sum_i P_ij dO_i            dP_ij = dO_i . V_j            dS_ij = P_ij (dP_ij - delta_i)
    dQ_i = scale * sum_j dS_ij K_j    dK_j = scale * sum_i dS_ij Q_i

Two kernels, after the FlashAttention-2 paper's split (a program owns what it writes, so nothing is
accumulated across programs with atomics):

- `attention_bwd_dq_kernel`: a program per block of queries of one (batch, head) streams the keys
  twice: once for the rows' running max and sum (the forward keeps neither: lse is recomputed, one
  q k^T pass more than a forward that saved it), once for dQ. It leaves lse and delta for the other.
- `attention_bwd_dkdv_kernel`: a program per block of keys of one (batch, kv head) streams the query
  blocks of every query head that reads that kv head (grouped-query attention sums their shares)
  and accumulates dK and dV in its local store; a causal program starts at the diagonal.

Scores are built transposed in the second ([keys, queries]: k q^T) so that dV and dK are plain
products with the tiles as loaded. q, k, v, the output and its gradient may have any (batch, head,
row) strides with a unit one on head_dim; the gradients are written contiguous [batch, heads, seq, d].
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import compiler as triton
import compiler.language as tl

LOG2E = 1.44269504          # exp(x) = exp2(x * log2(e)): the kernels work in the base-2 domain


@triton.jit
def attention_bwd_dq_kernel(Q, K, V, O, dO, dQ, LSE, Delta, sm_scale, seq_q, seq_k, heads,
                            sq_z, sq_h, sq_m, sk_z, sk_h, sk_n, sv_z, sv_h, sv_n, so_z, so_h, so_m,
                            sd_z, sd_h, sd_m,
                            GROUP: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                            BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    zh = tl.program_id(1)                     # batch * heads + head
    z = zh // heads
    h = zh % heads
    kv = h // GROUP
    k_base = K + z * sk_z + kv * sk_h
    v_base = V + z * sv_z + kv * sv_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    rows = offs_m < seq_q
    q = tl.load(Q + z * sq_z + h * sq_h + offs_m[:, None] * sq_m + offs_d[None, :], mask=rows[:, None], other=0.0)
    do = tl.load(dO + z * sd_z + h * sd_h + offs_m[:, None] * sd_m + offs_d[None, :], mask=rows[:, None], other=0.0)
    o = tl.load(O + z * so_z + h * so_h + offs_m[:, None] * so_m + offs_d[None, :], mask=rows[:, None], other=0.0)
    delta = tl.sum(o.to(tl.float32) * do.to(tl.float32), 1)
    qk_scale = sm_scale * 1.44269504
    hi = seq_k
    if CAUSAL:                                # torch's is_causal: query i sees keys 0..i
        hi = tl.minimum((start_m + 1) * BLOCK_M, seq_k)
    # pass 1: each row's log-sum-exp (base 2), as the forward's running max and sum
    m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_base + cols[:, None] * sk_n + offs_d[None, :], mask=cols[:, None] < seq_k, other=0.0)
        qk = tl.dot(q, tl.trans(k))
        keep = cols[None, :] < seq_k
        if CAUSAL:
            keep = keep & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(keep, qk, -1.0e6)
        m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        l_i = l_i * tl.math.exp2(m_i - m_new) + tl.sum(tl.math.exp2(tl.fma(qk, qk_scale, -m_new[:, None])), 1)
        m_i = m_new
    lse = m_i + tl.math.log2(l_i)
    # pass 2: dQ
    dq = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_base + cols[:, None] * sk_n + offs_d[None, :], mask=cols[:, None] < seq_k, other=0.0)
        v = tl.load(v_base + cols[:, None] * sv_n + offs_d[None, :], mask=cols[:, None] < seq_k, other=0.0)
        qk = tl.dot(q, tl.trans(k))
        keep = cols[None, :] < seq_k
        if CAUSAL:
            keep = keep & (offs_m[:, None] >= cols[None, :])
        p = tl.where(keep, tl.math.exp2(tl.fma(qk, qk_scale, -lse[:, None])), 0.0)
        dp = tl.dot(do, tl.trans(v))
        ds = p * (dp - delta[:, None])
        dq = tl.dot(ds.to(k.dtype), k, dq)
    row = zh * seq_q + offs_m
    tl.store(dQ + row[:, None] * HEAD_DIM + offs_d[None, :], (dq * sm_scale).to(dQ.dtype.element_ty),
             mask=rows[:, None])
    tl.store(LSE + row, lse, mask=rows)
    tl.store(Delta + row, delta, mask=rows)


@triton.jit
def attention_bwd_dkdv_kernel(Q, K, V, dO, dK, dV, LSE, Delta, sm_scale, seq_q, seq_k, heads, kv_heads,
                              sq_z, sq_h, sq_m, sk_z, sk_h, sk_n, sv_z, sv_h, sv_n, sd_z, sd_h, sd_m,
                              GROUP: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                              BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_n = tl.program_id(0)
    zkv = tl.program_id(1)                    # batch * kv_heads + kv head
    z = zkv // kv_heads
    kv = zkv % kv_heads
    offs_n = start_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    cols = offs_n < seq_k
    k = tl.load(K + z * sk_z + kv * sk_h + offs_n[:, None] * sk_n + offs_d[None, :], mask=cols[:, None], other=0.0)
    v = tl.load(V + z * sv_z + kv * sv_h + offs_n[:, None] * sv_n + offs_d[None, :], mask=cols[:, None], other=0.0)
    dk = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    lo = 0
    if CAUSAL:                                # queries before this block's first key see none of it
        lo = (start_n * BLOCK_N // BLOCK_M) * BLOCK_M
    for g in range(GROUP):                    # the query heads that read this kv head
        h = kv * GROUP + g
        zh = z * heads + h
        q_base = Q + z * sq_z + h * sq_h
        do_base = dO + z * sd_z + h * sd_h
        for start_m in range(lo, seq_q, BLOCK_M):
            rows = start_m + offs_m
            q = tl.load(q_base + rows[:, None] * sq_m + offs_d[None, :], mask=rows[:, None] < seq_q, other=0.0)
            do = tl.load(do_base + rows[:, None] * sd_m + offs_d[None, :], mask=rows[:, None] < seq_q, other=0.0)
            lse = tl.load(LSE + zh * seq_q + rows, mask=rows < seq_q, other=0.0)
            delta = tl.load(Delta + zh * seq_q + rows, mask=rows < seq_q, other=0.0)
            qk_t = tl.dot(k, tl.trans(q))                       # [keys, queries]
            keep = rows[None, :] < seq_q
            if CAUSAL:
                keep = keep & (rows[None, :] >= offs_n[:, None])
            p_t = tl.where(keep, tl.math.exp2(tl.fma(qk_t, qk_scale, -lse[None, :])), 0.0)
            dv = tl.dot(p_t.to(do.dtype), do, dv)
            dp_t = tl.dot(v, tl.trans(do))
            ds_t = p_t * (dp_t - delta[None, :])
            dk = tl.dot(ds_t.to(q.dtype), q, dk)
    out = zkv * seq_k + offs_n
    tl.store(dK + out[:, None] * HEAD_DIM + offs_d[None, :], (dk * sm_scale).to(dK.dtype.element_ty), mask=cols[:, None])
    tl.store(dV + out[:, None] * HEAD_DIM + offs_d[None, :], dv.to(dV.dtype.element_ty), mask=cols[:, None])


def blocks(seq_q: int, seq_k: int, head_dim: int, itemsize: int, ls_bytes: int) -> int:
    """One block size for queries and keys (a causal program's diagonal then lies in one block): 64
    where the dK/dV program's tiles fit the local store twice over (loads run ahead of use), else 32,
    16; no larger than the sequences need."""
    need = max(16, 1 << (max(seq_q, seq_k, 1) - 1).bit_length())
    for block in (64, 32, 16):
        # k, v, q, dO tiles; f32 dK and dV accumulators; f32 [block, block] scores, p, dp and ds
        tiles = 4 * block * head_dim * itemsize + 2 * block * head_dim * 4 + 4 * block * block * 4
        if block <= need and 2 * tiles <= ls_bytes:
            return block
    return 16


@dataclass(frozen=True)
class BackwardCall:
    """One attention backward as the kernels see it."""
    batch: int
    heads: int
    kv_heads: int
    seq_q: int
    seq_k: int
    head_dim: int
    causal: bool
    block: int

    def constants(self) -> dict:
        return dict(GROUP=self.heads // self.kv_heads, HEAD_DIM=self.head_dim, BLOCK_M=self.block,
                    BLOCK_N=self.block, CAUSAL=self.causal)

    def row_shape(self) -> tuple:
        """Shape of the per-row lse and delta the dq kernel leaves for the dk/dv kernel (f32)."""
        return (self.batch * self.heads, self.seq_q)

    def launches(self, q, k, v, o, do, dq, dk, dv, lse, delta, sm_scale, strides: dict) -> list:
        """(kernel, grid, arguments, constexprs) of the two launches; `strides`: (batch, head, row) element
        strides of "q", "k", "v", "o" and "do"."""
        s = strides
        dq_args = (q, k, v, o, do, dq, lse, delta, sm_scale, self.seq_q, self.seq_k, self.heads,
                   *s["q"], *s["k"], *s["v"], *s["o"], *s["do"])
        dkdv_args = (q, k, v, do, dk, dv, lse, delta, sm_scale, self.seq_q, self.seq_k, self.heads, self.kv_heads,
                     *s["q"], *s["k"], *s["v"], *s["do"])
        return [(attention_bwd_dq_kernel, (-(-self.seq_q // self.block), self.batch * self.heads), dq_args,
                 self.constants()),
                (attention_bwd_dkdv_kernel, (-(-self.seq_k // self.block), self.batch * self.kv_heads), dkdv_args,
                 self.constants())]


def arrange_backward(q_shape: tuple, k_shape: tuple, causal: bool, itemsize: int, ls_bytes: int) -> BackwardCall:
    batch, heads, seq_q, head_dim = q_shape
    return BackwardCall(batch, heads, k_shape[1], seq_q, k_shape[2], head_dim, causal,
                        blocks(seq_q, k_shape[2], head_dim, itemsize, ls_bytes))


def _strides(x: np.ndarray) -> tuple:
    return tuple(st // x.itemsize for st in x.strides[:3])


def flash_attention_backward(q, k, v, o, do, causal: bool = False, sm_scale: float | None = None, **launch):
    """dq, dk, dv of attention over numpy arrays (q, o, do: [batch, heads, seq_q, d]; k, v: [batch, kv_heads,
    seq_k, d]); returns ((dq, dk, dv), runs)."""
    props = triton.runtime.driver.active.utils.get_device_properties(0)
    call = arrange_backward(q.shape, k.shape, causal, q.itemsize, props["max_shared_mem"])
    dq, dk, dv = (np.full(x.shape, np.nan, x.dtype) for x in (q, k, v))
    lse, delta = np.empty(call.row_shape(), np.float32), np.empty(call.row_shape(), np.float32)
    scale = sm_scale if sm_scale is not None else 1.0 / np.sqrt(q.shape[-1])
    strides = {n: _strides(x) for n, x in (("q", q), ("k", k), ("v", v), ("o", o), ("do", do))}
    if causal:
        launch.setdefault("pe_mapping", "zigzag")
    runs = [kernel[grid](*args, **consts, **launch)
            for kernel, grid, args, consts in call.launches(q, k, v, o, do, dq, dk, dv, lse, delta, scale, strides)]
    return (dq, dk, dv), runs


def reference_backward(q, k, v, do, causal: bool = False, sm_scale: float | None = None):
    """dq, dk, dv in float64 numpy (kv heads repeated over their groups, their gradients summed back)."""
    group = q.shape[1] // k.shape[1]
    qf, dof = q.astype(np.float64), do.astype(np.float64)
    kf, vf = (np.repeat(x.astype(np.float64), group, 1) for x in (k, v))
    scale = sm_scale if sm_scale is not None else 1.0 / np.sqrt(q.shape[-1])
    s = qf @ np.swapaxes(kf, -1, -2) * scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    dv = np.swapaxes(p, -1, -2) @ dof
    dp = dof @ np.swapaxes(vf, -1, -2)
    ds = p * (dp - (dp * p).sum(-1, keepdims=True))
    dq = ds @ kf * scale
    dk = np.swapaxes(ds, -1, -2) @ qf * scale
    fold = lambda x: x.reshape(x.shape[0], -1, group, *x.shape[2:]).sum(2)     # noqa: E731
    return dq, fold(dk), fold(dv)
