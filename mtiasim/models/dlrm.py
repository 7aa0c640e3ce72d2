"""MLPerf's DLRM-v2 (DLRM with a DCNv2 interaction, on Criteo 1TB with multi-hot features) at production size,
built on the meta device and estimated on the simulator:

    python -m mtiasim.models.dlrm                         # uniform and Zipf indices, carried LLC: the table
    python -m mtiasim.models.dlrm --distribution zipf:1.05 --memory-state isolated

The shapes are MLPerf Training's reference (mlcommons/training, recommendation_v2/torchrec_dlrm: its README's
`--num_embeddings_per_feature`, `--multi_hot_sizes`, `--embedding_dim 128`, `--dense_arch_layer_sizes
512,256,128`, `--over_arch_layer_sizes 1024,1024,512,256,1`, `--interaction_type dcn --dcn_num_layers 3
--dcn_low_rank_dim 512`): 26 embedding tables with rows capped at 40M (the cap the benchmark puts on
Criteo's 1TB vocabularies), a multi-hot bag per table per sample (sum pooling), 13 dense features.
Precision: FP16, as MLPerf Inference submissions run DLRM-v2 (its reference trains and evaluates in FP32,
whose 204M rows x 128 x 4 B = 104.5 GB of tables do not fit the 96 GB the runtime gives device arrays in
MTIA 2i's 128 GB of simulated DRAM; in FP16 they are 52.3 GB). Batch 2048 is one inference batch (MLPerf's
training batch is 65536 over 8 devices).

`rows_cap` and `batch` shrink it for tests; the structure stays.
"""
from __future__ import annotations

import torch
import torch.nn as nn

# MLPerf DLRM-v2 (mlcommons/training recommendation_v2/torchrec_dlrm README, the multi-hot dataset's flags)
TABLE_ROWS = (40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956, 405282, 10, 2209,
              11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152, 12973, 108, 36)
MULTI_HOT = (3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1)
DIM = 128
DENSE = 13
BOTTOM = (512, 256, 128)
TOP = (1024, 1024, 512, 256, 1)
CROSS_LAYERS, LOW_RANK = 3, 512
BATCH = 2048


def _mlp(sizes, d_in: int, last_relu: bool) -> nn.Sequential:
    layers: list = []
    for i, d in enumerate(sizes):
        layers.append(nn.Linear(d_in, d))
        if last_relu or i < len(sizes) - 1:
            layers.append(nn.ReLU())
        d_in = d
    return nn.Sequential(*layers)


class LowRankCross(nn.Module):
    """DCNv2's cross network with low-rank weights: x_{l+1} = x0 * (W_l (V_l x_l) + b_l) + x_l."""

    def __init__(self, d: int, layers: int, rank: int):
        super().__init__()
        self.v = nn.ModuleList(nn.Linear(d, rank, bias=False) for _ in range(layers))
        self.w = nn.ModuleList(nn.Linear(rank, d) for _ in range(layers))

    def forward(self, x0):
        x = x0
        for v, w in zip(self.v, self.w):
            x = x0 * w(v(x)) + x
        return x


class DLRMv2(nn.Module):
    def __init__(self, rows=TABLE_ROWS, dim: int = DIM):
        super().__init__()
        self.emb = nn.ModuleList(nn.EmbeddingBag(n, dim, mode="sum") for n in rows)
        self.bottom = _mlp(BOTTOM[:-1] + (dim,), DENSE, last_relu=True)
        d = dim * (len(rows) + 1)
        self.cross = LowRankCross(d, CROSS_LAYERS, LOW_RANK)
        self.top = _mlp(TOP, d, last_relu=False)

    def forward(self, dense, indices):
        """dense: [batch, 13]; indices: one [batch, multi-hot size] tensor per table (a bag per sample)."""
        x = torch.cat([self.bottom(dense)] + [e(i) for e, i in zip(self.emb, indices)], 1)
        return torch.sigmoid(self.top(self.cross(x)))


def make_dlrm_v2(batch: int = BATCH, rows_cap: int | None = None, device="meta", dtype=torch.float16):
    """(model, (dense, indices)) on `device` (meta: nothing allocated) in `dtype`; `rows_cap` caps every
    table's rows (a small model for tests)."""
    rows = tuple(min(n, rows_cap) if rows_cap else n for n in TABLE_ROWS)
    with torch.device(device):
        model = DLRMv2(rows).to(dtype).eval()
        dense = torch.randn(batch, DENSE, dtype=dtype)
        indices = [torch.zeros(batch, k, dtype=torch.int64) for k in MULTI_HOT]
    return model, (dense, indices)


def _distribution(text: str):
    if text == "uniform":
        return "uniform"
    name, _, s = text.partition(":")
    if name != "zipf":
        raise SystemExit(f"--distribution: 'uniform' or 'zipf:S' (S the exponent), got {text!r}")
    return ("zipf", float(s or 1.05))


def main(argv=None) -> int:
    import argparse
    import os
    import time

    # block-size trials in this process: a forked worker would copy the mappings of 2 x 104 GB of untouched
    # stand-in pages (the tables on the host and in simulated DRAM), which the kernel's overcommit check refuses
    os.environ.setdefault("MTIASIM_AUTOTUNE_WORKERS", "1")
    from compiler.inductor import estimate

    from ..model_runs import quiet_inductor
    p = argparse.ArgumentParser(prog="python -m mtiasim.models.dlrm", description=__doc__.split("\n\n")[0])
    p.add_argument("--distribution", action="append", help="uniform or zipf:S (repeatable; default: both)")
    p.add_argument("--memory-state", default="carried", choices=("carried", "isolated"))
    p.add_argument("--batch", type=int, default=BATCH)
    p.add_argument("--rows-cap", type=int, default=None, help="cap every table's rows (default: the real sizes)")
    p.add_argument("--kernels", action="store_true", help="print the per-kernel table too")
    a = p.parse_args(argv)
    model, inputs = make_dlrm_v2(a.batch, a.rows_cap)
    for text in a.distribution or ["uniform", "zipf:1.05"]:
        start = time.perf_counter()
        with quiet_inductor():
            report = estimate(model, *inputs, index_distribution=_distribution(text), memory_state=a.memory_state)
        wall = time.perf_counter() - start
        if a.kernels:
            print(report.table())
        llc = report.llc_by_op_class()
        print(f"DLRM-v2 batch {a.batch}, indices {report.index_distribution}, memory {a.memory_state}: "
              f"{report.seconds * 1e6:,.1f} us ({report.cycles:,} cycles) on {report.config}, "
              f"{len(report.kernels)} kernels, estimated in {wall:.0f} s of host time")
        for cls, v in report.by_op_class().items():
            h = llc.get(cls, {})
            rate = f"{h['hit_rate']:.1%}" if h.get("hits", 0) + h.get("misses", 0) else "-"
            print(f"  {cls:<14} {v['seconds'] * 1e6:>10,.1f} us  {v['kernels']:>3} kernels  LLC hit rate {rate}")
        m = report.memory_moves()
        print(f"  memory: {m['warm_read_bytes'] / 1e6:,.1f} MB of reads found warm, "
              f"{m['dirty_writeback_bytes'] / 1e6:,.1f} MB of earlier kernels' dirty lines written back, "
              f"{m['drained_bytes'] / 1e6:,.1f} MB drained at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
