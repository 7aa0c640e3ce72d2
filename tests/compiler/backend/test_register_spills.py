"""Kernels with more live scalars than the control core has registers: values spill to the local store.

Two silent wrong answers lived there. An instruction that reads and writes the same spilled register
(`addi g, g, 1`, a loop counter once the copies on the back edge are coalesced) lost the reload of
its operand, so it added to a stale scratch register: Triton's grouped-GEMM tutorial wrote only its
first group once loop-invariant code motion raised the pressure. And a float register spilled with
fsw, which rounds an f64 scalar to f32. Both executors; the spill is checked in the program.
"""
import importlib.util

import numpy as np
import pytest

from compiler.runtime.mtia_executor import mtia_program
from simulator import get_config, use_config

from executors import EXECUTORS, launch

LIVE = 34            # more than the 28 allocatable x (and 29 f) registers


def _kernel_source() -> str:
    loads = "\n".join(f"        v{k} = tl.load(x_ptr + i * {LIVE} + {k})" for k in range(LIVE))
    total = " + ".join(f"v{k}" for k in range(LIVE))
    return f"""
import compiler as triton
import compiler.language as tl


@triton.jit
def many_live(x_ptr, o_ptr, TRIPS: tl.constexpr):
    for i in range(TRIPS):         # the counter is live all loop: the longest interval, so it spills
{loads}
        tl.store(o_ptr + i, {total})
"""


def _load(tmp_path, dtype: str):
    path = tmp_path / f"many_live_{dtype}.py"
    path.write_text(_kernel_source())
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.many_live


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_spilled_scalars_keep_their_values(tmp_path, executor, dtype):
    kernel = _load(tmp_path, dtype)
    rng = np.random.default_rng(5)
    trips = 5
    if dtype == "int32":
        x = rng.integers(-1000, 1000, (trips, LIVE)).astype(np.int32)
    else:                   # values an f32 cannot hold exactly: a rounding spill shows
        x = rng.standard_normal((trips, LIVE)) * 1e3 + 1 / 3
    out = np.full(trips, np.nan if dtype == "float64" else -1, x.dtype)
    launch(kernel, (1,), x, out, trips, executor=executor)
    want = x.sum(axis=1, dtype=x.dtype)
    if dtype == "int32":
        assert out.tolist() == want.tolist()
    else:
        np.testing.assert_allclose(out, want, rtol=1e-13)
    if executor == "mtia":
        with use_config("mtia-small"):
            prog, _ = mtia_program(kernel.compile(x, out, trips), get_config())
        assert prog.meta["spills"] > 0          # the case this file is about
