"""The workload registry: the hand-written ISA workloads, shapes, and adding a workload in one call."""
import numpy as np
import pytest

from mtiasim.workloads import (
    _REGISTRY,
    Workload,
    WorkloadError,
    format_shape,
    gemm_tiling,
    get_workload,
    register_workload,
    workloads,
)
from simulator import load_config
from simulator.examples.softmax import local_store_bytes, rows_per_block, run_softmax, softmax_program
from simulator.machine import Machine

from floor import assert_above_floor


@pytest.fixture(scope="module")
def small():
    return load_config("mtia-small")


def test_hand_written_workloads_are_registered():
    ws = workloads()
    for name in ("gemm", "softmax_isa", "dram_stream", "dpe_loop"):
        assert isinstance(ws[name], Workload) and ws[name].description
    assert get_workload("gemm").dims == ("M", "N", "K")
    assert get_workload("softmax_isa").dims == ("R", "C")


@pytest.mark.parametrize("R, C, BR, region", [(64, 256, None, "dram"), (96, 128, 32, "sram"), (8, 2048, 1, "dram")])
def test_softmax_matches_numpy(small, R, C, BR, region):
    rep, y, ref = run_softmax(Machine(small), R, C, BR=BR, region=region, seed=R + C)
    assert not np.isnan(y).any()
    np.testing.assert_allclose(y, ref, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-5)
    br = BR or rows_per_block(R, C, small.ls_bytes)
    assert rep.commands == 7 * (R // br)                     # seven commands per block of rows
    assert rep.ops["se"] == 3 * R * C and rep.ops["re"] == 2 * R * C
    if region == "dram":             # the output stays in the write-back LLC, as dirty lines
        assert rep.bytes["dram_read"] == R * C * 4 and rep.bytes["dram_write"] == 0
        assert rep.llc["dirty_bytes"] == R * C * 4
        assert rep.roofline.bound == "dram"
        assert_above_floor(rep, small, dram_bytes=R * C * 4)


def test_softmax_handles_large_and_equal_values(small):
    """exp(x - max) keeps huge inputs finite; a constant row is uniform."""
    m = Machine(small)
    x = np.zeros((32, 64), np.float32)
    x[0] = 80.0
    x[1, 5] = 1000.0
    gx, gy = m.gmem.alloc_array(x, "x"), m.gmem.alloc_array(np.zeros_like(x), "y")
    m.run(softmax_program(32, 64, 16), grid=(2,), args={"x": gx, "y": gy, "R": 32, "C": 64})
    y = gy.data.view(np.float32).reshape(32, 64)
    np.testing.assert_allclose(y[0], 1 / 64, rtol=1e-6)
    assert y[1, 5] == pytest.approx(1.0) and y[1].sum() == pytest.approx(1.0)


def test_softmax_blocks_fit_the_local_store():
    assert rows_per_block(4096, 1024, 384 * 1024) == 8
    assert local_store_bytes(1024, 8) <= 384 * 1024 < local_store_bytes(1024, 16)
    assert rows_per_block(4096, 1024, 128 * 1024) == 2
    assert rows_per_block(6, 1024, 1 << 30) == 2              # a power of two that divides R
    text = softmax_program(64, 256, 16).to_asm()
    assert "se.sub cb2.push:f32[16x256], cb0.pop:f32[16x256], cb1.pop:f32[16x1]" in text
    assert "re.reduce cb1.push:f32[16x1], cb0.keep:f32[16x256], max, 1" in text


def test_workload_returns_report_and_checks(small):
    w = get_workload("softmax_isa")
    run = w.execute(small, (64, 256), numerics=True)
    assert run.report.kernel == "softmax" and run.checks["max |y - softmax(x)|"] < 1e-6
    assert w(small, {"R": 64, "C": 256}, numerics=False).cycles == run.report.cycles   # timing-only: same cycles
    rep = get_workload("gemm")(Machine(small), (256, 256, 64))   # a Machine works as well as a config
    assert rep.kernel == "gemm"


def test_gemm_tiles_fit_every_config():
    assert gemm_tiling(2048, 2048, 2048, 384 * 1024, pes=64) == (256, 256, 32)
    assert gemm_tiling(2048, 2048, 2048, 128 * 1024, pes=64) == (128, 128, 32)
    assert gemm_tiling(2048, 2048, 2048, 256 * 1024, pes=64) == (256, 128, 32)
    assert gemm_tiling(2048, 2048, 2048, 512 * 1024, pes=64) == (256, 256, 64)
    assert gemm_tiling(1024, 1024, 1024, 512 * 1024, pes=64) == (128, 128, 32)    # 64 tiles for 64 PEs
    assert gemm_tiling(256, 256, 256, 512 * 1024, pes=64) == (32, 32, 32)         # the most tiles there are
    assert gemm_tiling(96, 96, 96, 1 << 20) == (32, 32, 32)
    with pytest.raises(WorkloadError, match="multiples of 32"):
        gemm_tiling(100, 100, 100, 1 << 20)
    rep = get_workload("gemm")(load_config("mtia-v1"), {"M": 256, "N": 256, "K": 64}, numerics=False)
    assert rep.config == "mtia-v1"


@pytest.mark.parametrize("shape, expect", [
    (None, {"M": 2048, "N": 2048, "K": 2048}),
    ((64, 128, 32), {"M": 64, "N": 128, "K": 32}),
    ({"K": 32}, {"M": 2048, "N": 2048, "K": 32}),
    ("64x128x32", {"M": 64, "N": 128, "K": 32}),
    ("64 128 32", {"M": 64, "N": 128, "K": 32}),
    ("M=64,K=32 region=dram", {"M": 64, "N": 2048, "K": 32, "region": "dram"}),
    ("BM=128", {"BM": 128}),
])
def test_shapes_normalize(shape, expect):
    full = get_workload("gemm").shape(shape)
    assert {k: full[k] for k in expect} == expect
    assert set(full) == {"M", "N", "K", "region", "BM", "BN", "BK"}


@pytest.mark.parametrize("shape, match", [
    ((64, 128), "3 number"), ({"Q": 1}, "unknown shape parameter"), ((0, 1, 1), "positive integer"),
    ("64xABCx32", "positive integer"), ("M=", "positive integer"), ("M", "3 number"),
])
def test_bad_shapes_are_clear(shape, match):
    with pytest.raises(WorkloadError, match=match):
        get_workload("gemm").shape(shape)


def test_format_shape_shows_dims_and_changed_options():
    w = get_workload("gemm")
    assert format_shape(w, w.shape((64, 64, 32))) == "64x64x32"
    assert format_shape(w, w.shape({"region": "dram"})) == "2048x2048x2048,region=dram"


def test_unknown_workload_lists_the_known_ones():
    with pytest.raises(WorkloadError, match="available: .*gemm.*softmax"):
        get_workload("nope")


def test_registering_is_one_call_and_guards_names(small):
    def scaled_stream(machine_or_config, shape, numerics):
        return get_workload("dram_stream")(machine_or_config, {"chunks": shape["n"]}, numerics)
    try:
        w = register_workload("scaled_stream", scaled_stream, shape={"n": 2}, description="test workload")
        assert w.dims == ("n",) and "scaled_stream" in workloads()
        assert get_workload("scaled_stream")(small, (3,), False).bytes["dram_read"] == 4 * 3 * 32768
        register_workload("scaled_stream", scaled_stream, shape={"n": 4}, description="re-run cell")  # same fn
        assert get_workload("scaled_stream").default_shape == {"n": 4}
        with pytest.raises(WorkloadError, match="already registered"):
            register_workload("scaled_stream", lambda m, s, n: None, shape={"n": 1}, description="other")
        with pytest.raises(WorkloadError, match="use letters"):
            register_workload("bad name", scaled_stream, shape={"n": 1}, description="x")
    finally:
        _REGISTRY.pop("scaled_stream", None)
