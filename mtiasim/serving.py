"""LLM serving estimates: time to first token (prefill) and time per output token (decode), each beside
its physical floors.

    rows = serve("llama-2-7b", "mtia-2i", batch=1, prompt=2048, context=2048)   # [prefill, decode]
    print(table(rows))

A step's figure is `compiler.inductor.estimate` of the Llama model built for that step on the meta device
(`mtiasim.models.llama`): every kernel simulated timing-only, the model of 2 and of 4 layers, and every
figure extended along their difference to the model's layers (`estimate_step`). Its floors come from the
model's shape alone, by formula, never from the simulation:

- compute floor = the step's useful FLOPs / the config's FP16 DPE peak. FLOPs: 2 per multiply-add of
  every projection (q, k, v, o, gate, up, down) for each new token, of the lm_head for the last token of
  each sequence, and of attention's two products over the keys each query sees (a causal prefill's
  query i sees i + 1 keys: the triangle, not the square). Norms, RoPE and softmax are left out, so the
  floor stays a lower bound;
- memory floor = the bytes the step must move / the DRAM's data bandwidth (inline ECC's check bytes
  take their share of the bus): every weight once (the embedding table only for the rows looked up)
  plus the KV cache: decode reads the C cached positions, prefill writes its P;
- floor = the larger of the two (a step cannot beat either).
"""
from __future__ import annotations

import contextlib
import hashlib
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from .models.shapes import LlamaShape, shape_named

PHASES = ("prefill", "decode")
KIND = "serving"         # the disk cache's folder for whole steps
DTYPE_BYTES = 2          # the models are fp16
RECOMPILE_LIMIT = 256    # step shapes one process may compile (Dynamo's default, 8, is one short sweep)


@dataclass(frozen=True)
class StepWork:
    """What one serving step must do, by formula: FLOPs and the bytes it must move to or from DRAM."""
    flops: float
    weight_bytes: float
    kv_bytes: float

    @property
    def bytes(self) -> float:
        return self.weight_bytes + self.kv_bytes


def step_work(s: LlamaShape, phase: str, batch: int, tokens: int) -> StepWork:
    """The work of a prefill of `tokens` prompt tokens, or of a decode step at a context of `tokens`
    positions (the new one included), for `batch` sequences (module docstring)."""
    if phase not in PHASES:
        raise ValueError(f"phase must be one of {', '.join(PHASES)}, not {phase!r}")
    hd, kv = s.head_dim, s.kv_heads * s.head_dim
    new = tokens if phase == "prefill" else 1                      # tokens each sequence runs
    per_layer_weights = 2 * s.hidden * s.hidden + 2 * s.hidden * kv + 3 * s.hidden * s.ffn
    keys_seen = new * (new + 1) // 2 if phase == "prefill" else tokens   # summed over the new queries
    attention = 2 * 2 * s.heads * hd * keys_seen                   # q k^T and p v, per sequence and layer
    flops = batch * (s.layers * (2 * new * per_layer_weights + attention) + 2 * s.hidden * s.vocab)
    params = s.parameters() - s.vocab * s.hidden                   # all but the embedding table ...
    weight_bytes = (params + batch * new * s.hidden) * DTYPE_BYTES  # ... of which only the looked-up rows
    kv_bytes = 2 * s.layers * batch * tokens * kv * DTYPE_BYTES    # k and v of every position, every layer
    return StepWork(float(flops), float(weight_bytes), float(kv_bytes))


@dataclass
class ServingEstimate:
    """One step of one model on one config: the simulated time beside its floors."""
    model: str
    config: str
    phase: str
    batch: int
    tokens: int                     # prefill: prompt tokens; decode: context (positions attended)
    seconds: float                  # simulated time of the step
    cycles: int
    flops: float
    bytes: float
    compute_floor_s: float
    memory_floor_s: float
    wall_seconds: float = 0.0       # host time of the estimate
    by_op_class: dict = field(default_factory=dict)
    kernels: int = 0
    simulated_launches: int = 0     # launches simulated in this estimate (the rest reused an earlier record)
    reused_layers: int = 0          # launches that took an identical launch's record from another layer
    sampled_launches: int = 0       # launches simulated for their first waves, the rest extended (simulator/sampling.py)
    joules: float = 0.0             # the step's energy (simulator/energy.py)
    from_cache: bool = False        # read from the disk cache: this step was estimated by the same code before
    layers_simulated: list = field(default_factory=list)   # the layer counts simulated: [L], or SAMPLE_LAYERS

    @property
    def floor_s(self) -> float:
        return max(self.compute_floor_s, self.memory_floor_s)

    @property
    def over_floor(self) -> float:
        """Simulated time / floor (1.0 would be perfect)."""
        return self.seconds / self.floor_s

    @property
    def bound(self) -> str:
        return "compute" if self.compute_floor_s >= self.memory_floor_s else "memory"

    @property
    def tokens_per_second(self) -> float:
        """Decode: tokens the batch produces per second; prefill: prompt tokens processed per second."""
        new = self.tokens if self.phase == "prefill" else 1
        return self.batch * new / self.seconds

    @property
    def joules_per_token(self) -> float:
        """Energy per token the step produces (decode) or takes in (prefill)."""
        new = self.tokens if self.phase == "prefill" else 1
        return self.joules / (self.batch * new)

    @property
    def watts(self) -> float:
        return self.joules / self.seconds if self.seconds else 0.0

    def as_row(self) -> dict:
        row = asdict(self)
        row.update(joules_per_token=self.joules_per_token, watts=self.watts)
        row.update(ms=self.seconds * 1e3, floor_ms=self.floor_s * 1e3, compute_floor_ms=self.compute_floor_s * 1e3,
                   memory_floor_ms=self.memory_floor_s * 1e3, over_floor=self.over_floor, bound=self.bound,
                   tokens_per_s=self.tokens_per_second)
        return row


def floors(s: LlamaShape, cfg, phase: str, batch: int, tokens: int) -> tuple[StepWork, float, float]:
    """(work, compute floor s, memory floor s) of the step on config `cfg` (a `simulator.config.Config`)."""
    w = step_work(s, phase, batch, tokens)
    compute = w.flops / cfg.dpe_peak_flops("f16")
    memory = w.bytes * cfg.dram_ecc_factor / (cfg.dram.bandwidth_gbps * 1e9)
    return w, compute, memory


def estimate_step(model: str | LlamaShape, config, phase: str, batch: int, tokens: int,
                  reuse_layers: bool = True, sample_layers: bool = True) -> ServingEstimate:
    """Simulate one step (timing only) of `model` (a name or a shape) on `config` (a name, path or Config).

    `sample_layers`: a model of more than `SAMPLE_LAYERS[1]` layers is simulated at SAMPLE_LAYERS
    (2 and 4) layers and every figure extended along the difference to its own count (`_extend`): the
    decoder layers are identical, and the two layers the second model adds (its third and fourth) are
    the steady state of a layer between two others, as the first waves of a launch are of its later
    ones (simulator/sampling.py). The embedding, the last norm and the lm_head are in both runs, so
    they count once. `layers_simulated` says which models ran.

    `reuse_layers`: the launches of layers 2..L take the records of layer 1's identical launches
    (`launch_memo.across_placements`: same kernel, shapes and offsets, each layer's weights at their own
    addresses); the address-dependent part of the cycles (DRAM channel hash, LLC sets) is then layer
    1's. `reused_layers` counts those launches."""
    import torch

    from compiler.runtime import disk_cache
    from simulator.config import load_config
    s = shape_named(model) if isinstance(model, str) else model
    cfg = load_config(config)
    start = time.perf_counter()
    key = _step_key(s, cfg, phase, batch, tokens, reuse_layers, torch.__version__, sample_layers)
    kept = disk_cache.load(KIND, key)
    if isinstance(kept, ServingEstimate):          # this step, estimated by the same code before
        return replace(kept, wall_seconds=time.perf_counter() - start, simulated_launches=0, reused_layers=0,
                       from_cache=True)
    if sample_layers and s.layers > SAMPLE_LAYERS[1]:
        low, high = (_simulate(replace(s, layers=n), cfg, phase, batch, tokens, reuse_layers) for n in SAMPLE_LAYERS)
        run = _extend(low, high, (s.layers - SAMPLE_LAYERS[1]) / (SAMPLE_LAYERS[1] - SAMPLE_LAYERS[0]))
        simulated = list(SAMPLE_LAYERS)
    else:
        run, simulated = _simulate(s, cfg, phase, batch, tokens, reuse_layers), [s.layers]
    w, compute, memory = floors(s, cfg, phase, batch, tokens)
    result = ServingEstimate(s.name, cfg.name, phase, batch, tokens, run["seconds"], round(run["cycles"]), w.flops,
                             w.bytes, compute, memory, time.perf_counter() - start, run["by_op_class"],
                             round(run["kernels"]), run["simulated"], run["reused"], run["sampled"], run["joules"],
                             layers_simulated=simulated)
    disk_cache.store(KIND, key, result)
    return result


# the layer counts a sampled step simulates: the first two layers, then two more in steady state
SAMPLE_LAYERS = (2, 4)
_EXTENDED = ("seconds", "cycles", "kernels", "joules")      # the figures a layer adds to (and by_op_class's)


def _simulate(s: LlamaShape, cfg, phase: str, batch: int, tokens: int, reuse_layers: bool) -> dict:
    """`compiler.inductor.estimate` of the model of shape `s` at this step: its figures and launch counts."""
    import torch

    from compiler.inductor import estimate
    from compiler.runtime import launch_memo, sampled_launches
    from simulator.config import use_config

    from .models.llama import build
    net, inputs = build(s, phase, batch, tokens)
    simulated, elsewhere = launch_memo.STATS["simulated"], launch_memo.STATS["reused_elsewhere"]
    reuse = launch_memo.across_placements() if reuse_layers else contextlib.nullcontext()
    # each step is a new model of the same code: Dynamo reuses the graph of an earlier step of the same
    # shapes (a warm sweep compiles nothing) and compiles each new shape, up to RECOMPILE_LIMIT of them
    with use_config(cfg), torch._dynamo.config.patch(recompile_limit=RECOMPILE_LIMIT), reuse, \
            sampled_launches.sampled():
        report = estimate(net, *inputs)
    return {"seconds": report.seconds, "cycles": report.cycles, "kernels": len(report.kernels),
            "joules": report.joules, "by_op_class": {k: v["seconds"] for k, v in report.by_op_class().items()},
            "simulated": launch_memo.STATS["simulated"] - simulated,
            "reused": launch_memo.STATS["reused_elsewhere"] - elsewhere,
            "sampled": sum(1 for k in report.kernels if k.report is not None and k.report.sampled)}


def _extend(low: dict, high: dict, k: float) -> dict:
    """`high`'s figures plus k times what its extra layers added to `low`'s (launch counts: both runs').

    By op class, the layers' increment is split as the classes that grew share it: a class that only
    the first layer runs (the embedding lookup fused into its norm) adds nothing, though its launches,
    which read their indices and so are simulated again at the larger model's addresses, differ by a
    little from one run to the other; extended k times, that little would be a negative time."""
    out = {f: high[f] + k * (high[f] - low[f]) for f in _EXTENDED}
    grew = {c: max(0.0, v - low["by_op_class"].get(c, 0.0)) for c, v in high["by_op_class"].items()}
    total = sum(grew.values())
    step = high["seconds"] - low["seconds"]
    out["by_op_class"] = {c: v + k * step * grew[c] / total if total else v for c, v in high["by_op_class"].items()}
    out.update({f: low[f] + high[f] for f in ("simulated", "reused", "sampled")})
    return out


def _step_key(s: LlamaShape, cfg, phase: str, batch: int, tokens: int, reuse_layers: bool, torch_version: str,
              sample_layers: bool = True) -> str:
    """The disk-cache key of one step's estimate: everything it is a function of. The compiler, simulator
    and ISA sources are in every key (`disk_cache.entry_key`); the model's and this module's are added here."""
    from compiler.runtime import disk_cache
    here = Path(__file__).parent
    code = hashlib.sha256(b"".join(p.read_bytes() for p in (here / "serving.py", *sorted((here / "models").glob("*.py")))))
    return disk_cache.entry_key(KIND, repr(s.as_dict()), cfg.model_dump_json(), phase, batch, tokens, reuse_layers,
                                torch_version, code.hexdigest(), sample_layers)


def serve(model: str | LlamaShape, config, batch: int = 1, prompt: int = 2048, context: int = 2048) -> list:
    """[prefill of `prompt` tokens (time to first token), decode step at `context`] for `batch` sequences."""
    return [estimate_step(model, config, "prefill", batch, prompt),
            estimate_step(model, config, "decode", batch, context)]


HEADER = (f"{'model':<12} {'config':<12} {'phase':<8} {'batch':>5} {'tokens':>6} {'ms':>10} {'floor ms':>9} "
          f"{'x floor':>7} {'bound':>7} {'compute ms':>10} {'memory ms':>9} {'tok/s':>9} {'J/token':>8} {'W':>6}")


def table(rows: list[ServingEstimate]) -> str:
    """The estimates as a text table: one line per step (tokens: the prompt for prefill, the context for decode)."""
    lines = [HEADER, "-" * len(HEADER)]
    for r in rows:
        lines.append(f"{r.model:<12} {r.config:<12} {r.phase:<8} {r.batch:>5} {r.tokens:>6} {r.seconds * 1e3:>10.3f} "
                     f"{r.floor_s * 1e3:>9.3f} {r.over_floor:>7.3f} {r.bound:>7} {r.compute_floor_s * 1e3:>10.3f} "
                     f"{r.memory_floor_s * 1e3:>9.3f} {r.tokens_per_second:>9.1f} {r.joules_per_token:>8.4f} "
                     f"{r.watts:>6.1f}")
    sampled = sorted({r.model for r in rows if r.layers_simulated == list(SAMPLE_LAYERS)})
    if sampled:
        lines.append(f"({', '.join(sampled)}: simulated at {SAMPLE_LAYERS[0]} and {SAMPLE_LAYERS[1]} layers, each "
                     f"figure extended to the model's layers along their difference)")
    return "\n".join(lines)
