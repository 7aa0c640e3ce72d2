"""The report's hints: each drawn from the run's own figures, given only when it applies and the run is short
of its roofline, each naming what to try."""
import numpy as np

import compiler as triton
import compiler.language as tl
from simulator.config import load_config, use_config
from simulator.hints import hints

CFG = load_config("mtia-2i")
QUIET = dict(fraction=0.5, programs=1024, transfers=0, dma_bytes=0.0, dma_util=0.0, dram_use={}, dpe_useful=0.0,
             dpe_issued=0.0)


def test_each_rule_fires_on_its_figure_and_only_then():
    assert hints(CFG, **QUIET) == []
    small = hints(CFG, **{**QUIET, "transfers": 1000, "dma_bytes": 256e3, "dma_util": 0.8})
    assert len(small) == 1 and small[0].startswith("DMA transfers average 256 B") and "larger blocks" in small[0]
    assert hints(CFG, **{**QUIET, "transfers": 1000, "dma_bytes": 64e6, "dma_util": 0.8}) == []    # 64 KiB each
    rows = hints(CFG, **{**QUIET, "dram_use": {"activate": 0.12}})
    assert len(rows) == 1 and "opening rows takes 12% of channel time" in rows[0]
    few = hints(CFG, **{**QUIET, "programs": 16})
    assert len(few) == 1 and "16 program(s) for 64 PEs: 48 PEs never work" in few[0]
    busy = {"bound": "dram", "dram_use": {"data": 0.8}}
    assert hints(CFG, **{**QUIET, **busy, "programs": 16}) == []              # 16 x 86.4 GB/s draw 205 GB/s
    assert len(hints(CFG, **{**QUIET, **busy, "programs": 2})) == 1            # 2 ports do not
    assert len(hints(CFG, **{**QUIET, **busy, "programs": 16, "bound": "dpe"})) == 1
    assert len(hints(CFG, **{**QUIET, **busy, "programs": 16, "dram_use": {"data": 0.2}})) == 1   # latency-bound
    pad = hints(CFG, **{**QUIET, "dpe_useful": 1e6, "dpe_issued": 4e6})
    assert len(pad) == 1 and "75% padding" in pad[0]
    assert hints(CFG, **{**QUIET, "fraction": 0.95, "programs": 16}) == []      # near its roofline: no advice


@triton.jit
def _scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)


def _run(n, block):
    x = np.arange(n, dtype=np.float32)
    out = np.full_like(x, np.nan)
    with use_config("mtia-small"):
        run = _scale[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)
    np.testing.assert_array_equal(out, 2 * x)
    return run.report


def test_a_tiny_block_run_is_told_to_move_more_per_transfer():
    tiny = _run(1 << 14, 32)                     # 128-byte transfers
    assert tiny.transfers == 2 * (1 << 14) // 32            # a load and a store per program
    assert any(h.startswith("DMA transfers average 128 B") for h in tiny.hints), tiny.hints
    assert "  hints       DMA transfers average 128 B" in str(tiny)
    one = _run(1024, 1024)                       # one program on a 4-PE config
    assert any("1 program(s) for 4 PEs" in h for h in one.hints), one.hints
    assert not any(h.startswith("DMA transfers") for h in one.hints)


@triton.jit
def _row_sums(x_ptr, out_ptr, n_rows, N: tl.constexpr):
    cols = tl.arange(0, N)
    for r in range(tl.program_id(0), n_rows, tl.num_programs(0)):
        tl.store(out_ptr + r, tl.sum(tl.load(x_ptr + r * N + cols), axis=0))


def test_num_stages_on_a_kernel_without_a_loop_is_named():
    x = np.arange(4096, dtype=np.float32)
    out = np.empty_like(x)
    with use_config("mtia-small"):
        flat = _scale[(4,)](x, out, x.size, BLOCK=1024, num_stages=4).report
        looped = _row_sums[(4,)](x, out, 32, N=128, num_stages=4).report
    np.testing.assert_allclose(out[:32], x.reshape(32, 128).sum(axis=1), rtol=1e-6)
    assert any(h.startswith("num_stages=4 changed nothing: _scale has no loop") for h in flat.hints), flat.hints
    assert not any(h.startswith("num_stages") for h in looped.hints), looped.hints
