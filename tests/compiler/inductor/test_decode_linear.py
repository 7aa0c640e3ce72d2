"""A decode step's Linear (one row of x) through compiler.inductor: a multiply and a sum over K, not
the mm template (compiler/inductor/decompositions.py `_mm_of_one_row`), with the right numbers."""
import pytest
import torch

import compiler.inductor as ci


@pytest.mark.parametrize("bias", [False, True], ids=["mm", "addmm"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16"])
def test_one_row_linear_is_a_reduction_with_the_right_numbers(bias, dtype):
    torch.manual_seed(0)
    torch._dynamo.reset()
    model = torch.nn.Linear(96, 40, bias=bias).to(dtype)
    x = torch.randn(1, 96).to(dtype)
    out, report = ci.simulate(model, x)
    with torch.no_grad():
        expected = model.float()(x.float())
    tol = 2e-2 if dtype == torch.float16 else 1e-4
    torch.testing.assert_close(out.float(), expected, rtol=tol, atol=tol)
    kinds = [k.kind for k in report.kernels]
    if dtype == torch.float16:          # the GEMV kernel (test_gemv_lowering.py), the bias an add after it
        assert kinds == (["gemv", "pointwise"] if bias else ["gemv"]), report.table()
        return
    assert kinds in (["reduction"], ["persistent_reduction"]), report.table()   # one kernel, the bias fused into it
    assert report.coverage == 1.0
    # still the model's matmul in the report: its ATen ops name the mm it came from, its class is matmul
    assert {"aten.mm", "aten.addmm"} & set(report.kernels[0].aten_ops), report.table()
    assert list(report.by_op_class()) == ["matmul"], report.by_op_class()


def test_more_rows_stay_on_the_mm_template():
    torch.manual_seed(0)
    torch._dynamo.reset()
    model, x = torch.nn.Linear(64, 32, bias=False), torch.randn(4, 64)
    out, report = ci.simulate(model, x)
    with torch.no_grad():
        torch.testing.assert_close(out, model(x), rtol=1e-4, atol=1e-5)
    assert [k.kind for k in report.kernels] == ["template"], report.table()
