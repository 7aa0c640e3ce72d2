"""The decode GEMV (compiler/kernels/gemv.py): right numbers at small shapes, and at Llama-2-7B's
decode shapes on MTIA 2i within 90% of the DRAM floor (issue #34's target; ISCA'25 reports > 95% of
the DRAM bandwidth for weight-bound GEMMs)."""
import numpy as np
import pytest

import compiler.runtime.mtia_executor  # noqa: F401  (registers the executor)
from compiler.kernels.gemv import gemv, make_inputs, pick_blocks, reference
from compiler.runtime import use_executor
from simulator import get_config, use_config


@pytest.mark.parametrize("shape", [(1, 64, 96), (1, 100, 70), (2, 300, 40), (1, 1000, 33)],
                         ids=lambda s: "x".join(map(str, s)))
def test_gemv_matches_numpy(shape):
    x, w = make_inputs(shape, np.random.default_rng(sum(shape)))
    with use_executor("mtia"), use_config("mtia-small"):
        (y,), _ = gemv(x, w)                 # y starts as NaN: a missed element shows
    assert not np.isnan(y.astype(np.float32)).any()
    np.testing.assert_allclose(y.astype(np.float32), reference(x, w)[0].astype(np.float32), rtol=2e-2, atol=2e-2)


def test_gemv_takes_a_vector():
    x, w = make_inputs((1, 96, 40), np.random.default_rng(1))
    with use_executor("mtia"), use_config("mtia-small"):
        (y,), _ = gemv(x[0], w)
    assert y.shape == (40,)
    np.testing.assert_allclose(y.astype(np.float32), reference(x, w)[0][0].astype(np.float32), rtol=2e-2, atol=2e-2)


def test_blocks_stream_long_rows_and_cover_the_pes():
    """The rule's choice at the decode shapes: 1 KB or 512 B runs of W, and every PE-wave >= 90% busy."""
    assert pick_blocks(1, 11008, 4096, 64, 384 << 10) == {"BLOCK_N": 16, "BLOCK_K": 512}   # 688 programs
    assert pick_blocks(1, 4096, 11008, 64, 384 << 10) == {"BLOCK_N": 64, "BLOCK_K": 256}   # K = 43 x 256
    assert pick_blocks(1, 4096, 4096, 64, 384 << 10) == {"BLOCK_N": 32, "BLOCK_K": 512}


@pytest.mark.slow
@pytest.mark.parametrize("m, k, n", [(1, 4096, 4096), (1, 11008, 4096)], ids=["1x4096x4096", "1x11008x4096"])
def test_decode_gemv_at_the_dram_floor(m, k, n):
    """Timing-only at the real shape: no faster than its bytes at the DRAM bandwidth (W once, x, y),
    and within 90% of that floor. (1x4096x11008 is the kernel benchmark's row: 97.9%, 27 s to simulate.)"""
    x = np.zeros((m, k), np.float16)
    w = np.zeros((n, k), np.float16)
    with use_executor("mtia"), use_config("mtia-2i"):
        _, (run,) = gemv(x, w, numerics=False)
        cfg = get_config()
    floor_s = (w.nbytes + x.nbytes + m * n * 2) / (cfg.dram.bandwidth_gbps * 1e9)
    assert floor_s <= run.seconds <= floor_s / 0.90, f"{floor_s / run.seconds:.1%} of the DRAM floor"
