"""A numel of 1 is a constant of Inductor's kernel: its signature marks it "constexpr" (value in
`constants`) though the kernel does not declare it `tl.constexpr`, and the wrapper still passes it, as
Triton's launcher expects. The Llama-2 decoder layer at decode (one token: RMSNorm's xnumel = 1) failed
with "takes 5 arguments ..., got 6"; ours now takes the value and checks it is the constant."""
from __future__ import annotations

import pytest
import torch

import compiler as triton
import compiler.inductor as ci
import compiler.language as tl
from compiler.inductor import launchers


class _RMSNorm(torch.nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(hidden))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


def test_a_reduction_over_one_row_runs_with_its_numel_passed_as_the_constant():
    torch.manual_seed(0)
    model, x = _RMSNorm(64), torch.randn(1, 64)       # one row: the persistent reduction's xnumel is 1
    out, report = ci.simulate(model, x)
    with torch.no_grad():
        torch.testing.assert_close(out, model(x), rtol=1e-5, atol=1e-6)
    assert any(k.kind == "persistent_reduction" for k in report.kernels), report.table()


@triton.jit
def _copy_rows(in_ptr, out_ptr, xnumel, XBLOCK: tl.constexpr):
    offs = tl.arange(0, XBLOCK)
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=offs < xnumel), mask=offs < xnumel)


def _launcher():
    meta = {"signature": {"in_ptr": "*fp32", "out_ptr": "*fp32", "xnumel": "constexpr", "XBLOCK": "constexpr"},
            "constants": {"xnumel": 1}}
    return launchers.pointwise({"x": 1}, meta, inductor_meta={"kernel_name": "copy_rows", "grid_type": "Grid1D"})(
        _copy_rows)


def test_the_wrapper_passes_a_specialized_numel_and_it_must_equal_the_constant():
    launcher = _launcher()
    assert launcher.arg_names == ["in_ptr", "out_ptr", "xnumel"]       # XBLOCK is the launcher's to choose
    x, out = torch.randn(1), torch.zeros(1)
    assert launcher.bind((x, out, 1))["xnumel"] == 1
    with pytest.raises(ValueError, match=r"copy_rows was specialized for xnumel = 1, got xnumel = 2"):
        launcher.bind((x, out, 2))
