"""A model estimated twice, its kernels sharing one LLC (carried memory state) and each on a cold chip
(isolated), and what moved between the two: the reads found warm, the earlier kernels' dirty lines written
back, the dirty lines drained at the end, and the cycles by op class.

    python -m mtiasim.memory_compare decoder --layers 4          # a small decoder stack
    python -m mtiasim.memory_compare dlrm --rows-cap 100000      # DLRM-v2 (mtiasim/models/dlrm.py)

`compare(model, *inputs)` returns the two reports and the moves; `format_comparison` prints them.
"""
from __future__ import annotations

import torch.nn as nn


class DecoderStack(nn.Module):
    """`layers` transformer decoder blocks (compiler.inductor.examples.DecoderBlock) one after another."""

    def __init__(self, layers: int = 4, d: int = 64, heads: int = 4, ff: int = 128):
        super().__init__()
        from compiler.inductor.examples import DecoderBlock
        self.layers = nn.ModuleList(DecoderBlock(d, heads, ff) for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def compare(model, *inputs, **estimate_kwargs) -> dict:
    """{"carried": report, "isolated": report, "moves": ...}: `estimate` under both memory states."""
    from compiler.inductor import estimate
    reports = {m: estimate(model, *inputs, memory_state=m, **estimate_kwargs) for m in ("carried", "isolated")}
    c, i = reports["carried"], reports["isolated"]
    kernels = sum(k.cycles for k in c.kernels)
    moves = {**c.memory_moves(), "carried_cycles": c.cycles, "isolated_cycles": i.cycles,
             "kernel_cycles_saved": i.cycles - kernels,
             "by_op_class": {cls: {"carried": c.by_op_class().get(cls, {}).get("cycles", 0),
                                   "isolated": i.by_op_class().get(cls, {}).get("cycles", 0),
                                   "hit_rate_carried": c.llc_by_op_class().get(cls, {}).get("hit_rate"),
                                   "hit_rate_isolated": i.llc_by_op_class().get(cls, {}).get("hit_rate")}
                             for cls in dict.fromkeys([*i.by_op_class(), *c.by_op_class()])}}
    return {**reports, "moves": moves}


def format_comparison(result: dict, name: str = "model") -> str:
    m = result["moves"]
    c, i = m["carried_cycles"], m["isolated_cycles"]
    lines = [f"{name}: carried {c:,} cycles vs isolated {i:,} ({(c - i) / i:+.1%})",
             f"  kernels {m['kernel_cycles_saved']:,} cycles faster with the LLC carried: "
             f"{m['warm_read_bytes'] / 1e6:,.2f} MB of reads found warm, "
             f"{m['dirty_writeback_bytes'] / 1e6:,.2f} MB of earlier kernels' dirty lines written back",
             f"  end of run: {m['drained_bytes'] / 1e6:,.2f} MB left dirty, drained in {m['drain_cycles']:,} cycles "
             f"(in the carried total)",
             f"  {'op class':<14} {'carried':>12} {'isolated':>12} {'LLC hits carried':>17} {'isolated':>9}"]
    for cls, v in m["by_op_class"].items():
        hc, hi = v["hit_rate_carried"], v["hit_rate_isolated"]
        lines.append(f"  {cls:<14} {v['carried']:>12,} {v['isolated']:>12,} "
                     f"{'-' if hc is None else f'{hc:.1%}':>17} {'-' if hi is None else f'{hi:.1%}':>9}")
    return "\n".join(lines)


def main(argv=None) -> int:
    import argparse

    import torch
    p = argparse.ArgumentParser(prog="python -m mtiasim.memory_compare", description=__doc__.split("\n\n")[0])
    p.add_argument("model", choices=("decoder", "dlrm"))
    p.add_argument("--layers", type=int, default=4, help="decoder: blocks")
    p.add_argument("--d", type=int, default=256, help="decoder: model width")
    p.add_argument("--seq", type=int, default=128, help="decoder: tokens")
    p.add_argument("--batch", type=int, default=None, help="decoder: sequences (1); dlrm: samples (2048)")
    p.add_argument("--rows-cap", type=int, default=None, help="dlrm: cap every table's rows")
    a = p.parse_args(argv)
    if a.model == "decoder":
        with torch.device("meta"):
            model = DecoderStack(a.layers, a.d, max(1, a.d // 64), 4 * a.d).eval()
            inputs = (torch.randn(a.batch or 1, a.seq, a.d),)
        name = f"decoder {a.layers} x d={a.d}, {a.seq} tokens"
        kwargs = {}
    else:
        import os
        os.environ.setdefault("MTIASIM_AUTOTUNE_WORKERS", "1")     # (as mtiasim.models.dlrm: no fork of 200 GB)
        from .models.dlrm import BATCH, make_dlrm_v2
        model, inputs = make_dlrm_v2(a.batch or BATCH, a.rows_cap)
        name = f"DLRM-v2 batch {a.batch or BATCH}" + (f", rows capped at {a.rows_cap:,}" if a.rows_cap else "")
        kwargs = {"index_distribution": "uniform"}
    from .model_runs import quiet_inductor
    with quiet_inductor():          # Inductor's autotuning printout: not this command's output
        result = compare(model, *inputs, **kwargs)
    print(format_comparison(result, name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
