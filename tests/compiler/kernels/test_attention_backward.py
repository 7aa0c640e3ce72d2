"""The flash-attention backward kernels (compiler/kernels/attention_backward.py): dq, dk and dv against
float64 numpy, causal and not, grouped-query heads, sequences that are no multiple of the blocks,
strided operands; and the autograd formula of `mtiasim::flash_attention` against torch's SDPA backward."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import compiler.runtime.mtia_executor  # noqa: F401  (registers the executor)
from compiler.kernels import attention_backward as kernels
from compiler.runtime import use_executor
from simulator import use_config

CASES = [  # batch, heads, kv_heads, seq, head_dim, causal, dtype
    (1, 2, 2, 16, 16, False, np.float32),
    (1, 2, 2, 40, 16, True, np.float32),
    (2, 4, 2, 70, 32, True, np.float16),        # grouped-query heads, three blocks with a ragged last one
    (1, 2, 1, 33, 16, False, np.float16),
]


def _forward(q, k, v, causal):
    group = q.shape[1] // k.shape[1]
    kf, vf = (np.repeat(x.astype(np.float64), group, 1) for x in (k, v))
    s = q.astype(np.float64) @ np.swapaxes(kf, -1, -2) / np.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True) @ vf).astype(q.dtype)


@pytest.mark.parametrize("batch, heads, kv_heads, seq, dim, causal, dtype", CASES)
def test_backward_kernels_match_numpy(batch, heads, kv_heads, seq, dim, causal, dtype):
    rng = np.random.default_rng(seq)
    q, do = ((rng.standard_normal((batch, heads, seq, dim)) / 2).astype(dtype) for _ in range(2))
    k, v = ((rng.standard_normal((batch, kv_heads, seq, dim)) / 2).astype(dtype) for _ in range(2))
    o = _forward(q, k, v, causal)
    with use_executor("mtia"), use_config("mtia-small"):
        (dq, dk, dv), runs = kernels.flash_attention_backward(q, k, v, o, do, causal)     # outputs start as NaN
    tol = 1e-5 if dtype == np.float32 else 2e-3
    for name, got, ref in zip(("dq", "dk", "dv"), (dq, dk, dv), kernels.reference_backward(q, k, v, do, causal)):
        np.testing.assert_allclose(got.astype(np.float64), ref, rtol=tol, atol=tol, err_msg=name)
    assert [r.cycles > 0 for r in runs] == [True, True]


@pytest.mark.parametrize("causal", [False, True])
def test_the_custom_op_backward_matches_sdpa(causal):
    """q and k, v slices of packed projections in [batch, seq, heads, dim] memory (the strides a model's
    head transpose leaves), with two query heads per kv head; the op runs eagerly, outside a recording."""
    from compiler.inductor import flash_attention  # noqa: F401  (registers mtiasim::flash_attention)
    torch.manual_seed(0)
    b, s, h, kvh, d = 2, 24, 4, 2, 16
    packed = torch.randn(b, s, (h + 2 * kvh) * d, dtype=torch.float32)
    q0, k0, v0 = packed.split([h * d, kvh * d, kvh * d], -1)
    leaves = [t.detach().clone().requires_grad_() for t in (q0, k0, v0)]
    q, k, v = (x.view(b, s, n, d).transpose(1, 2) for x, n in zip(leaves, (h, kvh, kvh)))
    grad = torch.randn(b, h, s, d)
    with use_config("mtia-small"):
        out = torch.ops.mtiasim.flash_attention(q, k, v, causal, d ** -0.5)
        out.backward(grad)
    ref_leaves = [x.detach().clone().requires_grad_() for x in leaves]
    rq, rk, rv = (x.view(b, s, n, d).transpose(1, 2) for x, n in zip(ref_leaves, (h, kvh, kvh)))
    expected = F.scaled_dot_product_attention(rq, rk, rv, is_causal=causal, enable_gqa=True)
    expected.backward(grad)
    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-5)
    for name, mine, theirs in zip("qkv", leaves, ref_leaves):
        torch.testing.assert_close(mine.grad, theirs.grad, rtol=1e-4, atol=1e-5, msg=f"d{name}")
