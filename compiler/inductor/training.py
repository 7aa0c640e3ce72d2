"""Training steps on the simulator: forward, `loss.backward()` and an optimizer step.

    step = compiler.inductor.training_step(model, loss_fn, optimizer)
    loss, report = compiler.inductor.simulate(step, x, y)        # one step; grads and weights updated
    report.by_phase()          # {"forward": ..., "backward": ..., "optimizer": ...}

`training_step` returns a plain function of (*inputs, target): zero the gradients, run the model,
the loss, its backward and the optimizer's step. Under `simulate` (or `estimate`) it is compiled
whole by Dynamo with our backend: the forward and the loss are one graph, whose backward graph
AOTAutograd hands to the backend when `backward()` first reaches it (`backend._inner_compile`), and
the optimizer's step (its foreach or fused form as the optimizer was built) is another graph. The
autograd engine itself runs on the host and computes nothing there: the loss's gradient seed is made
in the forward graph, and each parameter takes its gradient tensor as it is (gradients set to None).

`estimate_step` times one step of a model whose weights are on the meta device (`estimate.py`): the
optimizer is built over the parameters' CPU stand-ins, and its state (Adam's moments) is allocated
when the first step starts, as in eager PyTorch.

`torch.compile(model, backend="mtiasim")` trains too: its backward graph is compiled by our backend
when `backward()` reaches it, and `torch.compile(optimizer.step, backend="mtiasim")` compiles the step.
"""
from __future__ import annotations

import torch

from .estimate import on_cpu
from .report import ModelReport


def training_step(model: torch.nn.Module, loss_fn, optimizer: torch.optim.Optimizer):
    """step(*inputs, target) -> loss: one training step of `model` (module docstring)."""
    def step(*args):
        *inputs, target = args
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(*inputs), target)
        loss.backward(torch.ones_like(loss))       # the seed made in the compiled graph, not by autograd on the host
        optimizer.step()
        return loss.detach()
    step.__name__ = f"training_step_{type(model).__name__}"
    return step


def estimate_step(model: torch.nn.Module, loss_fn, optimizer, *inputs, index_distribution=None,
                  seed: int = 0) -> ModelReport:
    """The `ModelReport` of one timing-only training step (`estimate`): `inputs` are the model's
    arguments and then the loss's target, meta or CPU tensors; `optimizer` builds the optimizer from
    the parameters (`torch.optim.AdamW`, `functools.partial(torch.optim.AdamW, lr=1e-4, fused=True)`)."""
    from . import run_model  # the package's run loop, shared with simulate
    *model_inputs, target = inputs
    with on_cpu(model, tuple(model_inputs), {}, index_distribution, seed) as (args, _, finish):
        if target.is_meta:             # the loss's target: never an index (`estimate`), allocated untouched
            target = torch.empty(target.shape, dtype=target.dtype)
        step = training_step(model, loss_fn, optimizer(model.parameters()))
        _, report = run_model(step, (*args, target), {}, timing_only=True)
    return finish(report)
