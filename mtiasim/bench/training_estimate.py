"""One training step of a Llama-3-8B-shaped layer stack, timing only (issue 35, "must show" 3).

    python -m mtiasim.bench.training_estimate [--layers 2] [--seq 2048] [--config configs/mtia-300.yaml]

The layers are Llama 3 8B's (hidden 4096, 32 query heads and 8 KV heads of 128, SwiGLU FFN of 14336,
RMSNorm, rotary embeddings; bf16 weights on the meta device, so nothing is allocated for them); the
step is `compiler.inductor.estimate_step`: the forward, an MSE loss against a target of the stack's
output shape (the language-model head and its loss are left out), `loss.backward()` and AdamW.
It prints the step's forward / backward / optimizer split, each phase with its simulated time and
the floors beside it, from the shapes alone (not from the simulator):

- compute: the phase's matmul FLOPs at the DPE's bf16 peak. Forward: 2 x tokens x the weights of
  every Linear, and attention's q k^T and p v (half of the scores under the causal mask). Backward:
  twice the forward's (each matmul's two operand gradients), plus attention's score recompute.
- DRAM: bytes that must move at the DRAM bandwidth. Forward and backward: the weights once (read),
  the backward the weights' gradients once (written); AdamW: each parameter, its gradient and both
  moments read and the parameter and moments written (7 accesses of a bf16 element).
Activations are left out of the DRAM floor (what stays in SRAM between kernels depends on fusion).
"""
from __future__ import annotations

import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import compiler.inductor as ci
from compiler.inductor import gemm_configs
from compiler.runtime import sampled_launches
from simulator import set_config

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, FFN = 4096, 32, 8, 128, 14336        # Llama 3 8B (its config.json)


class RMSNorm(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5).to(x.dtype) * self.weight


def _rotate(x, cos, sin):
    half = x.shape[-1] // 2
    return x * cos + torch.cat((-x[..., half:], x[..., :half]), -1) * sin


class LlamaLayer(nn.Module):
    def __init__(self, seq: int, hidden=HIDDEN, heads=HEADS, kv_heads=KV_HEADS, ffn=FFN):
        super().__init__()
        self.heads, self.kv_heads, self.dim = heads, kv_heads, hidden // heads
        self.attn_norm, self.ffn_norm = RMSNorm(hidden), RMSNorm(hidden)
        self.q = nn.Linear(hidden, heads * self.dim, bias=False)
        self.k = nn.Linear(hidden, kv_heads * self.dim, bias=False)
        self.v = nn.Linear(hidden, kv_heads * self.dim, bias=False)
        self.o = nn.Linear(heads * self.dim, hidden, bias=False)
        self.gate, self.up = nn.Linear(hidden, ffn, bias=False), nn.Linear(hidden, ffn, bias=False)
        self.down = nn.Linear(ffn, hidden, bias=False)
        angles = torch.outer(torch.arange(seq, dtype=torch.float32),
                             500000.0 ** (-torch.arange(0, self.dim, 2, dtype=torch.float32) / self.dim))
        self.register_buffer("cos", torch.cat((angles, angles), -1).cos(), persistent=False)
        self.register_buffer("sin", torch.cat((angles, angles), -1).sin(), persistent=False)

    def forward(self, x):
        b, s, _ = x.shape
        h = self.attn_norm(x)
        q = self.q(h).view(b, s, self.heads, self.dim).transpose(1, 2)
        k = self.k(h).view(b, s, self.kv_heads, self.dim).transpose(1, 2)
        v = self.v(h).view(b, s, self.kv_heads, self.dim).transpose(1, 2)
        cos, sin = self.cos.to(x.dtype), self.sin.to(x.dtype)
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        x = x + self.o(attn.transpose(1, 2).reshape(b, s, -1))
        h = self.ffn_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def floors(layers: int, batch: int, seq: int, cfg, hidden=HIDDEN, heads=HEADS, kv_heads=KV_HEADS, ffn=FFN) -> dict:
    """{phase: (compute seconds, DRAM seconds)}: the module docstring's floors for bf16."""
    dim = hidden // heads
    weights = layers * (2 * hidden * heads * dim + 2 * hidden * kv_heads * dim + 3 * hidden * ffn)
    params = weights + layers * 2 * hidden
    tokens = batch * seq
    attention = layers * batch * heads * 2 * (2 * seq * seq * dim) / 2          # q k^T and p v, causal half
    forward = 2 * tokens * weights + attention
    backward = 2 * forward + attention / 2                                      # + the scores recomputed
    peak, bw = cfg.dpe_peak_flops("bf16"), cfg.dram.bandwidth_gbps * 1e9
    return {"forward": (forward / peak, 2 * params / bw), "backward": (backward / peak, 2 * 2 * params / bw),
            "optimizer": (0.0, 7 * 2 * params / bw)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--seq", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--config", default="configs/mtia-300.yaml")
    parser.add_argument("--hidden", type=int, default=HIDDEN, help="smaller for a quick check of the script")
    parser.add_argument("--ffn", type=int, default=FFN)
    parser.add_argument("--autotune", action="store_true",
                        help="time every MTIA tile of each matmul template (default: 128x128x64 only; each "
                             "candidate of a 2048x4096x14336 matmul is minutes of host time)")
    parser.add_argument("--whole", action="store_true",
                        help="simulate every launch whole (default: launches of 8 waves or more are sampled, "
                             "simulator/sampling.py)")
    args = parser.parse_args(argv)
    if not args.autotune:
        gemm_configs.CANDIDATES[:] = [(128, 128, 64)]
    cfg = set_config(args.config)
    torch._dynamo.reset()
    with torch.device("meta"):
        model = nn.Sequential(*(LlamaLayer(args.seq, args.hidden, ffn=args.ffn) for _ in range(args.layers)))
        model = model.to(torch.bfloat16).train()
        x = torch.empty(args.batch, args.seq, args.hidden, dtype=torch.bfloat16)
        target = torch.empty(args.batch, args.seq, args.hidden, dtype=torch.bfloat16)
    start = time.perf_counter()
    with sampled_launches.sampled(not args.whole):
        report = ci.estimate_step(model, F.mse_loss, torch.optim.AdamW, x, target)
    wall = time.perf_counter() - start
    print(f"{args.layers} Llama-3-8B-shaped layers (hidden {args.hidden}, {HEADS} heads / {KV_HEADS} KV heads, "
          f"FFN {args.ffn}), batch {args.batch} x seq {args.seq}, bf16, AdamW, on {cfg.name}: one training step")
    print(f"{'phase':<10} {'kernels':>7} {'simulated ms':>13} {'compute floor':>14} {'DRAM floor':>11} "
          f"{'of floor':>8}  bound (share of cycles)")
    bounds = floors(args.layers, args.batch, args.seq, cfg, args.hidden, ffn=args.ffn)
    for phase, row in report.by_phase().items():
        compute, dram = bounds[phase]
        floor = max(compute, dram)
        shares = ", ".join(f"{b} {c / row['cycles']:.0%}" for b, c in row["bound"].items())
        print(f"{phase:<10} {row['kernels']:>7} {row['seconds'] * 1e3:>13.3f} {compute * 1e3:>11.3f} ms "
              f"{dram * 1e3:>8.3f} ms {floor / row['seconds']:>8.0%}  {shares}")
    total_floor = sum(max(c, d) for c, d in bounds.values())
    print(f"{'step':<10} {len(report.kernels):>7} {report.seconds * 1e3:>13.3f} {'':>14} {'':>11} "
          f"{total_floor / report.seconds:>8.0%}")
    print(f"coverage {report.coverage:.1%} of {report.simulated_ops + report.host_ops} ATen compute ops; on the host: "
          f"{', '.join(f'{op} x{n}' for op, n in sorted(report.not_simulated.items())) or 'none'}")
    sampled = sum(1 for k in report.kernels if getattr(k.report, "sampled", None))
    print(f"estimated in {wall:.0f} s of host time ({report.compiles} kernels compiled; {sampled} of "
          f"{len(report.kernels)} launches sampled, simulator/sampling.py)")


if __name__ == "__main__":
    main()
