"""The block sizes Inductor's mm/bmm templates are tried with on MTIA.

Inductor's CPU list is cut for Triton-CPU's compile times (no tile above 2^13 elements); a PE's DPE
wants tiles of 64 and more on each side and its local store holds 128x128 f32 tiles double
buffered. These are the candidates the autotuner simulates (timing only), clipped to the problem so
that a small matmul is not tried with blocks larger than itself.
"""
from __future__ import annotations

# (BLOCK_M, BLOCK_N, BLOCK_K): the DPE's 32-wide MAC tiles and up to what the local store holds
CANDIDATES = [(128, 128, 64), (64, 128, 64), (128, 64, 64), (64, 64, 64), (32, 32, 32)]
# A skinny mm (a decode step's Linear over a few tokens, M <= SKINNY_M) streams its weights: its time is
# W's bytes at the DRAM bandwidth if W is read in long runs. W.T's tiles run along K (nn.Linear's
# layout), so BLOCK_K sets the run: 64 (128 B) opens a DRAM row per run (a quarter of the channel
# time in activates, 68% of the floor at 16x4096x4096); 256-512 read 0.5-1 KB per row. BLOCK_N <= 64
# keeps 64 programs for N = 4096, one per PE.
SKINNY_M = 16
SKINNY_CANDIDATES = [(16, 64, 512), (16, 32, 512), (16, 64, 256), (16, 64, 64)]
MIN_BLOCK = 16            # the smallest dot tile the DPE takes
GROUP_M = 8               # Inductor's grouped ordering of program ids (kept)
NUM_STAGES, NUM_WARPS = 3, 4   # GPU knobs the template records; our compiler does not use them


def _clip(block: int, size) -> int:
    from torch._inductor.virtualized import V
    size = max(V.graph.sizevars.optimization_hint(size, fallback=block), 1)   # symbolic sizes: their hint
    return max(MIN_BLOCK, min(block, 1 << (size - 1).bit_length()))


def preprocess_mm_configs(self, m, n, k, configs, *args, **kwargs):
    """Replaces CPUConfigHeuristic.preprocess_mm_configs: our candidates (the skinny ones for M <= SKINNY_M),
    clipped to (m, n, k)."""
    from torch._inductor.virtualized import V
    skinny = V.graph.sizevars.optimization_hint(m, fallback=SKINNY_M + 1) <= SKINNY_M
    seen = set()
    for bm, bn, bk in SKINNY_CANDIDATES if skinny else CANDIDATES:
        key = (_clip(bm, m), _clip(bn, n), _clip(bk, k))
        if key in seen:
            continue
        seen.add(key)
        yield self.triton_config(NUM_STAGES, NUM_WARPS, BLOCK_M=key[0], BLOCK_N=key[1], BLOCK_K=key[2],
                                 GROUP_M=GROUP_M, hint_override=None)
