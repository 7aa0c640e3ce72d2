"""One training step of a model on the simulator against the same step in eager PyTorch.

`check_step(model, inputs)` copies the model, runs one step of each copy (an MSE loss of the model's
output against a random target, `loss.backward()`, AdamW), the copy through
`compiler.inductor.simulate` of `compiler.inductor.training_step`, and compares the loss, every
gradient and every updated parameter. It returns (cause, report): cause "" where they match, else
the first difference in words. The coverage benchmark's training mode (inductor_coverage.py --train)
runs it on each architecture.

Tolerances: rtol 1e-3, atol 1e-4, as the benchmark's inference mode. Adam's first update is
lr x g / (|g| + eps), lr x sign(g) for any gradient well above eps: an element whose gradient is near
rounding noise (|g| < 1e-5 in eager) moves by +-lr on either side at random, so those parameter
elements are held to 2 lr.
"""
from __future__ import annotations

import copy

import torch
import torch.nn.functional as F

import compiler.inductor as ci

LR = 1e-3


def _step_of(model):
    return ci.training_step(model, F.mse_loss, torch.optim.AdamW(model.parameters(), lr=LR))


def _differs(name: str, got, expected) -> str:
    if got is None or expected is None:
        return "" if got is None and expected is None else f"{name}: a gradient in one run only"
    if not torch.allclose(got, expected, rtol=1e-3, atol=1e-4):
        return f"{name} differs from eager by {(got - expected).abs().max().item():.3g}"
    return ""


def check_step(model: torch.nn.Module, inputs: tuple, seed: int = 0) -> tuple[str, object]:
    """(cause, report) of one simulated training step of `model` against eager (module docstring)."""
    eager = copy.deepcopy(model)
    with torch.no_grad():
        out = model(*inputs)
    target = torch.randn(out.shape, generator=torch.Generator().manual_seed(seed), dtype=out.dtype)
    loss, report = ci.simulate(_step_of(model), *inputs, target)
    expected = _step_of(eager)(*inputs, target)
    if not report.kernels:
        return "no kernel ran on the simulator", report
    cause = _differs("loss", loss, expected)
    params = dict(eager.named_parameters())
    for name, p in model.named_parameters():
        q = params[name]
        cause = cause or _differs(f"grad of {name}", p.grad, q.grad)
        if cause or q.grad is None:
            continue
        noisy = q.grad.abs() < 1e-5
        cause = _differs(name, p.detach()[~noisy], q.detach()[~noisy])
        if not cause and ((p - q).detach()[noisy].abs() > 2 * LR + 1e-6).any():
            cause = f"{name}: an update of more than 2 lr where the gradient is near zero"
    return cause, report
