"""PyTorch models through Inductor's generated Triton on the simulator (compiler.inductor)."""
from __future__ import annotations

import pickle

import pytest
import torch

import compiler as triton
import compiler.inductor as ci
import compiler.language as tl
from compiler.errors import CompilationError
from compiler.inductor import blocks, header, launchers, tuning
from compiler.inductor.examples import MODELS

# the ops that must never be left to the host
HEAVY = ("mm", "addmm", "bmm", "baddbmm", "_scaled_dot_product", "embedding_bag", "_embedding_bag")


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_matches_eager_with_every_op_simulated(name):
    model, inputs = MODELS[name]()
    out, report = ci.simulate(model, *inputs)
    with torch.no_grad():
        expected = model(*inputs)
    torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-5)
    assert report.coverage >= 0.95, report.table()
    assert not [op for op in report.not_simulated if any(h in op for h in HEAVY)], report.table()
    kinds = {k.kind for k in report.kernels}
    assert "template" in kinds, "the matmuls did not run as Inductor's Triton templates"
    for k in report.kernels:
        assert k.cycles > 0 and 0 < k.roofline_fraction <= 1 and k.bound in ("dram", "sram", "noc", "dpe", "se", "re", "vector")
        assert k.aten_ops, f"{k.name} has no ATen origin"
    # the kernels, and (the LLC carried between them, the default) the dirty lines left at the end written back
    assert report.cycles == sum(k.cycles for k in report.kernels) + report.drain.get("cycles", 0)
    print(f"{name}: simulated in {report.wall_seconds:.1f} s")


def test_an_ablated_switch_times_each_kernel_it_changes_without_it():
    # the DLRM's pair gather z[:, li, lj] is a window box and a gather in the local store; with
    # index_windows ablated its row says what the windows are worth, and only kernels it changes have one
    from compiler.inductor import session
    with pytest.raises(ValueError, match="unknown mtia_options 'windows'"):
        with session.ablating(("windows",)):
            pass
    model, inputs = MODELS["dlrm"](rows=64)
    with session.ablating(("index_windows",)):
        out, report = ci.simulate(model, *inputs)
    with torch.no_grad():
        torch.testing.assert_close(out, model(*inputs), rtol=1e-4, atol=1e-5)
    ablated = {k.name: k.ablations for k in report.kernels if k.ablations}
    assert list(ablated) == [k.name for k in report.kernels if "index" in k.name and "cat" not in k.name], ablated
    assert all(set(a) == {"index_windows"} and a["index_windows"] > 0 for a in ablated.values())
    assert not any(k.ablations for k in ci.simulate(model, *inputs)[1].kernels)     # none outside `ablating`


class _Bags(torch.nn.Module):
    """Every form of bag: offsets with bags of different sizes (one empty) in sum and max mode with a
    padding index, and fixed-size bags ([bags, L] indices) in mean mode and weighted sum mode."""

    def __init__(self):
        super().__init__()
        self.sum = torch.nn.EmbeddingBag(50, 8, mode="sum")
        self.max = torch.nn.EmbeddingBag(30, 8, mode="max", padding_idx=0)
        self.mean = torch.nn.EmbeddingBag(40, 8, mode="mean")

    def forward(self, flat, offsets, fixed, weights):
        return torch.cat([self.sum(flat, offsets), self.max(flat % 30, offsets),
                          self.mean(fixed), self.sum(fixed, per_sample_weights=weights)], 1)


def test_embedding_bags_of_every_form_match_eager():
    g = torch.Generator().manual_seed(5)
    torch.manual_seed(5)
    model = _Bags().eval()
    flat = torch.randint(0, 50, (15,), generator=g)
    offsets = torch.tensor([0, 3, 3, 7, 12])
    fixed = torch.randint(0, 40, (5, 4), generator=g)
    weights = torch.rand(5, 4, generator=g)
    out, report = ci.simulate(model, flat, offsets, fixed, weights)
    with torch.no_grad():
        torch.testing.assert_close(out, model(flat, offsets, fixed, weights), rtol=1e-5, atol=1e-6)
    assert not [op for op in report.not_simulated if "embedding" in op], report.table()
    # fixed-size bags are sums of gathered rows (aten.embedding); only the bags cut by offsets search
    # their bag (one search for both: the same offsets)
    assert any("aten.embedding" in k.aten_ops for k in report.kernels), report.table()
    assert sum("aten.searchsorted" in k.aten_ops for k in report.kernels) == 1, report.table()


def test_a_convolution_with_bias_runs_as_a_template_and_keeps_its_bias():
    # Inductor's Triton convolution templates take no bias; on a CPU tensor its lowering keeps the bias
    # in the convolution (for the host's mkldnn), so a template would drop it unless it is added apart
    torch.manual_seed(8)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU()).eval()
    with torch.no_grad():
        model[0].bias.add_(1.5)                         # a bias large enough that leaving it out shows
    x = torch.randn(2, 3, 8, 8)
    out, report = ci.simulate(model, x)
    with torch.no_grad():
        torch.testing.assert_close(out, model(x), rtol=1e-4, atol=1e-5)
    assert not report.not_simulated, report.table()
    assert any(k.kind == "template" and any("convolution" in op for op in k.aten_ops) for k in report.kernels), \
        report.table()


def test_second_run_hits_every_cache():
    model, inputs = MODELS["mlp"](rows=24, seed=1)
    _, first = ci.simulate(model, *inputs)
    assert first.graphs_compiled == 1 and first.compiles == len(first.kernels)
    out, second = ci.simulate(model, *inputs)
    assert second.graphs_compiled == 0 and second.compiles == 0
    assert second.cache_hits == len(second.kernels) == len(first.kernels)
    assert second.cycles == first.cycles
    with torch.no_grad():
        torch.testing.assert_close(out, model(*inputs), rtol=1e-4, atol=1e-5)


def test_torch_compile_backend_by_name():
    model, inputs = MODELS["mlp"](rows=8, seed=2)
    fn = torch.compile(model, backend="mtiasim")        # found through the torch_dynamo_backends entry point
    with torch.no_grad():
        torch.testing.assert_close(fn(*inputs), model(*inputs), rtol=1e-4, atol=1e-5)


def test_unknown_header_is_refused_with_both_texts():
    source = "\nimport triton\nimport triton.language as tl\n\nfrom torch._inductor.runtime import something_else\n"
    with pytest.raises(CompilationError, match="unknown header") as e:
        header.swap_header(source, "triton_poi_fused_0")
    assert "something_else" in str(e.value) and "triton_heuristics" in str(e.value)


def test_unknown_torch_version_is_refused(monkeypatch):
    monkeypatch.setattr(torch, "__version__", "2.99.0+cpu")
    with pytest.raises(RuntimeError, match="supports torch 2.13"):
        header.check_torch_version()


def test_mtiasim_model_prints_the_table_and_saves_the_chart(tmp_path, capsys):
    from mtiasim.cli import main
    script = tmp_path / "model.py"
    script.write_text("from compiler.inductor.examples import make_mlp\nmodel, inputs = make_mlp(rows=8, seed=3)\n")
    chart = tmp_path / "chart.png"
    assert main(["model", str(script), "-o", str(chart)]) == 0
    text = capsys.readouterr().out
    assert "triton_tem_fused_addmm" in text and "coverage 100.0%" in text and "max |out - eager|" in text
    assert chart.stat().st_size > 0


@torch._dynamo.disable
def _host_part(y, w):
    """Dynamo leaves this to plain PyTorch: a graph break on each side."""
    return (y @ w).sigmoid()


class _HalfOnHost(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)
        self.w = torch.nn.Parameter(torch.randn(16, 16))

    def forward(self, x):
        return _host_part(self.fc(x).relu(), self.w) + 1


def test_ops_dynamo_leaves_to_plain_pytorch_count_as_host_ops():
    torch.manual_seed(4)
    model, x = _HalfOnHost(), torch.randn(8, 16)
    out, report = ci.simulate(model, x)
    with torch.no_grad():
        torch.testing.assert_close(out, model(x), rtol=1e-4, atol=1e-5)
    assert report.eager_ops == {"aten.mm": 1, "aten.sigmoid": 1}, report.table()
    assert report.not_simulated["aten.mm"] == 1 and report.graphs_run == 2
    assert report.coverage == report.simulated_ops / (report.simulated_ops + 2) < 1
    assert "outside the 2 compiled graph(s)" in report.table() and "aten.mm x1" in report.table()


class _Eager(torch.nn.Module):
    @torch._dynamo.disable
    def forward(self, x):
        return x.relu() * 2


def test_a_model_dynamo_does_not_compile_is_refused():
    with pytest.raises(ci.NotSimulatedError, match=r"compiled no graph of _Eager.*aten.relu x1"):
        ci.simulate(_Eager(), torch.randn(4, 4))


def test_the_recompile_limit_is_refused_not_run_eagerly():
    model = torch.nn.Sequential(torch.nn.ReLU())
    ci.simulate(model, torch.randn(4, 8))
    with torch._dynamo.config.patch(recompile_limit=1), pytest.raises(ci.NotSimulatedError, match="recompile limit"):
        ci.simulate(model, torch.randn(4, 16))          # another shape: a recompile (static shapes)


def test_coverage_of_a_run_that_counted_no_op_is_zero():
    assert ci.ModelReport().coverage == 0.0


def test_intermediates_stay_in_device_memory():
    model, inputs = MODELS["mlp"](rows=16, seed=5)
    out, report = ci.simulate(model, *inputs)
    t = report.transfers
    assert t.to_device == 1 + len(list(model.parameters()))       # x, the weights and biases: each once
    assert (t.to_host, t.to_host_bytes) == (1, out.numel() * 4)  # the output only
    assert t.stayed >= 1 and "intermediates stayed in simulated DRAM" in report.table()


class _HostOpBetweenKernels(torch.nn.Module):
    def forward(self, x):
        a = x.exp() + torch.eye(x.shape[0]) * 4          # a kernel writes a ...
        return torch.linalg.inv(a) + 1                   # ... an ATen op on the host reads it, a kernel reads its result


def test_a_host_op_between_kernels_sees_what_the_kernel_wrote():
    torch.manual_seed(6)
    x = torch.randn(8, 8)
    out, report = ci.simulate(_HostOpBetweenKernels(), x)
    torch.testing.assert_close(out, torch.linalg.inv(x.exp() + torch.eye(8) * 4) + 1, rtol=1e-4, atol=1e-5)
    assert report.not_simulated == {"aten.linalg_inv_ex": 1}, report.table()
    # in: x, and the host op's result for the last kernel; back: a for the host op, and the output
    assert report.transfers.to_host == 2 and report.transfers.to_device == 2


@triton.jit
def _double(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    xmask = xindex < xnumel
    tl.store(out_ptr0 + xindex, tl.load(in_ptr0 + xindex, xmask) * 2, xmask)


def _double_launcher():
    """A launcher as Inductor's @pointwise decorator makes it."""
    return launchers.pointwise(
        size_hints={"x": 16384}, inductor_meta={"grid_type": "Grid1D", "kernel_name": "double", "num_load": 1,
                                                "num_store": 1},
        triton_meta={"signature": {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "xnumel": "i32", "XBLOCK": "constexpr"}},
    )(_double)


def test_block_sizes_are_the_fastest_candidate_on_the_simulator_and_remembered(tmp_path, monkeypatch):
    monkeypatch.setenv("MTIASIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(blocks, "choose", lambda *a: {"XBLOCK": 16})    # a poor first guess: 250 programs
    x, out = torch.randn(4000), torch.full((4000,), float("nan"))
    launcher = _double_launcher()
    launcher.launch((x, out, x.numel()), numerics=True)
    torch.testing.assert_close(out, x * 2)
    [chosen] = launcher.configs.values()
    assert chosen != {"XBLOCK": 16}
    candidates = blocks.candidates({"XBLOCK": 16}, {"x": x.numel()})
    assert len(candidates) == 3
    cycles = {c["XBLOCK"]: _double[(triton.cdiv(x.numel(), c["XBLOCK"]),)](x, out, x.numel(), **c, numerics=False).cycles
              for c in candidates}
    assert cycles[chosen["XBLOCK"]] == min(cycles.values()), cycles
    [entry] = (tmp_path / "blocks").glob("*.pkl")
    assert pickle.loads(entry.read_bytes()) == chosen
    # another launcher of the same kernel (another process: nothing kept in this one) reads the choice
    monkeypatch.setattr(blocks, "candidates", lambda *a: pytest.fail("tuned again"))
    tuning.clear()
    again = _double_launcher()
    again.launch((x, out, x.numel()), numerics=True)
    assert list(again.configs.values()) == [chosen]


def test_block_sizes_of_a_kernel_named_past_a_file_names_length_are_remembered(tmp_path, monkeypatch):
    monkeypatch.setenv("MTIASIM_CACHE_DIR", str(tmp_path))
    name = "triton_poi_fused_" + "_".join(["unsafe_view_add_arange_cat_clone"] * 10)      # 340 characters
    fn = _double_launcher().fn
    tuning.store(fn, name, "shapes", {"XBLOCK": 64})
    tuning.clear()
    assert tuning.load(fn, name, "shapes") == {"XBLOCK": 64}
    assert tuning.load(fn, name, "other shapes") is None
