"""The decode GEMV (compiler/kernels/gemv.py): right numbers at small shapes, and at Llama-2-7B's
decode shapes on MTIA 2i within 90% of the DRAM floor (issue #34's target; ISCA'25 reports > 95% of
the DRAM bandwidth for weight-bound GEMMs), on MTIA 300 within 85% of its floor plus the launch."""
import numpy as np
import pytest

import compiler.runtime.mtia_executor  # noqa: F401  (registers the executor)
from compiler.kernels.gemv import footprint, gemv, make_inputs, pick_blocks, reference
from compiler.runtime import use_executor
from simulator import get_config, load_config, use_config


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


def test_blocks_stream_long_rows_with_enough_bytes_per_pe():
    """The rule's choice at Llama-2-7B's decode shapes (q/k/v/o, gate/up, down): 1 KB runs of W; on
    MTIA 300 programs of 64 rows (128-192 KB in flight per PE against 6.1 TB/s x ~150 ns = 0.9 MB
    over 72 PEs), where costing every wave as 72 PEs took 4 rows (K = 4096) or 4 x 256 tiles (down)."""
    i2, m300 = load_config("mtia-2i"), load_config("mtia-300")
    assert pick_blocks(1, 4096, 4096, i2) == {"BLOCK_N": 32, "BLOCK_K": 512}
    assert pick_blocks(1, 11008, 4096, i2) == {"BLOCK_N": 64, "BLOCK_K": 512}     # 172 programs
    assert pick_blocks(1, 4096, 11008, i2) == {"BLOCK_N": 32, "BLOCK_K": 512}     # 21.5 chunks of K
    assert pick_blocks(1, 4096, 4096, m300) == {"BLOCK_N": 64, "BLOCK_K": 512}    # 64 programs: 64 PEs draw 6.1 TB/s
    assert pick_blocks(1, 11008, 4096, m300) == {"BLOCK_N": 64, "BLOCK_K": 512}   # 172: a last wave of 28 PEs
    assert pick_blocks(1, 4096, 11008, m300) == {"BLOCK_N": 64, "BLOCK_K": 512}
    assert pick_blocks(1, 96, 64, load_config("mtia-small")) == {"BLOCK_N": 32, "BLOCK_K": 64}


@pytest.mark.parametrize("config, bn, bk", [("mtia-300", 64, 512), ("mtia-2i", 64, 512), ("mtia-v1", 16, 512),
                                            ("mtia-300", 4, 256)])
def test_footprint_bounds_what_the_backend_allocates(config, bn, bk):
    """The rule's local-store estimate covers the compiled kernel's buffers at their smallest depths (one
    slot each, two of W: a second W tile streams in while the SE works on the first; the largest tile
    each config's rule allows); the backend deepens them where room is left, and W gets its two slots."""
    x, w = make_inputs((1, 4 * bk, 4 * bn), np.random.default_rng(0))
    cfg = load_config(config)
    with use_executor("mtia"), use_config(cfg):
        _, (run,) = gemv(x, w, numerics=False, BLOCK_N=bn, BLOCK_K=bk)
        buffers = [dict(f.split("=") for f in line.split()[3:]) for line in run.asm["mtia-asm"].splitlines()
                   if line.startswith(".cb ")]           # .cb 3 w base=137216 slot=65536 slots=2
    w_tile = next(b for b in buffers if int(b["slot"]) == bn * bk * 2)
    smallest = sum(int(b["slot"]) for b in buffers) + int(w_tile["slot"])
    assert smallest <= footprint(bn, bk) <= cfg.ls_bytes, (smallest, footprint(bn, bk))
    assert int(w_tile["slots"]) >= 2, w_tile


@pytest.mark.slow
@pytest.mark.parametrize("m, k, n", [(1, 4096, 4096), (1, 11008, 4096)], ids=["1x4096x4096", "1x11008x4096"])
def test_decode_gemv_at_the_dram_floor(m, k, n):
    """Timing-only at the real shape: no faster than its bytes at the DRAM bandwidth (W once, x, y),
    and within 90% of that floor. (1x4096x11008 is the kernel benchmark's row: 97.7%, 10 s to simulate.)"""
    x = np.zeros((m, k), np.float16)
    w = np.zeros((n, k), np.float16)
    with use_executor("mtia"), use_config("mtia-2i"):
        _, (run,) = gemv(x, w, numerics=False)
        cfg = get_config()
    floor_s = (w.nbytes + x.nbytes + m * n * 2) / (cfg.dram.bandwidth_gbps * 1e9)
    assert floor_s <= run.seconds <= floor_s / 0.90, f"{floor_s / run.seconds:.1%} of the DRAM floor"


@pytest.mark.slow
@pytest.mark.parametrize("m, k, n", [(1, 4096, 4096), (1, 11008, 4096), (1, 4096, 11008)],
                         ids=["1x4096x4096", "1x11008x4096", "1x4096x11008"])
def test_decode_gemv_near_the_hbm_floor_on_mtia_300(m, k, n):
    """Timing-only on MTIA 300: no faster than its bytes at 6.1 TB/s after the launch's 800 ns, and within
    85% of that floor (88.6-89.2% measured; the rule that costed every wave as 72 PEs gave 57%, 38% for
    down_proj). What is left is the last tile's SE work, reduce and store, DRAM round trips per wave
    of programs and refresh: costs that are 2% of a 2i GEMV's 164-440 us and 11% of these 6-15 us."""
    x = np.zeros((m, k), np.float16)
    w = np.zeros((n, k), np.float16)
    with use_executor("mtia"), use_config("mtia-300"):
        _, (run,) = gemv(x, w, numerics=False)
        cfg = get_config()
    floor_s = (w.nbytes + x.nbytes + m * n * 2) / (cfg.dram.bandwidth_gbps * 1e9) + cfg.launch.overhead_ns * 1e-9
    assert floor_s <= run.seconds <= floor_s / 0.85, f"{floor_s / run.seconds:.1%} of the DRAM floor plus the launch"
