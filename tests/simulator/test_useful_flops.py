"""A report's FLOPs are the kernel's work: a DPE command counts 2MNK of the elements its operands
hold data in, not the padding of its masked tiles, which is reported apart as the DPE's issued work
(it costs the MAC array its time, so the floor counts it). FLOP/s and FLOP/B are of the useful work."""
import json

import numpy as np
import pytest

import compiler as triton
from compiler.kernels.matmul import matmul_kernel

from executors import EXECUTORS, launch

M, N, K = 8, 80, 200            # 8 of a tile's 32 rows hold data; N and K end in partial tiles too


def _matmul(a, b, executor):
    c = np.full((M, N), np.nan, np.float16)                 # poisoned: an element never written stays NaN
    grid = (triton.cdiv(M, 32) * triton.cdiv(N, 32),)
    run = launch(matmul_kernel, grid, a, b, c, M, N, K, K, 1, N, 1, N, 1, ACTIVATION="", BLOCK_M=32,
                 BLOCK_N=32, BLOCK_K=32, GROUP_M=8, executor=executor)
    return c, run


@pytest.fixture(scope="module")
def ab():
    rng = np.random.default_rng(7)
    return (rng.standard_normal((M, K)).astype(np.float16), rng.standard_normal((K, N)).astype(np.float16))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_masked_matmul_computes_the_product(ab, executor):
    a, b = ab
    c, _ = _matmul(a, b, executor)
    np.testing.assert_allclose(c.astype(np.float32), a.astype(np.float32) @ b.astype(np.float32), rtol=2e-2,
                               atol=5e-2)


def test_the_report_counts_the_kernels_flops_and_the_padding_apart(ab):
    _, run = _matmul(*ab, "mtia")
    rep = run.report
    useful = 2 * M * N * K
    assert rep.ops["dpe"] == useful
    # the DPE ran whole 32x32 tiles of 32-deep K steps: 1 x 3 x 7 of them per output row block
    assert rep.dpe_issued == 2 * 32 * (3 * 32) * (7 * 32)
    rf = rep.roofline
    assert rf.flops == sum(rep.ops.values()) and rf.issued_flops == rf.flops - useful + rep.dpe_issued
    dram = rep.bytes["dram_read"] + rep.bytes["dram_write"]
    assert rf.arithmetic_intensity == pytest.approx(rf.flops / dram)
    assert rf.achieved_flops == pytest.approx(rf.flops / rep.seconds)
    work = next(ln for ln in str(rep).splitlines() if ln.lstrip().startswith("work"))
    assert "issued" in work, work
    d = json.loads(rep.to_json())
    assert float(d["ops"]["dpe"]) == useful and float(d["dpe_issued"]) == rep.dpe_issued
    row = rep.row()
    assert row["ops_dpe"] == useful and row["ops_dpe_issued"] == rep.dpe_issued
