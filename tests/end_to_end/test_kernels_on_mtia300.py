"""Library kernels compile for MTIA 300 and run on its model: a GEMM and a softmax match numpy, their
cycles stay above the roofline floor (conftest checks every run), and an INT8 GEMM is refused, the
chip's DPE having no INT8."""
import numpy as np
import pytest

import compiler.runtime.mtia_executor  # noqa: F401  (registers the executor)
from compiler.errors import CompilationError
from compiler.kernels import library
from compiler.runtime import use_executor
from simulator import use_config


@pytest.mark.parametrize("name, shape", [("matmul", (256, 192, 160)), ("matmul", (100, 130, 70)),
                                         ("softmax", (128, 1000)), ("softmax", (37, 130))])
def test_library_kernel_on_mtia300_matches_numpy(name, shape):
    k = library()[name]
    inputs = k.make_inputs(shape, np.random.default_rng(0))
    with use_executor("mtia"), use_config("mtia-300") as cfg:
        outs, runs = k.run(*inputs)
    for out, ref in zip(outs, k.reference(*inputs)):
        assert not np.isnan(out.astype(np.float64)).any(), "the kernel left elements unwritten"
        np.testing.assert_allclose(out.astype(np.float64), ref.astype(np.float64), rtol=k.rtol, atol=k.atol)
    for r in runs:
        assert r.config == cfg.name and r.cycles > 0
        assert 0 < r.roofline.fraction <= 1.0


def test_int8_gemm_is_refused_on_mtia300():
    k = library()["int8_gemm"]
    inputs = k.make_inputs((64, 64, 64), np.random.default_rng(0))
    with use_executor("mtia"), use_config("mtia-300"), \
            pytest.raises(CompilationError, match="tl.dot on i8 is not supported by the DPE of mtia-300"):
        k.run(*inputs)
