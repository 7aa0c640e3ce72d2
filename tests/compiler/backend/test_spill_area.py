"""Tiles that fit the local store only over the 1 KiB kept for register spills take it: what is left holds
the spills (a kernel with none needs none of it). Such a kernel was refused with OutOfResources although
its tiles fit. Tiles larger than the whole local store are still refused."""
import json

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.errors import OutOfResources
from simulator import load_config, use_config
from simulator.machine import Machine

N = 32768


@triton.jit
def softmax_row(X, Y, Z, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    e = tl.exp(x - tl.max(x, 0))
    tl.store(Z + offs, e)
    tl.store(Y + offs, e / tl.sum(e, 0))
    tl.store(X + offs, x * 2)


def _run(local_store_kib):
    machine = Machine(load_config("mtia-small", {"pe.local_store_kib": local_store_kib}))
    x = np.random.default_rng(0).standard_normal(N).astype(np.float32)
    y, z = np.full(N, np.nan, np.float32), np.full(N, np.nan, np.float32)
    rec = softmax_row[(1,)](xin := x.copy(), y, z, N=N, executor="mtia", machine=machine)
    return x, xin, y, z, rec


def test_tiles_over_the_spill_area_run():
    a = np.zeros(N, np.float32)
    with use_config("mtia-small"):
        meta = json.loads(next(line for line in softmax_row.compile(a, a, a, N=N).asm["mtia-asm"].splitlines()
                               if line.startswith(".meta"))[len(".meta "):])
    kib = 257
    assert kib * 1024 - 1024 < meta["ls_bytes"] <= kib * 1024       # over the spill area, inside the store
    x, xin, y, z, rec = _run(kib)
    e = np.exp(x - x.max())
    np.testing.assert_allclose(z, e, rtol=1e-6)
    np.testing.assert_allclose(y, e / e.sum(), rtol=1e-5)
    np.testing.assert_array_equal(xin, x * 2)


def test_tiles_over_the_whole_local_store_are_still_refused():
    with pytest.raises(OutOfResources, match="Use smaller block sizes"):
        _run(256)
