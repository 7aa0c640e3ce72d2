"""The disk cache (compiler/runtime/disk_cache.py) outlives a process: another process compiling the same
kernel reads its MTIA program, another timing-only launch its record, another run of a model its block
sizes and tuning; a change of the config or of the compiler's sources makes the entries unreachable."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.runtime import disk_cache, launch_memo
from simulator.config import use_config

REPO = Path(__file__).resolve().parents[3]

# a kernel in a file of its own, launched by a fresh process; prints what the launch compiled and ran
_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import compiler as triton
    import compiler.language as tl
    from simulator.config import use_config
    from simulator.machine import Machine

    runs = []
    _run = Machine.run
    Machine.run = lambda self, *a, **kw: runs.append(1) or _run(self, *a, **kw)

    @triton.jit
    def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = i < n
        tl.store(out_ptr + i, tl.load(x_ptr + i, mask) * 3.0, mask)

    config, numerics = sys.argv[1], sys.argv[2] == "numerics"
    x = np.arange(2048, dtype=np.float32)
    out = np.zeros_like(x)
    with use_config(config):
        record = scale[(8,)](x, out, x.size, BLOCK=256, executor="mtia", numerics=numerics)
    kernel = record.compiled_kernel
    print(json.dumps({"cycles": record.cycles, "reused": record.reused, "simulations": len(runs),
                      "compiles": kernel.mtia.compiles, "loaded": kernel.mtia.loaded,
                      "frontend_compiles": scale.compile_count,
                      "right": bool((out == 3 * x).all()) if numerics else None}))
""")


def _run_script(tmp_path, *args, script=_SCRIPT, timeout=240) -> dict:
    path = tmp_path / "launch.py"
    path.write_text(script)
    env = {**os.environ, "MTIASIM_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO),
           "MTIASIM_INDUCTOR_CACHE": str(tmp_path / "modules"), "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "torch")}
    done = subprocess.run([sys.executable, str(path), *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_process_reads_the_program_and_gets_the_same_cycles(tmp_path):
    first = _run_script(tmp_path, "mtia-2i", "numerics")
    second = _run_script(tmp_path, "mtia-2i", "numerics")
    assert (first["compiles"], first["loaded"]) == (1, 0)
    assert (second["compiles"], second["loaded"]) == (0, 1)
    assert (first["frontend_compiles"], second["frontend_compiles"]) == (1, 0)
    assert second["cycles"] == first["cycles"]
    assert first["right"] and second["right"] and second["simulations"] == 1     # numerics: simulated again


def test_a_second_process_reuses_a_timing_only_launch_and_another_config_does_not(tmp_path):
    first = _run_script(tmp_path, "mtia-2i", "timing")
    second = _run_script(tmp_path, "mtia-2i", "timing")
    assert first["simulations"] == 1 and not first["reused"]
    assert second["simulations"] == 0 and second["reused"] and second["cycles"] == first["cycles"]
    other = _run_script(tmp_path, "mtia-small", "timing")
    assert other["simulations"] == 1 and other["compiles"] == 1 and not other["reused"]


@triton.jit
def _double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    tl.store(out_ptr + i, tl.load(x_ptr + i, mask) * 2.0, mask)


def _launch_fresh(numerics=True):
    """Launch `_double` through a new @jit object: nothing kept in this process but the disk cache."""
    launch_memo.clear()
    x = np.arange(1024, dtype=np.float32)
    return triton.jit(_double.fn)[(4,)](x, np.zeros_like(x), x.size, BLOCK=256, executor="mtia", numerics=numerics)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("MTIASIM_CACHE_DIR", str(tmp_path))
    yield tmp_path
    disk_cache.set_source_hash(None)


def test_a_change_of_the_sources_or_the_config_invalidates(cache_dir):
    first = _launch_fresh()
    assert first.compiled_kernel.mtia.compiles == 1
    assert _launch_fresh().compiled_kernel.mtia.loaded == 1
    disk_cache.set_source_hash("an edited compiler")
    assert _launch_fresh().compiled_kernel.mtia.compiles == 1
    with use_config("mtia-small"):
        assert _launch_fresh().compiled_kernel.mtia.compiles == 1


def test_caching_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("MTIASIM_CACHE_DIR", "off")
    assert disk_cache.root() is None
    for _ in range(2):
        assert _launch_fresh(numerics=False).compiled_kernel.mtia.compiles == 1
    assert not disk_cache.store("launches", "k", {"x": 1}) and disk_cache.load("launches", "k") is None


_MLP_SCRIPT = textwrap.dedent("""
    import json
    import torch
    from compiler.inductor import simulate, tuning
    from compiler.inductor.examples import MLP
    from simulator.machine import Machine

    timing_runs, tunings = [], []
    _run = Machine.run
    Machine.run = lambda self, *a, **kw: (timing_runs.append(1) if not self.numerics else None) or _run(self, *a, **kw)
    _tune = tuning.time_candidates
    tuning.time_candidates = lambda *a: tunings.append(1) or _tune(*a)
    torch.manual_seed(0)
    model, x = MLP(64, 256, 32), torch.randn(16, 64)
    out, report = simulate(model, x)
    print(json.dumps({"cycles": [k.cycles for k in report.kernels], "timing_runs": len(timing_runs),
                      "tunings": len(tunings), "right": bool(torch.allclose(out, model(x), atol=1e-4))}))
""")


# slow (two processes importing torch and compiling a model): its parts are checked across processes by the
# tests above (the MTIA program, the timing-only launch record) and through the disk by
# test_inductor.py::test_block_sizes_are_the_fastest_candidate_on_the_simulator_and_remembered (tuning)
@pytest.mark.slow
def test_a_second_simulate_of_a_model_in_a_new_process_tunes_nothing(tmp_path):
    first = _run_script(tmp_path, script=_MLP_SCRIPT, timeout=400)
    second = _run_script(tmp_path, script=_MLP_SCRIPT, timeout=400)
    assert first["timing_runs"] > 0 and first["right"]
    assert second["timing_runs"] == 0 and second["tunings"] == 0 and second["right"]
    assert second["cycles"] == first["cycles"]


_FACTOR = 2.0


@triton.jit
def _times_factor(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    tl.store(out_ptr + i, tl.load(x_ptr + i, mask) * _FACTOR, mask)


def test_a_kernel_is_compiled_again_when_a_global_it_read_has_changed(cache_dir, monkeypatch):
    x = np.arange(1024, dtype=np.float32)
    for factor, compiles in ((2.0, 1), (2.0, 0), (5.0, 1)):
        monkeypatch.setattr(sys.modules[__name__], "_FACTOR", factor)
        kernel, out = triton.jit(_times_factor.fn), np.zeros_like(x)
        kernel[(4,)](x, out, x.size, BLOCK=256, executor="mtia")
        assert kernel.compile_count == compiles
        np.testing.assert_array_equal(out, x * factor)
