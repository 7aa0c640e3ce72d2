"""A convolution's training step through compiler.inductor, against eager PyTorch: its backward (the
weight's and the input's gradients) runs as Inductor's Triton templates on the simulator, nothing of
the step is left to the host, and an ATen convolution backward on the host counts as a host op.

Tolerances as test_training.py: losses rtol 1e-5; gradients and updated parameters atol 2e-5, rtol
1e-4; parameter elements whose eager gradient is below 1e-5 (Adam moves them by +-lr on rounding noise)
held to 2 lr."""
from __future__ import annotations

import copy

import torch
import torch.nn.functional as F

import compiler.inductor as ci
from compiler.inductor import backend

LR = 1e-2


def convnet() -> torch.nn.Module:
    """A ResNet stem in small: a biased convolution whose input needs no gradient (only its weight's and
    bias's), a ReLU, and a strided convolution without bias (its input's gradient too)."""
    return torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                               torch.nn.Conv2d(8, 4, 3, stride=2, padding=1, bias=False))


def one_step(model, x, target):
    """(loss, report) of one simulated AdamW step of `model`, compared with the same step in eager."""
    torch._dynamo.reset()
    eager = copy.deepcopy(model)
    loss, report = ci.simulate(ci.training_step(model, F.mse_loss, torch.optim.AdamW(model.parameters(), lr=LR)),
                               x, target)
    expected = ci.training_step(eager, F.mse_loss, torch.optim.AdamW(eager.parameters(), lr=LR))(x, target)
    torch.testing.assert_close(loss, expected, rtol=1e-5, atol=1e-6)
    theirs = dict(eager.named_parameters())
    for name, p in model.named_parameters():
        q = theirs[name]
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=2e-5, msg=f"grad of {name}")
        noisy = q.grad.abs() < 1e-5
        torch.testing.assert_close(p.detach()[~noisy], q.detach()[~noisy], rtol=1e-4, atol=2e-5, msg=name)
        assert ((p - q).detach()[noisy].abs() <= 2 * LR + 1e-6).all(), name
        assert noisy.float().mean() < 0.1, name          # the comparison above is not vacuous
    return report


class ChannelsLastInput(torch.nn.Module):
    """ConvNeXt's downsampling in small: a layer norm over the channels, taken in NHWC and permuted back
    to NCHW, then a strided convolution, whose weight gradient comes out channels-last
    (`gradient_layout.py`)."""

    def __init__(self):
        super().__init__()
        self.norm, self.conv = torch.nn.LayerNorm(3), torch.nn.Conv2d(3, 4, 2, stride=2)

    def forward(self, x):
        return self.conv(self.norm(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2))


def inputs():
    g = torch.Generator().manual_seed(0)
    return torch.randn(2, 3, 16, 16, generator=g), torch.randn(2, 4, 8, 8, generator=g)


def test_a_convolution_trains_with_its_backward_in_kernels_and_nothing_on_the_host():
    torch.manual_seed(0)
    report = one_step(convnet(), *inputs())
    # (no ATen convolution backward, and no gradient copied into its parameter's layout by autograd)
    assert not report.not_simulated, report.table()
    backward = [k for k in report.kernels if k.phase == "backward" and "aten.convolution_backward" in k.aten_ops]
    # the weight gradients of both convolutions and the input gradient of the second: templates
    assert sum(k.kind == "template" for k in backward) == 3, report.table()


def test_a_channels_last_weight_gradient_is_laid_out_in_a_kernel_not_copied_on_the_host():
    torch.manual_seed(0)
    report = one_step(ChannelsLastInput(), *inputs())
    assert not report.not_simulated, report.table()


def test_a_convolution_backward_left_to_aten_counts_as_a_host_op(monkeypatch):
    """With Inductor's conv backward templates off, ATen's convolution_backward runs on the host: the
    report must say so, though a kernel laying out its input names the same op."""
    monkeypatch.setitem(backend.INDUCTOR_OPTIONS, "max_autotune_conv_bwd_weight_backends", "ATEN")
    monkeypatch.setitem(backend.INDUCTOR_OPTIONS, "max_autotune_conv_bwd_input_backends", "ATEN")
    torch.manual_seed(0)
    report = one_step(convnet(), *inputs())
    assert report.not_simulated["aten.convolution_backward"] == 2, report.table()
    assert report.coverage < 1
