"""Why engines could not work: the report's stall accounting names the buffer and the engine each
wait was for, and adds up with the busy time to the length of the run."""
import numpy as np
import pytest

from mtiasim.workloads import get_workload
from simulator import load_config
from simulator.machine import Machine
from simulator.report import combine

SMALL = load_config("mtia-small")


def _run(name, shape, cfg=SMALL):
    return get_workload(name)(Machine(cfg, numerics=False), shape, False)


def test_a_dram_bound_kernel_waits_on_the_dma():
    rep = _run("softmax", (256, 1024))
    top_se = max(rep.stalls["se"], key=rep.stalls["se"].get)
    assert top_se.startswith("data ") and top_se.endswith("(dma)"), rep.stalls["se"]
    assert rep.stalls["se"][top_se] > 0.5 and rep.roofline.bound == "dram"
    assert "stalls      se data" in str(rep)


def test_operands_from_dram_make_the_dpe_wait_for_the_dma():
    """The same GEMM with its operands in SRAM keeps the DPE busy; from mtia-small's DRAM (12.8 GB/s
    for 4 PEs) the DPE spends most of the run waiting for the DMA to bring A and B tiles."""
    in_sram = _run("gemm", {"M": 256, "N": 256, "K": 1024, "region": "sram"})
    in_dram = _run("gemm", {"M": 256, "N": 256, "K": 1024, "region": "dram"})
    data = lambda rep: sum(v for k, v in rep.stalls["dpe"].items() if k.startswith("data") and "(dma)" in k)  # noqa: E731
    assert data(in_sram) < 0.05 and in_sram.utilization["dpe"] > 0.8, in_sram.stalls["dpe"]
    assert data(in_dram) > 0.5 and in_dram.utilization["dpe"] < 0.2, in_dram.stalls["dpe"]
    assert {"data a_tiles (dma)", "data b_tiles (dma)"} <= set(in_dram.stalls["dpe"])


@pytest.mark.parametrize("name,shape", [("softmax", (256, 1024)), ("matmul", (256, 256, 256)),
                                        ("attention", (2, 128, 64)), ("layernorm_fwd", (128, 512))])
def test_busy_and_stalls_add_up_to_the_run(name, shape):
    """On each engine that ran, busy time and the disjoint waits (issue, dependencies, done) cover the
    run once: not more (nothing counted twice), and not much less (little goes unexplained)."""
    rep = _run(name, shape)
    assert rep.stalls
    for eng, reasons in rep.stalls.items():
        covered = rep.utilization[eng] + sum(v for k, v in reasons.items() if k != "ls port")
        assert covered <= 1 + 1e-6, (eng, rep.utilization[eng], reasons)
        if eng != "dma":                # DMA waits with transfers in flight are not stalls
            assert covered > 0.9, (eng, rep.utilization[eng], reasons)


def test_stalls_are_the_same_with_and_without_numerics_and_combine_by_time():
    a = get_workload("softmax")(Machine(SMALL, numerics=True), (128, 512), True)
    b = _run("softmax", (128, 512))
    assert a.stalls == b.stalls
    c = _run("matmul", (128, 128, 128))
    both = combine([a, c], "two")
    w = a.cycles / (a.cycles + c.cycles)
    key = next(iter(a.stalls["se"]))
    assert both.stalls["se"][key] == pytest.approx(w * a.stalls["se"][key] + (1 - w) * c.stalls["se"].get(key, 0))
    assert np.isfinite(sum(sum(v.values()) for v in both.stalls.values()))
