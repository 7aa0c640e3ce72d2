"""The backend's optimisation switches (`mtia_options=`): each one off changes the program, never the
answer; bad switches are refused by name; the kernel benchmark measures what each is worth."""
import numpy as np
import pytest

from compiler.backend.options import BackendOptions
from compiler.kernels import library
from mtiasim.bench.kernels import Case, comparisons, format_table, main, measure
from simulator import use_config

from shared_kernels import dma_lines, wrapped_matmul_kernel


def _matmul_inputs():
    rng = np.random.default_rng(5)
    return rng.standard_normal((100, 40)).astype(np.float16), rng.standard_normal((40, 72)).astype(np.float16)


@pytest.mark.parametrize("switch", BackendOptions.names())
def test_each_switch_off_gives_the_same_numbers(switch):
    a, b = _matmul_inputs()
    outs = []
    for opts in ({}, {switch: False}):
        c = np.full((100, 72), np.nan, np.float16)
        with use_config("mtia-small"):
            wrapped_matmul_kernel[(12,)](a, b, c, 100, 72, 40, 40, 72, 72, BM=32, BN=32, BK=16, mtia_options=opts)
        outs.append(c)
    np.testing.assert_array_equal(outs[0], outs[1])
    assert not np.isnan(outs[0]).any()


def test_switches_change_the_lowering_they_name():
    from compiler.runtime.mtia_executor import mtia_program
    from simulator import get_config
    a, b = _matmul_inputs()
    c = np.zeros((100, 72), np.float16)
    compiled = wrapped_matmul_kernel.compile(a, b, c, 100, 72, 40, 40, 72, 72, BM=32, BN=32, BK=16)
    asm = lambda opts: mtia_program(compiled, get_config(), 3, opts)[0].to_asm()  # noqa: E731
    on = dma_lines(compiled)
    assert any("wrap=" in d for d in on) and not any("gather" in d for d in on)
    no_remap = asm({"remap_boxes": False})
    assert "dma.gather" in no_remap and "wrap=" not in no_remap
    no_mask = asm({"mask_boxes": False})
    assert "dma.gather" in no_mask and "valid=" not in no_mask.split("endfor")[0].split("for_")[-1]


def test_bad_switches_are_refused_by_name():
    a, b = _matmul_inputs()
    c = np.zeros((100, 72), np.float16)
    with pytest.raises(ValueError, match=r"unknown mtia_options 'remap'; the switches are remap_boxes"):
        wrapped_matmul_kernel[(12,)](a, b, c, 100, 72, 40, 40, 72, 72, BM=32, BN=32, BK=16,
                                      mtia_options={"remap": False})
    with pytest.raises(TypeError, match=r"mtia_options\['licm'\] must be True or False"):
        BackendOptions.of({"licm": 0})


def test_the_benchmark_row_reports_fraction_bound_and_each_switch_that_matters():
    assert "matmul_tutorial" in library()
    with use_config("mtia-small"):
        row = measure(Case("matmul_tutorial", (128, 128, 64), "peak", {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32,
                                                                      "BLOCK_SIZE_K": 32}))
    assert row["cycles"] > 0 and 0 < row["fraction"] <= 1 and row["bound"] in ("dpe", "dram", "sram", "noc")
    assert row["ablations"]["remap_boxes"] > 1.5, row        # gathers instead of wrapped boxes
    assert "matmul_tutorial" in format_table({"rows": [row], "comparisons": []}, "mtia-small")


def test_a_row_with_switches_turned_off_together_reports_their_joint_ablation():
    # The 256^3 row's path: both command forms off at once, and the per-K-step figures.
    with use_config("mtia-small"):
        row = measure(Case("matmul", (64, 64, 64), "peak", {"sram_resident": True}, "matmul 64^3",
                           together=("auto_increment", "command_contexts")))
    joint = row["ablations"]["auto_increment+command_contexts"]
    assert joint >= 1.0 and row["core_off"]["auto_increment+command_contexts"] > row["core_cycles"], row
    assert row["per_step"]["off"]["core"] > row["per_step"]["on"]["core"], row
    step = row["per_step"]["on"]
    assert step["cycles"] > 0 and step["floors"]["dpe"] > 0, step
    line = [c for c in comparisons(False, [dict(row, kernel="matmul 256^3")]) if "per K step" in c][0]
    assert f"the run {step['cycles']:.0f} cycles with the command forms" in line, line


SMALL_GEMM = Case("matmul", (256, 256, 256), "peak", {"sram_resident": True}, "matmul 256^3")


def test_a_core_that_outworks_the_floor_but_not_the_dpe_is_not_the_bound():
    # Memory four times as fast: the 256^3 GEMM's compute floor (256 cycles of MACs) is under the
    # control core's work, but the DPE (its MACs plus each command's fixed cost) works longer still.
    with use_config("mtia-2i", {"pe.dma.gbps": 345.6, "sram.gbps": 10800, "noc.link_gbps": 691.2}):
        row = measure(SMALL_GEMM, ablations=False)
    assert row["floor_cycles"] < row["core_cycles"] < row["dpe_cycles"], row
    assert row["bound"] == "dpe", row


def test_the_bound_is_issue_when_the_core_outworks_every_engine_and_the_floor(capsys):
    # --set: a push that costs 100 cycles makes the control core the busiest unit of the run.
    assert main(["--only", "matmul 256^3", "--no-ablations", "--set", "pe.scalar.issue_cycles=100"]) == 0
    out = capsys.readouterr().out
    assert "kernel benchmark on mtia-2i --set pe.scalar.issue_cycles=100" in out, out
    row = [ln for ln in out.splitlines() if ln.strip().startswith("matmul 256^3") and "256x256x256" in ln][0]
    assert row.split()[6] == "issue", row
