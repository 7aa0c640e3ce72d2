"""compiler.inductor.estimate: timing-only runs of models whose weights live on the meta device."""
from __future__ import annotations

import copy
import json
import subprocess
import sys

import numpy as np
import pytest
import torch

import compiler.inductor as ci
from compiler.inductor import index_values
from compiler.inductor.examples import make_decoder, make_dlrm, make_mlp


@pytest.mark.parametrize("make", [make_mlp, make_decoder], ids=["mlp", "decoder"])
def test_estimate_of_a_meta_model_takes_the_cycles_of_simulate(make):
    model, inputs = make()
    _, simulated = ci.simulate(model, *inputs)
    meta = copy.deepcopy(model).to("meta")
    report = ci.estimate(meta, *(x.to("meta") for x in inputs))
    assert [(k.name, k.cycles) for k in report.kernels] == [(k.name, k.cycles) for k in simulated.kernels]
    assert report.cycles == simulated.cycles and report.coverage == simulated.coverage
    assert report.timing_only and not simulated.timing_only
    assert all(p.is_meta for p in meta.parameters()), "the model's own parameters are put back"
    classes = report.by_op_class()
    assert sum(c["cycles"] for c in classes.values()) == report.cycles
    assert "matmul" in classes and "normalisation" in classes
    assert sum(v["cycles"] for v in report.by_layer().values()) == report.cycles
    json.dumps(report.to_dict())


def test_the_decoders_attention_is_one_kernel_of_the_attention_class():
    model, inputs = make_decoder()
    report = ci.estimate(copy.deepcopy(model).to("meta"), *(x.to("meta") for x in inputs))
    attention = report.by_op_class()["attention"]
    assert attention["kernels"] == 1, report.table()      # the flash-attention kernel (no bmm, no softmax)
    assert {k.module for k in report.kernels} >= {"ln1", "proj"}


@pytest.mark.parametrize("spec,name", [("uniform", "uniform"), (("zipf", 1.05), "zipf(s=1.05)"),
                                       (lambda shape, high, rng: np.full(shape, high - 1), "<lambda>")])
def test_index_tensors_of_a_meta_dlrm_come_from_the_declared_distribution(spec, name):
    model, (dense, indices) = make_dlrm()
    meta = copy.deepcopy(model).to("meta")
    report = ci.estimate(meta, dense.to("meta"), [i.to("meta") for i in indices], index_distribution=spec)
    assert report.index_distribution == name
    rows = [v for k, v in report.index_inputs.items() if k.startswith("input")]
    assert rows == list(model.tables), report.index_inputs       # each indexes its own table
    assert report.index_inputs["li [6] int64"] == 4 and report.index_inputs["lj [6] int64"] == 4
    assert report.cycles > 0 and any(c == "embedding" for c in report.by_op_class())


def test_real_index_tensors_are_used_as_they_are():
    model, (dense, indices) = make_dlrm()
    report = ci.estimate(model, dense, indices)             # nothing on the meta device: a timing-only simulate
    _, simulated = ci.simulate(model, dense, indices)
    assert report.cycles == simulated.cycles and report.index_distribution == ""


def test_a_zipf_distribution_is_skewed_and_in_range():
    rng = np.random.default_rng(0)
    for high in (1000, index_values.ZIPF_EXACT_ROWS * 2):
        values = index_values.distribution(("zipf", 1.05)).draw((20000,), high, rng)
        assert values.min() >= 0 and values.max() < high
        _, counts = np.unique(values, return_counts=True)
        assert counts.max() > 20 * 20000 / high          # its hottest row is drawn far more than uniform's
    with pytest.raises(ValueError, match="outside"):
        index_values.distribution(lambda shape, high, rng: np.full(shape, high)).draw((4,), 10, rng)
    with pytest.raises(ValueError, match="index_distribution"):
        index_values.distribution("normal")


# Run alone: the peak resident memory of a fresh process, before and after estimating a model whose
# weights (a 8.6 GB embedding table and two layers) are all on the meta device.
_BIG_MODEL = """
import json, resource, torch
import compiler.inductor as ci

class Big(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.nn.Embedding(2_100_000, 1024)           # 8.6 GB of f32
        self.fc1, self.fc2 = torch.nn.Linear(1024, 256), torch.nn.Linear(256, 64)
    def forward(self, idx):
        return self.fc2(torch.relu(self.fc1(self.table(idx))))

with torch.device("meta"):
    model, idx = Big().eval(), torch.empty(16, dtype=torch.int64)
    small = Big().eval()
small.table = torch.nn.Embedding(1000, 1024, device="meta")      # warms Inductor up at a small size
ci.estimate(small, idx)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
report = ci.estimate(model, idx)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
weights = sum(p.numel() * p.element_size() for p in model.parameters())
print(json.dumps({"grew_kb": after - before, "weights": weights, "cycles": report.cycles,
                  "rows": list(report.index_inputs.values())}))
"""


def test_a_model_of_8_gb_on_the_meta_device_costs_no_host_memory():
    out = subprocess.run([sys.executable, "-c", _BIG_MODEL], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["weights"] > 8e9 and got["cycles"] > 0 and got["rows"] == [2_100_000]
    assert got["grew_kb"] < 500_000, got


def test_module_paths_and_op_classes_of_kernels():
    from compiler.inductor.op_classes import op_class
    from compiler.inductor.session import _module_name
    assert _module_name("L['self'].layers[3].mlp") == "layers.3.mlp"
    assert _module_name("L['self']._modules['fc1']") == "fc1"
    assert _module_name("L['self']") == ""
    assert op_class(("aten.addmm", "aten.relu"), "template") == "matmul"
    assert op_class(("aten.amax", "aten.exp", "aten.sub", "aten.sum", "aten.div"), "persistent_reduction") == "attention"
    assert op_class(("aten.add", "aten.var_mean", "aten.rsqrt"), "persistent_reduction") == "normalisation"
    assert op_class(("aten.embedding", "aten.add"), "pointwise") == "embedding"
    assert op_class(("aten.sum",), "reduction") == "reduction"
    assert op_class(("aten.clone",), "pointwise") == "copy"
    assert op_class(("aten.mul", "aten.silu"), "pointwise") == "elementwise"


class _Twice(torch.nn.Module):
    """Two blocks of one shape: Inductor generates one kernel per op and calls it for both."""

    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList(torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.LayerNorm(64))
                                          for _ in range(2))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def test_a_kernel_that_serves_two_layers_is_counted_in_each():
    with torch.device("meta"):
        model, x = _Twice().eval(), torch.empty(16, 64)
    report = ci.estimate(model, x)
    names = [k.name for k in report.kernels]
    assert len(set(names)) < len(names), "the blocks were expected to share kernels"
    shared = [k.module for k in report.kernels if names.count(k.name) > 1]
    assert shared == ["blocks.0.1", "blocks.1.1"], [(k.name, k.module) for k in report.kernels]
    assert {"blocks.0", "blocks.1"} <= set(report.by_layer(depth=2))     # (a kernel fusing both: "blocks")
