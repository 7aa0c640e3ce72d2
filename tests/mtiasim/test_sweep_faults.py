"""Fault injection on `mtiasim sweep`: two writers of one results file, Ctrl-C and SIGKILL at random
moments, then a resume. The table must end up with every point exactly once, each row equal to the
row of an uninterrupted run (wall-time columns aside)."""
import json
import os
import random
import signal
import subprocess
import time

import pytest
import yaml

from mtiasim.sweep import comparable, read_table, run_sweep

from repo import mtiasim_exe

SPEC = {"name": "faults", "base": "mtia-small", "grid": {"dram.bandwidth_gbps": [3.2 * i for i in range(1, 9)]},
        "workloads": [{"name": "softmax_isa", "shape": [128, 512]}]}
ROUNDS = 4


def _start(tmp_path, workers: int) -> subprocess.Popen:
    # its own session: a Ctrl-C goes to the sweep and its workers, as a terminal sends it
    return subprocess.Popen([mtiasim_exe(), "sweep", "s.yaml", "--out", "r.csv", "--workers", str(workers),
                             "--no-progress", "--json"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


def _lock_holder(tmp_path, procs, deadline: float):
    """The started process named in the lock file, once one has taken it (None: both ended first)."""
    lock = tmp_path / ".r.csv.lock"
    while time.time() < deadline:
        try:
            text = lock.read_text()
        except FileNotFoundError:
            text = ""
        for p in procs:
            if text.startswith(f"pid {p.pid},"):
                return p
        if all(p.poll() is not None for p in procs):
            return None
        time.sleep(0.02)
    raise AssertionError("no sweep took the lock within the deadline")


def _check_table(tmp_path, reference: dict) -> int:
    path = tmp_path / "r.csv"
    if not path.exists():
        return 0
    rows = comparable(read_table(path))
    ids = [r["point"] for r in rows]
    assert len(ids) == len(set(ids)), f"a row written twice: {ids}"
    for r in rows:
        assert r == reference[r["point"]], "a row differs from the uninterrupted run's"
    return len(rows)


@pytest.mark.slow
def test_two_writers_killed_and_interrupted_at_random_then_resumed_lose_and_duplicate_no_row(tmp_path):
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(SPEC))
    reference = {r["point"]: r for r in comparable(run_sweep(SPEC, tmp_path / "ref.csv", workers=1,
                                                            progress=False).rows)}
    assert len(reference) == 8
    rng = random.Random(9)
    started: list[subprocess.Popen] = []
    try:
        for _ in range(ROUNDS):
            a = _start(tmp_path, rng.choice([1, 2]))
            time.sleep(rng.uniform(0, 0.5))
            b = _start(tmp_path, rng.choice([1, 2]))
            started += [a, b]
            holder = _lock_holder(tmp_path, [a, b], time.time() + 60)
            time.sleep(rng.uniform(0, 1.5))
            sig = rng.choice([signal.SIGINT, signal.SIGKILL])
            if holder is not None and holder.poll() is None:
                try:                                   # SIGKILL: the sweep alone, its workers are orphaned
                    os.killpg(holder.pid, sig) if sig == signal.SIGINT else holder.kill()
                except ProcessLookupError:
                    pass
            for p in (a, b):
                out, err = p.communicate(timeout=60)
                if p is holder:
                    # -SIGINT: the Ctrl-C came as the finished sweep was exiting, past Python's handler
                    assert p.returncode in (0, 130, -signal.SIGKILL) or (
                        p.returncode == -signal.SIGINT and '"ran"' in out), (p.returncode, out, err)
                    assert "Traceback" not in err
                else:                                  # the other one ran alone, or was refused by name
                    assert p.returncode == 0 or (p.returncode == 1 and "is being written by another sweep (pid "
                                                 f"{holder.pid if holder else ''}" in err), err
            _check_table(tmp_path, reference)
        final = subprocess.run([mtiasim_exe(), "sweep", "s.yaml", "--out", "r.csv", "--workers", "2", "--json",
                                "--no-progress"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                               env={**os.environ, "PYTHONFAULTHANDLER": "1"})
        assert final.returncode == 0, final.stderr
        summary = json.loads(final.stdout)
        assert summary["ran"] + summary["skipped"] == 8 and summary["errors"] == 0
        assert _check_table(tmp_path, reference) == 8
        assert not list(tmp_path.glob(".r.csv.*"))              # no lock or half-written table left behind
    finally:
        for p in started:                                       # orphaned workers of a killed sweep
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
