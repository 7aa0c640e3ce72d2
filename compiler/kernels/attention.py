"""Flash-attention forward (Triton tutorial 06's algorithm): each program owns BLOCK_M queries of
one (batch, head), streams blocks of keys and values through the local store, and keeps a running
max, running sum and output accumulator, so the score matrix never exists. The causal variant
stops at the diagonal; its programs do unequal work, which the zigzag PE mapping balances.

q, k, v and the output are [batch, heads, seq, head_dim] with any strides but a unit one on
head_dim (the layouts a model's head transposes and packed projections leave), and k, v may have
fewer heads than q (grouped-query attention: q head h reads kv head h // GROUP).

Decode (a few queries against a long KV cache) has too few query blocks to fill the PEs: it runs
split-K ("flash-decoding"), each program taking one chunk of the keys and leaving its unnormalised
accumulator, running max and sum (SPLIT), and `attention_combine_kernel` merging the chunks, so
that the KV cache streams through every PE at once.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

import compiler as triton
import compiler.language as tl

from . import LibraryKernel


@triton.jit
def _online_softmax(qk, cols, offs_m, m_i, l_i, acc, qk_scale, seq_k, CAUSAL: tl.constexpr, EVEN_N: tl.constexpr):
    """One block of scores into the running max, sum and rescaled accumulator."""
    if CAUSAL or not EVEN_N:                  # only then can a score fall outside the keys
        keep = cols[None, :] < seq_k
        if CAUSAL:                            # torch's is_causal: query i sees keys 0..i
            keep = keep & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(keep, qk, -1.0e6)
    # the scale folds into the exponent (qk_scale > 0, so max(qk * s) = s * max(qk)): one fma
    m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
    p = tl.math.exp2(tl.fma(qk, qk_scale, -m_ij[:, None]))
    alpha = tl.math.exp2(m_i - m_ij)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None]
    return p, m_ij, l_i, acc


@triton.jit
def attention_fwd_kernel(Q, K, V, Out, M_part, L_part, sm_scale, seq_q, seq_k, heads, chunk,
                         sq_z, sq_h, sq_m, sk_z, sk_h, sk_n, sv_z, sv_h, sv_n, so_z, so_h, so_m,
                         GROUP: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                         CAUSAL: tl.constexpr, EVEN_N: tl.constexpr, SPLIT: tl.constexpr):
    start_m = tl.program_id(0)
    zh = tl.program_id(1)                     # batch * heads + head
    split = tl.program_id(2)                  # the chunk of keys (SPLIT), else 0
    z = zh // heads
    h = zh % heads
    kv = h // GROUP
    q_base = Q + z * sq_z + h * sq_h
    k_base = K + z * sk_z + kv * sk_h
    v_base = V + z * sv_z + kv * sv_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_base + offs_m[:, None] * sq_m + offs_d[None, :], mask=offs_m[:, None] < seq_q, other=0.0)
    m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504          # exp(x) = exp2(x * log2(e))
    lo = split * chunk
    hi = tl.minimum(lo + chunk, seq_k)
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, hi)
    # Software-pipelined by one block: the scores of block j + 1 are issued to the DPE before p @ v of
    # block j, so the DPE multiplies them while the RE and SE turn block j's scores into p (each engine
    # runs its commands in order: without this, the DPE would wait for every block's softmax).
    first = lo + offs_n
    k = tl.load(k_base + first[:, None] * sk_n + offs_d[None, :], mask=first[:, None] < seq_k, other=0.0)
    qk = tl.dot(q, tl.trans(k))
    for start_n in range(lo, hi - BLOCK_N, BLOCK_N):
        cols = start_n + offs_n
        p, m_i, l_i, acc = _online_softmax(qk, cols, offs_m, m_i, l_i, acc, qk_scale, seq_k, CAUSAL, EVEN_N)
        nxt = cols + BLOCK_N
        k_next = tl.load(k_base + nxt[:, None] * sk_n + offs_d[None, :], mask=nxt[:, None] < seq_k, other=0.0)
        qk = tl.dot(q, tl.trans(k_next))
        v = tl.load(v_base + cols[:, None] * sv_n + offs_d[None, :], mask=cols[:, None] < seq_k, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc)
    last = lo + (tl.maximum(hi - lo - 1, 0) // BLOCK_N) * BLOCK_N + offs_n      # the block the loop left in qk
    p, m_i, l_i, acc = _online_softmax(qk, last, offs_m, m_i, l_i, acc, qk_scale, seq_k, CAUSAL, EVEN_N)
    v = tl.load(v_base + last[:, None] * sv_n + offs_d[None, :], mask=last[:, None] < seq_k, other=0.0)
    acc = tl.dot(p.to(v.dtype), v, acc)
    rows = offs_m < seq_q
    if SPLIT:       # this chunk's share, unnormalised, with its max and sum (Out: f32 [splits, z * h, seq_q, d])
        part = (split * tl.num_programs(1) + zh) * seq_q + offs_m
        tl.store(Out + part[:, None] * HEAD_DIM + offs_d[None, :], acc, mask=rows[:, None])
        tl.store(M_part + part, m_i, mask=rows)
        tl.store(L_part + part, l_i, mask=rows)
    else:
        acc = acc / l_i[:, None]
        tl.store(Out + z * so_z + h * so_h + offs_m[:, None] * so_m + offs_d[None, :], acc.to(Out.dtype.element_ty),
                 mask=rows[:, None])


@triton.jit
def attention_combine_kernel(Part, M_part, L_part, Out, seq_q, heads, so_z, so_h, so_m,
                             SPLITS: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr):
    """The chunks' shares of one (batch, head)'s queries, rescaled to their common max and summed."""
    start_m = tl.program_id(0)
    zh = tl.program_id(1)
    z = zh // heads
    h = zh % heads
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    rows = offs_m < seq_q
    m = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    for s in range(SPLITS):
        m = tl.maximum(m, tl.load(M_part + (s * tl.num_programs(1) + zh) * seq_q + offs_m, mask=rows, other=0.0))
    l_sum = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for s in range(SPLITS):
        part = (s * tl.num_programs(1) + zh) * seq_q + offs_m
        w = tl.math.exp2(tl.load(M_part + part, mask=rows, other=0.0) - m)
        l_sum += w * tl.load(L_part + part, mask=rows, other=0.0)
        acc += w[:, None] * tl.load(Part + part[:, None] * HEAD_DIM + offs_d[None, :], mask=rows[:, None], other=0.0)
    acc = acc / l_sum[:, None]
    tl.store(Out + z * so_z + h * so_h + offs_m[:, None] * so_m + offs_d[None, :], acc.to(Out.dtype.element_ty),
             mask=rows[:, None])


@dataclass(frozen=True)
class Plan:
    """How one attention call launches: its block sizes, and the key chunks of a split-K run."""
    block_m: int
    block_n: int
    splits: int               # 1: one program per query block; more: split-K with a combine
    chunk: int                # keys per split (a multiple of block_n)

    def constants(self, head_dim: int, group: int, causal: bool, seq_k: int) -> dict:
        return dict(GROUP=group, HEAD_DIM=head_dim, BLOCK_M=self.block_m, BLOCK_N=self.block_n, CAUSAL=causal,
                    EVEN_N=seq_k % self.block_n == 0, SPLIT=self.splits > 1)


def plan(rows: int, seq_q: int, seq_k: int, head_dim: int, causal: bool, num_pes: int, ls_bytes: int) -> Plan:
    """Block sizes and splits for `rows` (batch * heads) programs' worth of queries on `num_pes` PEs.

    BLOCK_M is 128 queries where the local store holds that block's tiles (each program then streams
    K and V once per 128 queries: half the SRAM traffic of 64), else 64; a few queries take the
    smallest DPE tile (16). Such a decode call (a few queries against a long KV cache) has too few
    programs for the PEs: its keys split into chunks of whole blocks, one program each, enough to give
    every PE work, so the KV cache streams through all of them (unless causal: its blocks end at the
    diagonal). A prefill keeps one program per query block, as many as batch x heads x blocks."""
    if seq_q <= 16:
        block_m = 16
    else:
        block_m = 128 if _tile_bytes(128, 64, head_dim) <= ls_bytes and seq_q >= 128 else 64
    block_n = 128 if block_m == 16 and _tile_bytes(16, 128, head_dim) <= ls_bytes else 64
    programs = rows * -(-seq_q // block_m)
    blocks_n = -(-seq_k // block_n)
    splits = 1 if causal or block_m > 16 else min(-(-num_pes // programs), blocks_n)
    chunk = -(-blocks_n // splits) * block_n
    return Plan(block_m, block_n, -(-seq_k // chunk), chunk)


def _tile_bytes(block_m: int, block_n: int, head_dim: int) -> int:
    """Local store the kernel's big tiles take at the depths that keep its engines busy: q (f16) in
    two slots, the f32 accumulator in one, the f32 scores in their two rotating slots, and about ten
    slots of f16 key and value blocks (the loop's three-deep loads, the prologue's and epilogue's)."""
    return 2 * block_m * head_dim * 2 + block_m * head_dim * 4 + 2 * block_m * block_n * 4 + 10 * block_n * head_dim * 2


@dataclass(frozen=True)
class Call:
    """One attention call as the kernels see it: grouped heads of a single query folded into rows."""
    batch: int
    heads: int                # query heads the kernels index (kv heads where the groups fold)
    seq_q: int                # query rows per head (group * seq_q where the groups fold)
    seq_k: int
    head_dim: int
    group: int                # query heads per kv head left in the heads axis
    causal: bool
    q_strides: tuple          # (batch, head, row) element strides
    o_strides: tuple
    plan: Plan

    @property
    def grid(self) -> tuple:
        return (-(-self.seq_q // self.plan.block_m), self.batch * self.heads, self.plan.splits)

    def part_shapes(self) -> tuple:
        """Shapes of the split-K partial accumulator and of its max and sum (f32)."""
        rows = (self.plan.splits, self.batch * self.heads, self.seq_q)
        return (*rows, self.head_dim), rows

    def launches(self, q, k, v, out, part, m_part, l_part, sm_scale, k_strides, v_strides) -> list:
        """(kernel, grid, arguments, constexprs) of each launch, the split-K buffers used only where it splits."""
        p = self.plan
        consts = p.constants(self.head_dim, self.group, self.causal, self.seq_k)
        common = (sm_scale, self.seq_q, self.seq_k, self.heads, p.chunk, *self.q_strides, *k_strides, *v_strides,
                  *self.o_strides)
        if p.splits == 1:
            return [(attention_fwd_kernel, self.grid, (q, k, v, out, out, out, *common), consts)]
        return [(attention_fwd_kernel, self.grid, (q, k, v, part, m_part, l_part, *common), consts),
                (attention_combine_kernel, self.grid[:2], (part, m_part, l_part, out, self.seq_q, self.heads,
                                                           *self.o_strides),
                 dict(SPLITS=p.splits, HEAD_DIM=self.head_dim, BLOCK_M=p.block_m))]


def arrange(batch: int, heads: int, kv_heads: int, seq_q: int, seq_k: int, head_dim: int, causal: bool,
            q_strides: tuple, o_strides: tuple, num_pes: int, ls_bytes: int) -> Call:
    """The call over a query of `heads` and keys of `kv_heads` heads on `num_pes` PEs.

    A kv head's group of query heads is one program's rows (its keys and values then stream once, not
    once per query head) where the heads' rows follow one another in memory (always for one query
    token: decode) and no causal mask needs a row's position."""
    group = heads // kv_heads
    zq, hq, mq = q_strides
    zo, ho, mo = o_strides
    if group > 1 and not causal and (seq_q == 1 or (hq == seq_q * mq and ho == seq_q * mo)):
        mq, mo = (hq, ho) if seq_q == 1 else (mq, mo)
        heads, seq_q, hq, ho, group = kv_heads, group * seq_q, group * hq, group * ho, 1
    return Call(batch, heads, seq_q, seq_k, head_dim, group, causal, (zq, hq, mq), (zo, ho, mo),
                plan(batch * heads, seq_q, seq_k, head_dim, causal, num_pes, ls_bytes))


def _device() -> dict:
    """The active device's properties (`max_shared_mem`: a PE's local store; PEs as SMs)."""
    return triton.runtime.driver.active.utils.get_device_properties(0)


def _strides(x: np.ndarray) -> tuple:
    """Element strides of a [batch, heads, seq, head_dim] array over its first three axes."""
    return tuple(s // x.itemsize for s in x.strides[:3])


def flash_attention(q, k, v, causal: bool = False, sm_scale: float | None = None, **launch):
    """q: [batch, heads, seq_q, head_dim], k, v: [batch, kv_heads, seq_k, head_dim] (kv_heads divides
    heads), C-contiguous numpy arrays; the output is [batch, heads, seq_q, head_dim]."""
    batch, heads, seq_q, head_dim = q.shape
    out = np.full_like(q, np.nan)
    props = _device()
    call = arrange(batch, heads, k.shape[1], seq_q, k.shape[2], head_dim, causal, _strides(q), _strides(out),
                   props["multiprocessor_count"], props["max_shared_mem"])
    if "BLOCK_M" in launch or "BLOCK_N" in launch:       # block sizes given: one program per query block
        block_n = launch.pop("BLOCK_N", call.plan.block_n)
        call = dataclasses.replace(call, plan=Plan(launch.pop("BLOCK_M", call.plan.block_m), block_n, 1,
                                                   -(-call.seq_k // block_n) * block_n))
    if causal:
        launch.setdefault("pe_mapping", "zigzag")
    part_shape, row_shape = call.part_shapes()
    part, m_part, l_part = np.empty(part_shape, np.float32), np.empty(row_shape, np.float32), \
        np.empty(row_shape, np.float32)
    scale = sm_scale if sm_scale is not None else 1.0 / np.sqrt(head_dim)
    runs = [kernel[grid](*args, **consts, **launch)
            for kernel, grid, args, consts in call.launches(q, k, v, out, part, m_part, l_part, scale,
                                                            _strides(k), _strides(v))]
    return (out,), runs


def attention(q, k, v, causal: bool = False, sm_scale: float | None = None, **launch):
    """q, k, v: [heads, seq_len, head_dim] f16 (one batch of multi-head attention)."""
    (out,), runs = flash_attention(q[None], k[None], v[None], causal, sm_scale, **launch)
    return (out[0],), runs


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


def attention_decode(q, k, v, **meta):
    return flash_attention(q, k, v, **meta)


def reference_decode(q, k, v):
    """softmax(q k^T / sqrt(d)) v of [batch, heads, seq, d] arrays, kv heads repeated over their groups."""
    group = q.shape[1] // k.shape[1]
    qf, kf, vf = q.astype(np.float32), np.repeat(k, group, 1).astype(np.float32), np.repeat(v, group, 1).astype(np.float32)
    s = qf @ np.swapaxes(kf, -1, -2) / np.sqrt(q.shape[-1])
    p = np.exp(s - s.max(-1, keepdims=True))
    return ((p / p.sum(-1, keepdims=True) @ vf).astype(q.dtype),)


def make_decode_inputs(shape, rng):
    """One query token of `heads` heads against a KV cache of `seq_k` tokens and `kv_heads` heads."""
    heads, kv_heads, seq_k, head_dim = shape
    return tuple((rng.standard_normal((1, h, n, head_dim)) / 2).astype(np.float16)
                 for h, n in ((heads, 1), (kv_heads, seq_k), (kv_heads, seq_k)))


LIBRARY = [
    LibraryKernel("attention", "flash-attention forward, f16", attention, reference, make_inputs, (16, 1024, 64),
                  ((1, 64, 16), (2, 100, 32), (3, 130, 64)), rtol=2e-2, atol=2e-2,
                  dims=("heads", "seq_len", "head_dim"), blocks=("BLOCK_M", "BLOCK_N")),
    LibraryKernel("attention_causal", "causal flash-attention forward, f16 (zigzag PE mapping)", attention_causal,
                  reference_causal, make_inputs, (16, 1024, 64), ((1, 64, 16), (2, 100, 32), (3, 130, 64)),
                  rtol=2e-2, atol=2e-2, dims=("heads", "seq_len", "head_dim"), blocks=("BLOCK_M", "BLOCK_N")),
    LibraryKernel("attention_decode", "flash-decoding: one query token against a KV cache, split-K and a combine, f16",
                  attention_decode, reference_decode, make_decode_inputs, (32, 8, 2048, 128),
                  ((2, 2, 300, 16), (8, 2, 200, 32), (4, 1, 130, 64)), rtol=2e-2, atol=2e-2,
                  dims=("heads", "kv_heads", "seq_k", "head_dim")),
]
