"""A small PyTorch model for `mtiasim model` (the README's example): a self-attention block, its q/k/v
projections as three Linear layers, then an MLP.

    mtiasim model examples/my_model.py            # per-kernel table, check against eager, roofline chart
    mtiasim model examples/my_model.py -v         # with Inductor's own logs (autotuning, compilation)

The script defines `model` and `inputs` (a tuple of the model's arguments); nothing else is required.
"""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int = 64, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.q_proj = nn.Linear(dim, dim)
        self.k_proj = nn.Linear(dim, dim)
        self.v_proj = nn.Linear(dim, dim)
        self.out_proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        b, s, d = x.shape
        h = self.norm(x)

        def split(t):
            return t.view(b, s, self.heads, d // self.heads).transpose(1, 2)
        q, k, v = split(self.q_proj(h)), split(self.k_proj(h)), split(self.v_proj(h))
        att = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, dim=-1) @ v
        x = x + self.out_proj(att.transpose(1, 2).reshape(b, s, d))
        return x + self.mlp(x)


torch.manual_seed(0)
model = Block().eval()
inputs = (torch.randn(2, 32, 64),)
