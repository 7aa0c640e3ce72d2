"""Attention in a compiled model runs as the flash-attention kernels (compiler/inductor/flash_attention.py):
torch's numbers, one kernel row (split-K decode: its combine too), no bmm, no score matrix in memory."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import compiler.inductor as ci
from compiler.kernels import attention as kernels
from compiler.runtime.target import default_config

ATTENTION_KINDS = {"flash_attention"}


def _heads_last(x):
    """[batch, seq, heads, dim] as the [batch, heads, seq, dim] view a model's head transpose makes."""
    return x.transpose(1, 2)


def _attention(causal, gqa):
    def attention(q, k, v):
        return F.scaled_dot_product_attention(_heads_last(q), _heads_last(k), _heads_last(v), is_causal=causal,
                                              enable_gqa=gqa)
    return attention


def _inputs(batch, heads, kv_heads, seq_q, seq_k, dim, dtype=torch.float16):
    g = torch.Generator().manual_seed(0)
    return (torch.randn(batch, seq_q, heads, dim, generator=g).to(dtype),
            torch.randn(batch, seq_k, kv_heads, dim, generator=g).to(dtype),
            torch.randn(batch, seq_k, kv_heads, dim, generator=g).to(dtype))


@pytest.mark.parametrize("shape, causal, launches", [
    ((2, 4, 4, 96, 96, 32), True, 1),          # causal prefill
    ((1, 2, 2, 80, 80, 16), False, 1),         # non-causal, the keys not a multiple of the block
    ((1, 8, 2, 64, 64, 16), True, 1),          # grouped-query attention (Llama-3: 4 q heads per kv head)
    ((1, 4, 2, 1, 200, 32), False, 2),         # decode: one query against a KV cache not a multiple of the block
    ((2, 4, 1, 3, 150, 16), False, 2),         # a few queries against one kv head (MQA)
    ((1, 2, 2, 5, 40, 16), True, 1),           # causal, fewer queries than keys: torch's top-left diagonal
])
def test_attention_runs_as_the_flash_kernel_and_matches_torch(shape, causal, launches):
    torch._dynamo.reset()
    batch, heads, kv_heads, seq_q, seq_k, dim = shape
    fn = _attention(causal, kv_heads != heads)
    q, k, v = _inputs(*shape)
    out, report = ci.simulate(fn, q, k, v)
    torch.testing.assert_close(out, fn(q, k, v), rtol=2e-3, atol=2e-3)
    assert {k.kind for k in report.kernels} == ATTENTION_KINDS and len(report.kernels) == launches, report.table()
    assert not report.not_simulated and report.coverage == 1.0, report.table()
    assert report.transfers.to_device == 3 and report.transfers.to_host == 1, report.table()


def test_the_score_matrix_never_reaches_memory():
    """bmm + softmax + bmm would write and read [heads, seq, seq] scores; the kernel moves q, k, v and the
    output (k and v once per query block up to the diagonal) and nothing of seq x seq."""
    torch._dynamo.reset()
    batch, heads, seq, dim = 1, 4, 256, 16
    fn = _attention(True, False)
    q, k, v = _inputs(batch, heads, heads, seq, seq, dim)
    out, report = ci.simulate(fn, q, k, v)
    torch.testing.assert_close(out, fn(q, k, v), rtol=2e-3, atol=2e-3)
    scores = batch * heads * seq * seq * 4
    assert len(report.kernels) == 1 and not any("bmm" in op for k in report.kernels for op in k.aten_ops)
    tensor = batch * heads * seq * dim * 2
    moved = report.kernels[0].report.bytes
    assert moved["dram_read"] == 3 * tensor and moved["dram_write"] == tensor, moved      # q, k, v in; out
    assert moved["sram"] < scores / 4, moved


def test_a_packed_projection_is_read_in_place():
    """q, k, v as head-transposed slices of one linear's output: no copy kernel before the attention."""
    torch._dynamo.reset()

    class Attention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = torch.nn.Linear(32, 96)

        def forward(self, x):
            b, s, _ = x.shape
            q, k, v = (t.view(b, s, 2, 16).transpose(1, 2) for t in self.qkv(x).split(32, -1))
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return out.transpose(1, 2).reshape(b, s, 32)

    model = Attention().eval()
    x = torch.randn(2, 16, 32)
    out, report = ci.simulate(model, x)
    with torch.no_grad():
        torch.testing.assert_close(out, model(x), rtol=1e-4, atol=1e-5)
    assert [k.kind for k in report.kernels] == ["template", "flash_attention"], report.table()


def test_a_masked_attention_keeps_torchs_decomposition():
    torch._dynamo.reset()

    def attention(q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    q, k, v = (torch.randn(1, 2, 16, 16) for _ in range(3))
    mask = torch.randn(16, 16)
    out, report = ci.simulate(attention, q, k, v, mask)
    torch.testing.assert_close(out, attention(q, k, v, mask), rtol=1e-4, atol=1e-5)
    assert "flash_attention" not in {k.kind for k in report.kernels}


def test_llama2_7b_decode_streams_the_kv_cache_near_dram_speed():
    """One token against a 2048-token KV cache, 32 heads of 128 (fp16, batch 1), timing-only: the split-K
    kernel and its combine take at most 1.5x the time to read K and V once from DRAM."""
    heads, seq_k, dim = 32, 2048, 128
    q = np.zeros((1, heads, 1, dim), np.float16)
    k, v = np.zeros((1, heads, seq_k, dim), np.float16), np.zeros((1, heads, seq_k, dim), np.float16)
    _, runs = kernels.flash_attention(q, k, v, numerics=False)
    cfg = default_config()
    floor = 2 * heads * seq_k * dim * 2 / (cfg.dram.bandwidth_gbps * 1e9)
    seconds = sum(r.seconds for r in runs)
    assert floor < seconds < 1.5 * floor, f"{seconds * 1e6:.1f} us for a KV-read floor of {floor * 1e6:.1f} us"
    assert runs[0].grid[2] * runs[0].grid[1] >= cfg.num_pes          # every PE streams a chunk


@pytest.mark.parametrize("form", ["mul", "div", "f32_softmax", "mqa"])
def test_attention_written_out_runs_as_the_flash_kernel(form):
    """softmax(q @ k^T * scale) @ v as a model writes it: one flash kernel, no bmm, no softmax kernel."""
    torch._dynamo.reset()

    def attention(q, k, v):
        q, k, v = _heads_last(q), _heads_last(k), _heads_last(v)
        if form == "div":
            scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        else:
            scores = torch.matmul(q, k.transpose(2, 3)) * 0.3
        if form == "f32_softmax":
            probs = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
        else:
            probs = scores.softmax(-1)
        return probs @ v
    q, k, v = _inputs(2, 4, 1 if form == "mqa" else 4, 48, 48, 16)
    out, report = ci.simulate(attention, q, k, v)
    torch.testing.assert_close(out, attention(q, k, v), rtol=2e-3, atol=2e-3)
    assert [k.kind for k in report.kernels] == ["flash_attention"], report.table()
