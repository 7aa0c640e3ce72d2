"""Sweeps: a YAML grid of config overrides -> one table, locally or on Dask, resumable, with failing
points recorded instead of stopping the sweep."""
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mtiasim.sweep import SweepError, comparable, load_sweep, read_table, run_sweep
from simulator.config import CONFIG_DIR

# 3 DRAM bandwidths x 2 local-store sizes x 2 workloads = 12 runs, each a few milliseconds
SMALL = {
    "name": "small",
    "base": "mtia-small",
    "grid": {"dram.bandwidth_gbps": [6.4, 12.8, 25.6], "pe.local_store_kib": [128, 384]},
    "workloads": [{"name": "gemm", "shape": [256, 256, 128], "region": "dram"},
                  {"name": "softmax_isa", "shape": {"R": 128, "C": 512}}],
}


def _report_fields():
    """Every key of Report.row(), from a real run."""
    from mtiasim.workloads import get_workload
    return list(get_workload("softmax_isa")("mtia-small", (32, 64), False).row())


def _write(tmp_path, spec, name="sweep.yaml") -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(spec))
    return p


def test_rows_hold_every_knob_and_report_field(tmp_path):
    out = tmp_path / "results.csv"
    res = run_sweep(_write(tmp_path, SMALL), out, workers=1, progress=False)
    assert res.ran == len(res.rows) == 12 and not res.errors
    rows = read_table(out)
    assert len(rows) == 12
    header = list(rows[0])
    assert header[:5] == ["point", "workload", "shape", "dram.bandwidth_gbps", "pe.local_store_kib"]
    assert set(_report_fields()) <= set(header) and header[-1] == "error"
    assert {(r["dram.bandwidth_gbps"], r["pe.local_store_kib"], r["workload"]) for r in rows} == {
        (bw, ls, w) for bw in (6.4, 12.8, 25.6) for ls in (128, 384) for w in ("gemm", "softmax_isa")}
    softmax = sorted((r for r in rows if r["workload"] == "softmax_isa"), key=lambda r: r["dram.bandwidth_gbps"])
    assert softmax[0]["cycles"] > softmax[-1]["cycles"]          # more DRAM bandwidth, faster softmax
    assert all(r["shape"] in ("256x256x128,region=dram", "128x512") for r in rows)


def test_local_processes_and_dask_give_the_same_table(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    spec = _write(tmp_path, SMALL)
    local = run_sweep(spec, tmp_path / "local.csv", workers=2, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        dask = run_sweep(spec, tmp_path / "dask.parquet" if _has_pyarrow() else tmp_path / "dask.csv",
                         scheduler=cluster.scheduler_address, progress=False)
    assert local.ran == dask.ran == 12
    assert comparable(local.rows) == comparable(dask.rows)
    assert comparable(read_table(tmp_path / "local.csv")) == comparable(read_table(dask.path))   # the files too


def _has_pyarrow():
    try:
        import pyarrow  # noqa: F401
        return True
    except ImportError:
        return False


def test_failing_points_record_their_error_and_the_sweep_goes_on(tmp_path):
    spec = {"base": "mtia-small", "grid": {"dram.bandwidth_gbps": [12.8, -1.0], "pe.local_store_kib": [128, 384]},
            "workloads": [{"name": "gemm", "shape": {"M": 256, "N": 256, "K": 64, "BM": 256, "BN": 256}}]}
    res = run_sweep(spec, tmp_path / "r.csv", workers=1, progress=False)
    rows = {(r["dram.bandwidth_gbps"], r["pe.local_store_kib"]): r for r in read_table(tmp_path / "r.csv")}
    assert len(rows) == 4 and len(res.errors) == 3
    assert rows[(12.8, 384)]["error"] == "" and rows[(12.8, 384)]["cycles"] > 0
    assert "local store" in rows[(12.8, 128)]["error"]             # 256x256 tiles do not fit 128 KiB
    assert "bandwidth_gbps" in rows[(-1.0, 384)]["error"] and "greater than 0" in rows[(-1.0, 384)]["error"]
    assert rows[(-1.0, 384)]["cycles"] == ""


def test_rerunning_skips_finished_points_and_resumes_after_an_interrupt(tmp_path):
    spec, out = _write(tmp_path, SMALL), tmp_path / "r.csv"
    seen = []

    def stop_after_five(row):
        seen.append(row)
        if len(seen) == 5:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_sweep(spec, out, workers=1, progress=False, on_row=stop_after_five)
    assert len(read_table(out)) == 5                                 # kept what finished
    res = run_sweep(spec, out, workers=1, progress=False)
    assert (res.ran, res.skipped) == (7, 5) and len(read_table(out)) == 12
    again = run_sweep(spec, out, workers=1, progress=False)
    assert (again.ran, again.skipped) == (0, 12)
    assert comparable(read_table(out)) == comparable(res.rows)


def test_retry_errors_runs_failed_points_again(tmp_path):
    spec = {"base": "mtia-small", "grid": {"dram.bandwidth_gbps": [-1.0]},
            "workloads": [{"name": "softmax_isa", "shape": [32, 64]}]}
    out = tmp_path / "r.csv"
    run_sweep(spec, out, workers=1, progress=False)
    assert run_sweep(spec, out, workers=1, progress=False).ran == 0
    res = run_sweep(spec, out, workers=1, progress=False, retry_errors=True)
    assert res.ran == 1 and len(read_table(out)) == 1


def test_parquet_results(tmp_path):
    pytest.importorskip("pyarrow")
    spec = dict(SMALL, grid={"dram.bandwidth_gbps": [12.8, 25.6]})
    res = run_sweep(spec, tmp_path / "r.parquet", workers=1, progress=False)
    rows = read_table(tmp_path / "r.parquet")
    assert len(rows) == 4 and {r["point"] for r in rows} == {r["point"] for r in res.rows}
    assert all(isinstance(r["cycles"], float) for r in rows)
    assert run_sweep(spec, tmp_path / "r.parquet", workers=1, progress=False).ran == 0


@pytest.mark.parametrize("change, match", [
    ({"colour": 1}, "unknown key"),
    ({"grid": {}}, "grid"),
    ({"grid": {"dram.bandwidth_gbps": []}}, "no values"),
    ({"grid": {"dram.bandwith_gbps": [1.0]}}, "unknown key 'bandwith_gbps'"),
    ({"base": "nope"}, "no config named"),
    ({"workloads": [{"name": "nope"}]}, "unknown workload"),
    ({"workloads": [{"name": "gemm", "shape": [1, 2]}]}, "3 number"),
    ({"workloads": []}, "workloads"),
    ({"numerics": "no"}, r"numerics = 'no': numerics is true or false"),        # bool("no") would be True
    ({"imports": "my_kernels"}, r"imports = 'my_kernels': imports is a list of module names"),
    ({"imports": [3]}, r"imports = \[3\]: imports is a list of module names"),
    ({"overrides": [1, 2]}, r"overrides = \[1, 2\]: overrides is a mapping of dotted keys to values"),
    ({"name": ["a"]}, r"name = \['a'\]: name is a string"),
])
def test_bad_sweep_files_fail_before_running(tmp_path, change, match):
    with pytest.raises(SweepError, match=match):
        load_sweep(_write(tmp_path, {**SMALL, **change}))


def test_the_dram_x_ls_sweep_has_twelve_grid_points():
    sw = load_sweep(CONFIG_DIR / "sweeps" / "dram-x-ls.yaml")
    assert sw.grid == {"dram.bandwidth_gbps": [102.4, 204.8, 409.6], "pe.local_store_kib": [128, 256, 384, 512]}
    assert sw.base == "mtia-2i" and len(sw.points()) == 12 * len(sw.workloads)
    assert len({p["id"] for p in sw.points()}) == len(sw.points())


# ---- the output file: checked before the first point, one writer at a time (issue 9) -------------

def _never(row):
    raise AssertionError(f"a point ran before the output was checked: {row}")


@pytest.mark.parametrize("out, match", [
    ("missing/r.csv", r"missing/r\.csv: the folder .*missing does not exist"),
    ("a_file.txt/r.csv", r"the folder .*a_file\.txt is not a folder"),
    ("a_folder.csv", r"a_folder\.csv is a folder; the results go to a \.csv or \.parquet file"),
    ("notes.csv", r"notes\.csv exists and is not a results table of a sweep \(it has no 'point' column\)"),
    ("r.json", r"results are written as \.csv or \.parquet"),
])
def test_an_output_the_sweep_cannot_use_is_refused_before_the_first_point(tmp_path, out, match):
    (tmp_path / "a_file.txt").write_text("x")
    (tmp_path / "a_folder.csv").mkdir()
    (tmp_path / "notes.csv").write_text("name,value\nalpha,1\n")
    with pytest.raises(SweepError, match=match):
        run_sweep(_write(tmp_path, SMALL), tmp_path / out, workers=1, progress=False, on_row=_never)
    assert (tmp_path / "notes.csv").read_text() == "name,value\nalpha,1\n"      # the user's file is untouched


def test_a_second_writer_of_the_same_output_is_refused_with_the_first_named(tmp_path):
    import os

    from mtiasim.output_lock import OutputBusy, OutputLock
    out = tmp_path / "r.csv"
    with OutputLock(out):
        with pytest.raises(OutputBusy, match=r"r\.csv is being written by another sweep in this process"):
            run_sweep(_write(tmp_path, SMALL), out, workers=1, progress=False, on_row=_never)
    assert not (tmp_path / ".r.csv.lock").exists()                  # released and removed
    holder = (f"import sys, time; sys.path[:0] = {sys.path!r}\n"
              f"from mtiasim.output_lock import OutputLock\n"
              f"with OutputLock(__import__('pathlib').Path({str(out)!r})):\n"
              f"    print('locked', flush=True); time.sleep(60)\n")
    p = subprocess.Popen([sys.executable, "-c", holder], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline() == "locked\n"
        with pytest.raises(OutputBusy, match=rf"r\.csv is being written by another sweep \(pid {p.pid}, started "):
            run_sweep(_write(tmp_path, SMALL), out, workers=1, progress=False, on_row=_never)
    finally:
        p.kill()
        p.wait(timeout=30)
    (tmp_path / f".r.csv.{os.getpid() + 1}.tmp").write_text("half a table")     # a writer killed mid-write
    res = run_sweep(_write(tmp_path, dict(SMALL, grid={"dram.bandwidth_gbps": [6.4]})), out, workers=1,
                    progress=False)                                    # the killed holder's lock is gone
    assert res.ran == 2 and sorted(q.name for q in tmp_path.iterdir()) == ["r.csv", "sweep.yaml"]
