"""Whole models in sweeps (mtiasim/model_workloads.py): a named LLM's serving step over a grid of whole
configs (the `config` grid key), on a Dask cluster, and a model script as a workload."""
import pytest

pytest.importorskip("torch")

from mtiasim import serving  # noqa: E402
from mtiasim.models.llama import SHAPES  # noqa: E402
from mtiasim.sweep import load_sweep, run_sweep  # noqa: E402
from simulator.config import load_config  # noqa: E402

CONFIGS = ["mtia-2i", "mtia-2i-ecc", "mtia-v1", "mtia-300"]
DECODE = {"name": "llm", "model": "llama-tiny", "phase": "decode", "batch": 1, "tokens": 32}


def _spec(configs, workloads):
    return {"name": "llm-configs", "base": "mtia-2i", "grid": {"config": configs}, "workloads": workloads,
            "imports": ["mtiasim.model_workloads"]}


def test_config_grid_key_makes_each_config_a_point():
    sw = load_sweep(_spec(CONFIGS, [DECODE]))
    points = sw.points()
    assert [p["base"] for p in points] == CONFIGS and all(p["overrides"] == {} for p in points)
    assert len({p["id"] for p in points}) == 4


@pytest.mark.slow
def test_llama_decode_over_four_configs_on_dask(tmp_path):
    # one worker process: the four points go through the scheduler as with more, and the model is
    # compiled once instead of once per worker (tests/mtiasim/test_sweep.py spreads points over two)
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        res = run_sweep(_spec(CONFIGS, [DECODE]), tmp_path / "llm.csv", scheduler=cluster.scheduler_address,
                        progress=False)
    assert res.ran == 4 and not res.errors, [r["error"] for r in res.errors]
    rows = {r["config"]: r for r in res.rows}
    assert set(rows) == set(CONFIGS)
    for name, r in rows.items():
        _, compute, memory = serving.floors(SHAPES["llama-tiny"], load_config(name), "decode", 1, 32)
        assert r["floor_ms"] == pytest.approx(max(compute, memory) * 1e3)
        assert r["ms"] >= r["floor_ms"] > 0 and r["seconds"] * 1e3 == pytest.approx(r["ms"])
        assert r["kernel"] == "llama-tiny decode" and r["kernels"] > 0
    # the same step, slower where the chip is slower: v1 (0.8 GHz, 176 GB/s) behind 2i, ECC behind 2i
    assert rows["mtia-v1"]["ms"] > rows["mtia-2i"]["ms"]
    assert rows["mtia-2i-ecc"]["ms"] >= rows["mtia-2i"]["ms"]


def test_model_script_workload_runs_a_script(tmp_path):
    script = tmp_path / "mlp.py"
    script.write_text("import torch\n"
                      "torch.manual_seed(0)\n"
                      "model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 32))\n"
                      "inputs = (torch.randn(16, 64),)\n")
    res = run_sweep(_spec(["mtia-2i"], [{"name": "model_script", "script": str(script)}]), None, workers=1,
                    progress=False)
    assert not res.errors, res.errors
    row = res.rows[0]
    assert row["cycles"] > 0 and row["kernels"] >= 1 and row["coverage"] == 1.0
