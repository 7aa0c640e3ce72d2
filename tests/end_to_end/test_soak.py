"""Soak: 1,000 small launches in one process (both executors; numpy arrays, torch tensors and device
arrays made and dropped each time) keep the resident set and the live Python objects bounded.

Bound: RSS at most 128 MiB above its level after a warm-up of 20 launches. Why that figure: one
simulated launch on the 4-PE test config builds a Machine (local stores, CBs, SimPy state: a few MiB)
that the allocator may keep for reuse, and RSS sways by up to ~60 MiB from launch to launch as it
does (measured: 161 MiB after warm-up, 140-203 MiB over 1,000 launches, 153 MiB at the end). A leak
of one launch's memory each time would pass 128 MiB within the run; a leak of small objects shows in
the live-object count instead, allowed to grow by at most 2 per launch (caches filling)."""
from __future__ import annotations

import gc

import numpy as np
import pytest
import torch

import compiler as triton
import compiler.language as tl
from compiler.runtime import device_array
from simulator import use_config

pytestmark = pytest.mark.slow          # minutes of simulation: `pytest -m "not slow"` leaves it out

RSS_BOUND = 128 << 20
LAUNCHES = 1000
ON_MTIA = 200                  # of them on the simulated chip (~70 ms each), the rest interpreted (~4 ms)


def rss_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


@triton.jit
def add_one(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m) + 1, mask=m)


def _one_launch(i: int, x: np.ndarray) -> None:
    executor = "mtia" if i % (LAUNCHES // ON_MTIA) == 0 else "interpreter"
    kind = i % 3
    if kind == 0:
        o = np.full_like(x, np.nan)
        add_one[(4,)](x, o, x.size, BLOCK=256, executor=executor)
        got = o
    elif kind == 1:
        o = torch.full((x.size,), float("nan"))
        add_one[(4,)](torch.from_numpy(x), o, x.size, BLOCK=256, executor=executor)
        got = o.numpy()
    else:
        o = device_array(np.full_like(x, np.nan))
        add_one[(4,)](device_array(x), o, x.size, BLOCK=256, executor=executor)
        got = o.to_host()
    np.testing.assert_array_equal(got, x + 1)


def test_a_thousand_launches_keep_memory_bounded():
    x = np.random.default_rng(2).standard_normal(1000).astype(np.float32)
    with use_config("mtia-small"):
        for i in range(20):
            _one_launch(i, x)
        gc.collect()
        base_rss, base_objects = rss_bytes(), len(gc.get_objects())
        peak = base_rss
        for i in range(LAUNCHES):
            _one_launch(i, x)
            if i % 50 == 0:
                peak = max(peak, rss_bytes())
        gc.collect()
    grown = len(gc.get_objects()) - base_objects
    peak = max(peak, rss_bytes())
    assert peak - base_rss <= RSS_BOUND, f"RSS grew by {(peak - base_rss) >> 20} MiB over {LAUNCHES} launches"
    assert grown <= 2 * LAUNCHES, f"{grown} more live Python objects after {LAUNCHES} launches"
