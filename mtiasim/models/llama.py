"""Llama-family decoder LLMs: named shapes from the public model cards and the torch model built from one.

    shape = SHAPES["llama-3-8b"]
    model, inputs = decode_model(shape, batch=1, context=2048)     # on the meta device, fp16
    report = compiler.inductor.estimate(model, *inputs)

The model is the architecture every Llama card describes: token embedding; per layer RMSNorm, attention
with rotary position embeddings (RoPE) and grouped-query heads (GQA: `kv_heads` K/V heads shared by
`heads / kv_heads` query heads each) through `F.scaled_dot_product_attention` over a KV cache, RMSNorm,
SwiGLU MLP (down(silu(gate(x)) * up(x))); final RMSNorm and the lm_head projection to the vocabulary.

A model is built for one serving step, with static shapes (Inductor compiles per shape):
- prefill: P prompt tokens at positions 0..P-1 write the cache and attend causally; only the last
  position's logits are computed (what a server samples the first token from);
- decode: one new token per sequence at position C-1 writes the last cache slot and attends to all C.
The KV cache holds exactly the positions the step reads, so the bytes it streams are the step's own.
"""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from .shapes import SHAPES, LlamaShape, shape_named  # noqa: F401  (the shapes, importable from here too)


class RMSNorm(nn.Module):
    def __init__(self, d: int, eps: float):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(d)), eps

    def forward(self, x):
        xf = x.float()                  # the mean of squares in fp32, as the reference implementation does
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype) * self.weight


def _rotate(x, cos, sin):
    """RoPE in the half-split layout of the HF Llama code: (x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin)."""
    half = x.shape[-1] // 2
    return x * cos + torch.cat((-x[..., half:], x[..., :half]), -1) * sin


class Attention(nn.Module):
    def __init__(self, s: LlamaShape, batch: int, cache_len: int):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = s.heads, s.kv_heads, s.head_dim
        kv = s.kv_heads * s.head_dim
        self.q_proj, self.o_proj = nn.Linear(s.hidden, s.hidden, bias=False), nn.Linear(s.hidden, s.hidden, bias=False)
        self.k_proj, self.v_proj = nn.Linear(s.hidden, kv, bias=False), nn.Linear(s.hidden, kv, bias=False)
        self.register_buffer("k_cache", torch.zeros(batch, s.kv_heads, cache_len, s.head_dim))
        self.register_buffer("v_cache", torch.zeros(batch, s.kv_heads, cache_len, s.head_dim))

    def forward(self, x, cos, sin, pos: int):
        b, n, _ = x.shape
        q = self.q_proj(x).view(b, n, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, n, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, n, self.kv_heads, self.head_dim).transpose(1, 2)
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        self.k_cache[:, :, pos:pos + n] = k
        self.v_cache[:, :, pos:pos + n] = v
        o = F.scaled_dot_product_attention(q, self.k_cache[:, :, :pos + n], self.v_cache[:, :, :pos + n],
                                           is_causal=n > 1, enable_gqa=self.kv_heads != self.heads)
        return self.o_proj(o.transpose(1, 2).reshape(b, n, -1))


class MLP(nn.Module):
    def __init__(self, s: LlamaShape):
        super().__init__()
        self.gate_proj, self.up_proj = nn.Linear(s.hidden, s.ffn, bias=False), nn.Linear(s.hidden, s.ffn, bias=False)
        self.down_proj = nn.Linear(s.ffn, s.hidden, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, s: LlamaShape, batch: int, cache_len: int):
        super().__init__()
        self.input_layernorm, self.self_attn = RMSNorm(s.hidden, s.norm_eps), Attention(s, batch, cache_len)
        self.post_attention_layernorm, self.mlp = RMSNorm(s.hidden, s.norm_eps), MLP(s)

    def forward(self, x, cos, sin, pos: int):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, pos)
        return x + self.mlp(self.post_attention_layernorm(x))


class Llama(nn.Module):
    """A Llama decoder for one serving step: `forward(tokens [batch, n])` runs positions `pos`..`pos+n-1`
    (fixed at build: shapes are static) and returns the last position's logits [batch, 1, vocab]."""

    def __init__(self, s: LlamaShape, batch: int, cache_len: int, pos: int):
        super().__init__()
        self.shape, self.pos = s, pos
        self.embed_tokens = nn.Embedding(s.vocab, s.hidden)
        self.layers = nn.ModuleList(DecoderLayer(s, batch, cache_len) for _ in range(s.layers))
        self.norm = RMSNorm(s.hidden, s.norm_eps)
        self.lm_head = nn.Linear(s.hidden, s.vocab, bias=False)
        # the rotary table of every cached position (a buffer: a server computes it once)
        self.register_buffer("cos", torch.zeros(cache_len, s.head_dim))
        self.register_buffer("sin", torch.zeros(cache_len, s.head_dim))

    def forward(self, tokens):
        n = tokens.shape[1]
        x = self.embed_tokens(tokens)
        cos, sin = self.cos[self.pos:self.pos + n], self.sin[self.pos:self.pos + n]
        for layer in self.layers:
            x = layer(x, cos, sin, self.pos)
        return self.lm_head(self.norm(x[:, -1:]))


def rope_tables(s: LlamaShape, length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of every position < length, [length, head_dim] (half-split layout)."""
    inv = 1.0 / (s.rope_theta ** (torch.arange(0, s.head_dim, 2, dtype=torch.float64) / s.head_dim))
    angles = torch.outer(torch.arange(length, dtype=torch.float64), inv)
    angles = torch.cat((angles, angles), -1)
    return angles.cos(), angles.sin()


def build(s: LlamaShape, phase: str, batch: int, tokens: int, device: str = "meta",
          dtype: torch.dtype = torch.float16, seed: int = 0) -> tuple[Llama, tuple]:
    """The model and its inputs for one step: phase "prefill" (`tokens` prompt tokens) or "decode" (one
    token with a context of `tokens` positions, itself included). On "meta", nothing is allocated; on
    "cpu", weights are random (seeded) and the rotary tables real, so the model can be run and checked."""
    if phase not in ("prefill", "decode"):
        raise ValueError(f"phase must be prefill or decode, not {phase!r}")
    if batch < 1 or tokens < 1:
        raise ValueError(f"batch and tokens must be at least 1 (got batch {batch}, tokens {tokens})")
    n, pos = (tokens, 0) if phase == "prefill" else (1, tokens - 1)
    if device != "meta":
        torch.manual_seed(seed)
    with torch.device(device):
        model = Llama(s, batch, tokens, pos).to(dtype).eval()
        ids = torch.randint(0, s.vocab, (batch, n)) if device != "meta" else torch.empty(batch, n, dtype=torch.long)
    if device != "meta":
        with torch.no_grad():
            cos, sin = rope_tables(s, tokens)
            model.cos.copy_(cos)
            model.sin.copy_(sin)
            for p in model.parameters():
                p.normal_(0, 0.02) if p.dim() > 1 else p.fill_(1.0)
            for layer in model.layers:           # a cache as earlier steps would have left it
                layer.self_attn.k_cache.normal_()
                layer.self_attn.v_cache.normal_()
    return model, (ids,)
