"""The kernel benchmark runs on a config whose DPE lacks a case's input type (MTIA 300 has no INT8): it
skips that case and says so, instead of stopping at its compile error."""
from mtiasim.bench.kernels import format_table, run
from simulator import use_config


def test_a_case_the_dpe_cannot_run_is_skipped_and_named():
    with use_config("mtia-300"):
        res = run(quick=True, only=("int8_gemm",), ablations=False)
    assert res["rows"] == [] and res["skipped"] == ["int8_gemm (the DPE has no i8)"]
    assert "skipped: int8_gemm (the DPE has no i8)" in format_table(res, "mtia-300")
