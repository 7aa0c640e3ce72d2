"""Attention over q, k, v sliced from one projection: one packed copy, not three (compiler/inductor/packed_heads.py)."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import compiler.inductor as ci


class _Attention(torch.nn.Module):
    """q, k, v as slices of one projection (`order` names which chunk each takes), heads transposed."""

    def __init__(self, order, causal, scale):
        super().__init__()
        self.qkv = torch.nn.Linear(32, 96)
        self.order, self.causal, self.scale = order, causal, scale

    def forward(self, x):
        b, s, _ = x.shape
        parts = dict(zip(self.order, self.qkv(x).split(32, -1)))
        q, k, v = (parts[n].view(b, s, 2, 16).transpose(1, 2) for n in "qkv")
        return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal, scale=self.scale)


# point-wise kernels besides the operand copies: the output's copy into [batch, seq, heads, dim] (at these
# sizes not fused into the matmul's epilogue), on either path
OUTPUT_COPIES = 1
TORCH_COPIES = 3              # a copy per operand, q and k scaled in theirs


@pytest.mark.parametrize("order, causal, scale, copies", [
    ("qkv", True, None, 1),       # packed in order: one copy of the projection, the scale on the scores
    ("qkv", False, 0.3, 1),
    ("vkq", True, None, TORCH_COPIES),    # k before q in the projection: not one step apart
])
def test_attention_over_one_projection_copies_it_once_and_matches_eager(order, causal, scale, copies):
    torch.manual_seed(0)
    model = _Attention(order, causal, scale).eval()
    x = torch.randn(2, 16, 32)
    out, report = ci.simulate(model, x)
    with torch.no_grad():
        torch.testing.assert_close(out, model(x), rtol=1e-4, atol=1e-5)
    pointwise = [k.name for k in report.kernels if k.kind == "pointwise"]
    assert len(pointwise) == copies + OUTPUT_COPIES, report.table()
    assert not report.not_simulated, report.table()


def test_slices_of_a_graph_input_keep_torchs_attention():
    """Inputs may alias each other in ways the graph does not show: views of one are never repacked."""
    def attention(qkv):
        q, k, v = (t.view(2, 16, 2, 16).transpose(1, 2) for t in qkv.split(32, -1))
        return F.scaled_dot_product_attention(q, k, v)
    x = torch.randn(2, 16, 96)
    out, report = ci.simulate(attention, x)
    torch.testing.assert_close(out, attention(x), rtol=1e-4, atol=1e-5)
    assert len([k for k in report.kernels if k.kind == "pointwise"]) == TORCH_COPIES + OUTPUT_COPIES, report.table()
