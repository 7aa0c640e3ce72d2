"""Example PyTorch models for compiler.inductor (the tests, the notebook and the benchmarks run them): an MLP,
a transformer decoder block (causal attention, MLP, layernorm) and a DLRM-style recommender (embedding bags,
bottom and top MLPs, pairwise dot interaction). Each `make_*` returns (model, inputs) with random
weights and inputs from a seeded generator; `rows` scales the batch (8192 rows: realistic sizes)."""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, d_in=64, hidden=128, d_out=32):
        super().__init__()
        self.fc1, self.norm, self.fc2 = nn.Linear(d_in, hidden), nn.LayerNorm(hidden), nn.Linear(hidden, d_out)

    def forward(self, x):
        return self.fc2(self.norm(F.relu(self.fc1(x))))


class DecoderBlock(nn.Module):
    def __init__(self, d=64, heads=4, ff=128):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (t.view(b, s, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(attn.transpose(1, 2).reshape(b, s, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class DLRM(nn.Module):
    def __init__(self, dense=16, tables=(100, 80, 60), dim=16):
        super().__init__()
        self.tables = tables
        self.emb = nn.ModuleList(nn.EmbeddingBag(n, dim, mode="sum") for n in tables)
        self.bottom = nn.Sequential(nn.Linear(dense, 32), nn.ReLU(), nn.Linear(32, dim), nn.ReLU())
        f = len(tables) + 1
        self.top = nn.Sequential(nn.Linear(dim + f * (f - 1) // 2, 32), nn.ReLU(), nn.Linear(32, 1))
        li, lj = torch.tril_indices(f, f, -1)          # the feature pairs, made once (not a kernel per run)
        self.register_buffer("li", li, persistent=False)
        self.register_buffer("lj", lj, persistent=False)

    def forward(self, dense, indices, offsets=None):
        """indices: per table, [rows, per_bag] (bags of one size) or a flat list cut into bags by offsets."""
        x = self.bottom(dense)
        offsets = offsets or [None] * len(self.emb)
        feats = torch.stack([x] + [e(i, o) for e, i, o in zip(self.emb, indices, offsets)], 1)
        z = torch.bmm(feats, feats.transpose(1, 2))                   # pairwise dot interaction
        return torch.sigmoid(self.top(torch.cat([x, z[:, self.li, self.lj]], 1)))


def make_mlp(rows=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    return MLP().eval(), (torch.randn(rows, 64, generator=g),)


def make_decoder(rows=2, seq=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    return DecoderBlock().eval(), (torch.randn(rows, seq, 64, generator=g),)


def make_dlrm(rows=8, per_bag=3, dim=16, tables=(100, 80, 60), dense=16, seed=0):
    """Bags of `per_bag` indices each, one [rows, per_bag] index tensor per table (DLRM's fixed pooling),
    and `dense` dense features per row."""
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    model = DLRM(dense=dense, tables=tuple(tables), dim=dim).eval()
    indices = [torch.randint(0, n, (rows, per_bag), generator=g) for n in model.tables]
    return model, (torch.randn(rows, dense, generator=g), indices)


MODELS = {"mlp": make_mlp, "decoder": make_decoder, "dlrm": make_dlrm}
