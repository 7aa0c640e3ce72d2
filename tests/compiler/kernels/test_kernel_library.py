"""Every library kernel, compiled for MTIA and simulated, matches numpy on random inputs of several
shapes (some not multiples of the blocks). Outputs start as NaN, so a missed element shows."""
import numpy as np
import pytest

import compiler.runtime.mtia_executor  # noqa: F401  (registers the executor)
from compiler.kernels import library
from compiler.runtime import use_executor
from simulator import use_config

CASES = [(name, shape) for name, k in library().items() for shape in k.test_shapes]


@pytest.mark.parametrize("name, shape", CASES, ids=[f"{n}-{'x'.join(map(str, s))}" for n, s in CASES])
def test_library_kernel_matches_numpy(name, shape):
    k = library()[name]
    rng = np.random.default_rng(abs(hash((name, shape))) % 2**32)
    inputs = k.make_inputs(shape, rng)
    saved = [np.copy(x) for x in inputs]
    with use_executor("mtia"), use_config("mtia-small"):
        outs, runs = k.run(*inputs)
    for x, before in zip(inputs, saved):
        np.testing.assert_array_equal(x, before)          # inputs are not modified
    for out, ref in zip(outs, k.reference(*inputs)):
        assert not np.isnan(out.astype(np.float64)).any(), "the kernel left elements unwritten"
        np.testing.assert_allclose(out.astype(np.float64), ref.astype(np.float64), rtol=k.rtol, atol=k.atol)
    for r in runs:
        assert r.executor == "mtia" and r.cycles > 0 and r.seconds > 0
        assert 0 < r.roofline.fraction <= 1.0


def test_second_launch_does_not_recompile():
    from compiler.kernels.vector_add import add, add_kernel
    x = np.arange(3000, dtype=np.float32)
    with use_executor("mtia"), use_config("mtia-small"):
        add(x, x)
        compiled = next(iter(add_kernel.cache.values()))
        before = (add_kernel.compile_count, compiled.mtia.compiles)
        (out,), _ = add(x + 1, x)
    assert (add_kernel.compile_count, compiled.mtia.compiles) == before
    np.testing.assert_array_equal(out, 2 * x + 1)
