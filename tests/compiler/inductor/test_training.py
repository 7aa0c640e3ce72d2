"""Training steps through compiler.inductor: forward, loss.backward() and AdamW on the simulator, against
eager PyTorch, by `simulate` of a whole step and by `torch.compile(model, backend="mtiasim")`.

Tolerances: losses rtol 1e-5; gradients and updated parameters atol 2e-5, rtol 1e-4 (f32: the kernels
sum in other orders than ATen). Adam divides each gradient element by its own magnitude (plus eps
1e-8): its first update is lr x sign(g), so an element whose gradient is near rounding noise (|g| <
1e-5 in eager at some step; the key projection's bias, zero in exact arithmetic as softmax ignores a
constant added to a row's scores, is all noise) moves by +-lr on either side at random. Those elements'
parameters are held to 2 lr per step taken; every other element to the tolerance above."""
from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F

import compiler.inductor as ci
from compiler.inductor import session
from compiler.inductor.examples import MODELS

# the ops that must never be left to the host in a training step (their backward included)
HEAVY = ("mm", "addmm", "bmm", "baddbmm", "_scaled_dot_product", "embedding", "_embedding_bag", "index_put")


def _setup(name: str):
    torch.manual_seed(0)
    model, inputs = MODELS[name]()
    model.train()
    with torch.no_grad():
        target = torch.randn_like(model(*inputs))
    eager = copy.deepcopy(model)
    return model, eager, inputs, target


def _adamw(model):
    return torch.optim.AdamW(model.parameters(), lr=LR)


def _eager_steps(model, inputs, target, steps: int) -> list:
    step = ci.training_step(model, F.mse_loss, _adamw(model))
    out = []
    for _ in range(steps):
        loss = step(*inputs, target)
        out.append(_state(model, loss))
    return out


def _state(model, loss) -> dict:
    return {"loss": loss.detach().clone(), "grads": {n: p.grad.clone() for n, p in model.named_parameters()},
            "params": {n: p.detach().clone() for n, p in model.named_parameters()}}


LR = 1e-2


def _assert_matches(got: dict, expected: dict, step: int, noisy: dict):
    """`noisy`: per parameter, its elements whose gradient was near noise at some step so far (docstring)."""
    torch.testing.assert_close(got["loss"], expected["loss"], rtol=1e-5, atol=1e-6, msg=f"step {step}: loss")
    for name, grad in expected["grads"].items():
        torch.testing.assert_close(got["grads"][name], grad, rtol=1e-4, atol=2e-5, msg=f"step {step}: grad of {name}")
        # (a zero on both sides is no noise: a table row no index named gets none, in eager and here)
        near = (grad.abs() < 1e-5) & ((grad != 0) | (got["grads"][name] != 0))
        noisy[name] = noisy.get(name, torch.zeros_like(grad, dtype=torch.bool)) | near
        mine, theirs = got["params"][name], expected["params"][name]
        torch.testing.assert_close(mine[~noisy[name]], theirs[~noisy[name]], rtol=1e-4, atol=2e-5,
                                   msg=f"step {step}: {name} after AdamW")
        assert ((mine - theirs)[noisy[name]].abs() <= 2 * LR * (step + 1) + 1e-6).all(), f"step {step}: {name}"
    assert sum((~m).sum().item() for m in noisy.values()) > 0.9 * sum(m.numel() for m in noisy.values())


def _assert_simulated(report):
    assert report.coverage >= 0.95, report.table()
    assert not [op for op in report.not_simulated if any(h in op for h in HEAVY)], report.table()
    phases = report.by_phase()
    assert list(phases) == ["forward", "backward", "optimizer"], phases
    assert all(v["cycles"] > 0 and v["kernels"] > 0 for v in phases.values())
    # (the dirty lines left at the end of a run on a carried LLC are written back after every phase)
    assert sum(v["cycles"] for v in phases.values()) + report.drain.get("cycles", 0) == report.cycles


def _simulated_steps(name: str, steps: int):
    model, eager, inputs, target = _setup(name)
    step = ci.training_step(model, F.mse_loss, _adamw(model))
    expected = _eager_steps(eager, inputs, target, steps)
    reports, noisy = [], {}
    for i in range(steps):
        loss, report = ci.simulate(step, *inputs, target)
        _assert_matches(_state(model, loss), expected[i], i, noisy)
        _assert_simulated(report)
        assert not report.not_simulated, report.table()      # the whole step, autograd's seed too
        reports.append(report)
    return reports


def _compiled_steps(name: str, steps: int):
    """torch.compile(model) and torch.compile(optimizer.step): the loss and autograd's engine run eagerly."""
    model, eager, inputs, target = _setup(name)
    opt = _adamw(model)
    fast = torch.compile(model, backend="mtiasim")
    fast_step = torch.compile(opt.step, backend="mtiasim")
    expected = _eager_steps(eager, inputs, target, steps)
    reports, noisy = [], {}
    for i in range(steps):
        with session.recording() as report:
            opt.zero_grad(set_to_none=True)
            loss = F.mse_loss(fast(*inputs), target)
            loss.backward()
            fast_step()
        _assert_matches(_state(model, loss), expected[i], i, noisy)
        _assert_simulated(report)
        reports.append(report)
    return reports


def test_mlp_trains_two_adamw_steps_through_simulate_and_the_second_compiles_nothing():
    # two steps: the first compiles and sets AdamW's state up, the second updates with that state and
    # compiles nothing (a third is the second again)
    reports = _simulated_steps("mlp", 2)
    first, second = reports[0], reports[1]
    assert first.graphs_compiled > 0 and first.compiles > 0
    assert second.graphs_compiled == 0 and second.compiles == 0, second.table()
    assert second.cache_hits == len(second.kernels) == len(first.kernels)
    # the backward's matmuls: dW of both Linears and dX of the second (the input needs no gradient)
    assert sum("aten.mm" in k.aten_ops for k in first.kernels if k.phase == "backward") == 3, first.table()


def test_mlp_trains_through_torch_compile():
    reports = _compiled_steps("mlp", 2)
    assert reports[1].graphs_compiled == 0 and reports[1].compiles == 0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["decoder", "dlrm"])
def test_model_trains_two_adamw_steps_through_simulate(name):
    # two steps: the first compiles and sets AdamW's state up, the second updates with that state and
    # compiles nothing (a third is the second again)
    reports = _simulated_steps(name, 2)
    assert reports[1].graphs_compiled == 0 and reports[1].compiles == 0
    backward = {k.name for k in reports[0].kernels if k.phase == "backward"}
    if name == "decoder":          # attention's backward is our flash-attention backward, on the simulator
        assert {"flash_attention_backward_dq", "flash_attention_backward_dkdv"} <= backward, backward
    else:                          # the bags' gradients scatter into the tables in kernels
        assert any("embedding_dense_backward" in n for n in backward), backward


@pytest.mark.slow
@pytest.mark.parametrize("name", ["decoder", "dlrm"])
def test_model_trains_through_torch_compile(name):
    reports = _compiled_steps(name, 2)
    assert reports[1].graphs_compiled == 0 and reports[1].compiles == 0


def test_masked_attention_trains_with_its_backward_in_kernels():
    """A mask keeps attention off the flash kernels; its backward is Inductor's kernels, not torch's CPU
    flash-attention backward on the host."""
    torch._dynamo.reset()
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 16, 16, requires_grad=True) for _ in range(3))
    mask = torch.randn(16, 16)

    def step(q, k, v, mask):
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        out.sum().backward(torch.ones(()))
        return out.detach()
    out, report = ci.simulate(step, q, k, v, mask)
    grads = [t.grad for t in (q, k, v)]
    refs = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    expected = F.scaled_dot_product_attention(*refs, attn_mask=mask)
    expected.sum().backward()
    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-5)
    for name, mine, ref in zip("qkv", grads, refs):
        torch.testing.assert_close(mine, ref.grad, rtol=1e-4, atol=1e-5, msg=f"d{name}")
    # (autograd's engine lays the leaves' gradients out on the host: a copy, no attention op)
    assert not [op for op in report.not_simulated if any(h in op for h in HEAVY)], report.table()
    assert {"aten.bmm", "aten._softmax_backward_data"} & {op for k in report.kernels if k.phase == "backward"
                                                          for op in k.aten_ops}


@pytest.mark.parametrize("optimizer", [
    lambda ps: torch.optim.SGD(ps, lr=LR, momentum=0.9, foreach=True),
    pytest.param(lambda ps: torch.optim.AdamW(ps, lr=LR, foreach=True), marks=pytest.mark.slow),
], ids=["sgd_foreach", "adamw_foreach"])
def test_a_foreach_optimizer_step_runs_as_combo_kernels(optimizer):
    """An optimizer's foreach step is Inductor's combo kernels, a few tensors each (their pointers must
    fit the control core's registers)."""
    torch._dynamo.reset()
    model, eager, inputs, target = _setup("mlp")
    step = ci.training_step(model, F.mse_loss, optimizer(model.parameters()))
    eager_step = ci.training_step(eager, F.mse_loss, optimizer(eager.parameters()))
    noisy = {}
    for i in range(2):
        loss, report = ci.simulate(step, *inputs, target)
        _assert_matches(_state(model, loss), _state(eager, eager_step(*inputs, target)), i, noisy)
        _assert_simulated(report)
        assert not report.not_simulated, report.table()
