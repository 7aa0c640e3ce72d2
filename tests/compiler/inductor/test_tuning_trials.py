"""Block-size tuning (compiler/inductor/tuning.py): trials in worker processes choose what trials here
choose, and a kernel defined again under another name (another call site) is not tuned again."""
from __future__ import annotations

import pytest
import torch

import compiler as triton
import compiler.language as tl
from compiler.inductor import blocks, launchers, tuning
from compiler.runtime import launch_memo


@triton.jit
def _triple(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)
    xmask = xindex < xnumel
    tl.store(out_ptr0 + xindex, tl.load(in_ptr0 + xindex, xmask) * 3, xmask)


def _launcher(name: str):
    """A launcher as Inductor's @pointwise decorator makes it, for the kernel named `name`."""
    return launchers.pointwise(
        size_hints={"x": 16384}, inductor_meta={"grid_type": "Grid1D", "kernel_name": name, "num_load": 1,
                                                "num_store": 1},
        triton_meta={"signature": {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "xnumel": "i32", "XBLOCK": "constexpr"}},
    )(_triple)


def _chosen(name: str) -> dict:
    x, out = torch.randn(4000), torch.zeros(4000)
    launcher = _launcher(name)
    launcher.launch((x, out, x.numel()), numerics=True)
    torch.testing.assert_close(out, x * 3)
    [chosen] = launcher.configs.values()
    return chosen


@pytest.fixture
def poor_first_guess(monkeypatch):
    monkeypatch.setattr(blocks, "choose", lambda *a: {"XBLOCK": 16})      # 250 programs: worth tuning


def test_trials_in_workers_choose_what_trials_here_choose(poor_first_guess, monkeypatch):
    here = _chosen("triple")
    tuning.clear()
    launch_memo.clear()                # the workers simulate their trials again
    monkeypatch.setattr(tuning, "PARALLEL_MIN_SECONDS", 0.0)              # always hand the rest to workers
    monkeypatch.setenv("MTIASIM_AUTOTUNE_WORKERS", "2")
    assert _chosen("triple") == here


def test_a_kernel_at_another_call_site_is_not_tuned_again(poor_first_guess, monkeypatch):
    chosen = _chosen("triton_poi_fused_mul_0")
    monkeypatch.setattr(tuning, "time_candidates", lambda *a: pytest.fail("tuned again"))
    assert _chosen("triton_poi_fused_mul_7") == chosen
