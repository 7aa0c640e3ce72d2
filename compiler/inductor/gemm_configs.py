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
# A GEMM of at least this many multiply-adds takes the first candidate without trials: each trial of it
# simulates a launch of tens of thousands of commands (2048x4096x4096 in 128x128x64 tiles: 52K commands,
# a minute of host time; 64x64 tiles 4x the commands, 32x32 64x), and at that size the largest tile is
# the one that wins: it keeps every PE busy for several waves with the fewest bytes per FLOP moved (A and
# B tiles are re-read once per 128 columns or rows instead of per 64 or 32).
NO_TRIALS_MACS = 1 << 33
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
    hint = V.graph.sizevars.optimization_hint
    skinny = hint(m, fallback=SKINNY_M + 1) <= SKINNY_M
    big = hint(m, fallback=1) * hint(n, fallback=1) * hint(k, fallback=1) >= NO_TRIALS_MACS
    seen = set()
    for bm, bn, bk in (SKINNY_CANDIDATES if skinny else CANDIDATES)[:1 if big else None]:
        key = (_clip(bm, m), _clip(bn, n), _clip(bk, k))
        if key in seen:
            continue
        seen.add(key)
        yield self.triton_config(NUM_STAGES, NUM_WARPS, BLOCK_M=key[0], BLOCK_N=key[1], BLOCK_K=key[2],
                                 GROUP_M=GROUP_M, hint_override=None)
