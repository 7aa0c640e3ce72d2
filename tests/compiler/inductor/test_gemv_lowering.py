"""Decode-sized linears in a compiled model run as the GEMV kernel (compiler/inductor/decode_linear.py):
torch's numbers, one `gemv` row per linear with blocks from the rule (no trials), and a gradient formula."""
from __future__ import annotations

import pytest
import torch
import torch.nn as nn

import compiler.inductor as ci
from compiler.inductor import decode_linear


class TwoLinears(nn.Module):
    def __init__(self, k=160, hidden=96, n=48, bias=True):
        super().__init__()
        self.up = nn.Linear(k, hidden, bias=False)
        self.down = nn.Linear(hidden, n, bias=bias)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


def _model(**kw):
    torch.manual_seed(0)
    return TwoLinears(**kw).half()


def _reference(model, x):
    """The same model in f32 (the kernel accumulates in f32), rounded to fp16 as the kernel stores."""
    with torch.no_grad():
        return model.float()(x.float()).half()


@pytest.mark.parametrize("rows", [(1, 1), (3,), (2, 2)])
def test_decode_linears_run_as_the_gemv_kernel_and_match_torch(rows):
    torch._dynamo.reset()
    model = _model()
    x = (torch.randn(*rows, 160) / 4).half()
    with torch.no_grad():
        out, report = ci.simulate(model, x)
    torch.testing.assert_close(out, _reference(model, x), rtol=2e-2, atol=2e-2)
    kinds = [k.kind for k in report.kernels]
    assert kinds.count("gemv") == 2, report.table()
    gemv_rows = [k for k in report.kernels if k.kind == "gemv"]
    assert all(k.report.cycles > 0 for k in gemv_rows)
    assert report.by_op_class()["matmul"]["seconds"] > 0
    assert not report.not_simulated, report.table()


def test_more_rows_than_a_gemv_keep_inductors_lowering():
    torch._dynamo.reset()
    model = _model(bias=False)
    x = (torch.randn(decode_linear.MAX_ROWS + 1, 160) / 4).half()
    with torch.no_grad():
        out, report = ci.simulate(model, x)
    torch.testing.assert_close(out, _reference(model, x), rtol=2e-2, atol=2e-2)
    assert "gemv" not in {k.kind for k in report.kernels}, report.table()


def test_fp32_linears_keep_inductors_lowering():
    """The kernel computes fp16 only (it stores y as fp16): an fp32 model is not rewritten."""
    x = torch.randn(1, 160)
    assert not decode_linear.takes(x, torch.randn(48, 160))
    assert decode_linear.takes(x.half(), torch.randn(48, 160).half())
    assert not decode_linear.takes(x.half(), torch.randn(160, 48).half().t())     # K not contiguous in W


def test_the_gemv_op_has_torchs_gradients():
    """The op's autograd formula (two matmuls) gives eager's gradients of x and of the weight."""
    torch.manual_seed(1)
    x = (torch.randn(1, 64) / 4).half().requires_grad_()
    w = (torch.randn(32, 64) / 4).half().requires_grad_()
    g = (torch.randn(1, 32) / 4).half()
    with torch.no_grad():
        ref_x, ref_w = g.float() @ w.float(), g.float().t() @ x.float()
    grad_x, grad_w = decode_linear._backward(_Saved(x.detach(), w.detach()), g)
    torch.testing.assert_close(grad_x.float(), ref_x, rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(grad_w.float(), ref_w, rtol=2e-2, atol=2e-2)


class _Saved:
    def __init__(self, *tensors):
        self.saved_tensors = tensors
