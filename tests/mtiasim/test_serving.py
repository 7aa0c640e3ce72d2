"""LLM serving estimates (mtiasim/serving.py, mtiasim/models/llama.py): floors checked against counts
made another way (the built model's own modules and buffers), the tiny model's estimates against its
floors and against `compiler.inductor.estimate` of the same model, and the `serve` command."""
import json
import math

import pytest

torch = pytest.importorskip("torch")

from mtiasim import serving  # noqa: E402
from mtiasim.models import llama  # noqa: E402
from simulator.config import load_config  # noqa: E402

TINY = llama.SHAPES["llama-tiny"]


def _counted(s, phase, batch, tokens):
    """FLOPs and bytes counted off the built model: each Linear's weight, the caches' sizes."""
    model, (ids,) = llama.build(s, phase, batch, tokens)
    new = ids.shape[1]
    flops = weights = 0
    for name, m in model.named_modules():
        if isinstance(m, torch.nn.Linear):
            rows = batch * (1 if name == "lm_head" else new)        # the lm_head runs on the last token only
            flops += 2 * rows * m.in_features * m.out_features
        for p in m.parameters(recurse=False):
            if not isinstance(m, torch.nn.Embedding):
                weights += p.numel() * p.element_size()
    weights += batch * new * s.hidden * 2                            # the embedding rows looked up
    for layer in model.layers:
        a = layer.self_attn
        hd = a.head_dim
        pairs = new * (new + 1) // 2 if phase == "prefill" else tokens   # (query, key) pairs per head
        flops += batch * a.heads * pairs * hd * 2 * 2
    kv = sum(b.numel() * b.element_size() for n, b in model.named_buffers() if n.endswith("_cache"))
    return flops, weights, kv


@pytest.mark.parametrize("name", ["llama-2-7b", "llama-3-8b", "llama-tiny"])
@pytest.mark.parametrize("phase,batch,tokens", [("decode", 1, 2048), ("decode", 4, 512), ("prefill", 2, 300)])
def test_work_matches_the_built_models_counts(name, phase, batch, tokens):
    s = llama.SHAPES[name]
    w = serving.step_work(s, phase, batch, tokens)
    flops, weights, kv = _counted(s, phase, batch, tokens)
    assert (w.flops, w.weight_bytes, w.kv_bytes) == (flops, weights, kv)


def test_llama_2_7b_decode_floor_is_the_published_arithmetic():
    """Llama-2-7B: 6.74 B parameters (the card's "7B"); decode at 2048 on mtia-2i reads 13.2 GB of
    weights and 1.07 GB of KV cache at 204.8 GB/s: 69.77 ms."""
    s = llama.SHAPES["llama-2-7b"]
    assert round(s.parameters() / 1e9, 2) == 6.74
    assert round(llama.SHAPES["llama-3-8b"].parameters() / 1e9, 2) == 8.03
    w, compute, memory = serving.floors(s, load_config("mtia-2i"), "decode", 1, 2048)
    assert round(w.weight_bytes / 1e9, 1) == 13.2 and round(w.kv_bytes / 1e9, 2) == 1.07
    assert memory * 1e3 == pytest.approx(69.77, abs=0.01)
    assert compute < memory / 50                      # decode at batch 1 is memory-bound by far
    _, _, ecc = serving.floors(s, load_config("mtia-2i-ecc"), "decode", 1, 2048)
    assert ecc > memory                               # inline ECC's check bytes share the bus
    _, compute, memory = serving.floors(s, load_config("mtia-2i"), "prefill", 1, 2048)
    assert compute > memory                           # a 2048-token prefill is compute-bound


def test_model_runs_and_matches_a_reference_at_the_cache_boundary():
    """The CPU model's decode at position C-1 equals the last row of a prefill over the same C tokens
    with the same cache contents (the KV cache and RoPE positions line up)."""
    s, c = TINY, 12
    pre, (ids,) = llama.build(s, "prefill", 1, c, device="cpu", dtype=torch.float32)
    dec, _ = llama.build(s, "decode", 1, c, device="cpu", dtype=torch.float32)
    dec.load_state_dict({k: v for k, v in pre.state_dict().items()})
    with torch.no_grad():
        want = pre(ids)
        for a, b in zip(pre.layers, dec.layers):      # the cache the prefill left behind
            b.self_attn.k_cache.copy_(a.self_attn.k_cache)
            b.self_attn.v_cache.copy_(a.self_attn.v_cache)
        got = dec(ids[:, -1:])
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)


def test_tiny_decode_estimate_is_the_models_estimate_and_above_its_floor():
    from compiler.inductor import estimate
    from simulator.config import use_config
    cfg = load_config("mtia-2i")
    row = serving.estimate_step("llama-tiny", cfg, "decode", 2, 64)
    exact = serving.estimate_step("llama-tiny", cfg, "decode", 2, 64, reuse_layers=False)
    model, inputs = llama.build(TINY, "decode", 2, 64)
    with use_config(cfg):
        report = estimate(model, *inputs)
    assert exact.seconds == report.seconds > 0 and exact.reused_layers == 0
    # layers reusing each other's records (launch_memo.across_placements: by how much of each buffer is
    # cached, not which lines) is an approximation: close, not equal
    assert row.seconds == pytest.approx(report.seconds, rel=1e-2)
    assert row.seconds >= row.floor_s and row.floor_s == row.memory_floor_s
    assert row.kernels == len(report.kernels)
    assert sum(row.by_op_class.values()) == pytest.approx(row.seconds)
    assert row.tokens_per_second == pytest.approx(2 / row.seconds)


@pytest.mark.slow          # compiles a prefill and a decode step of the model
def test_serve_command_prints_prefill_and_decode(capsys):
    import mtiasim.commands  # noqa: F401
    from mtiasim.cli import main
    assert main(["serve", "llama-tiny", "--config", "mtia-2i", "--batch", "1", "--prompt", "16", "--context", "32",
                 "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["phase"], r["tokens"]) for r in rows] == [("prefill", 16), ("decode", 32)]
    for r in rows:
        assert r["ms"] >= r["floor_ms"] > 0 and math.isfinite(r["tokens_per_s"])
    assert main(["serve", "llama-9b"]) == 2
    assert "unknown model 'llama-9b'" in capsys.readouterr().err


def test_a_step_estimated_before_is_read_from_the_cache(tmp_path, monkeypatch):
    """A second estimate of the same step by the same code, in a new process as in this one, reads the
    first's result: nothing compiled or simulated, the same figures; another step is another key."""
    monkeypatch.setenv("MTIASIM_CACHE_DIR", str(tmp_path))
    first = serving.estimate_step("llama-tiny", "mtia-small", "decode", 1, 32)
    again = serving.estimate_step("llama-tiny", "mtia-small", "decode", 1, 32)
    assert not first.from_cache and first.simulated_launches > 0
    assert again.from_cache and again.simulated_launches == 0
    assert (again.cycles, again.seconds, again.joules) == (first.cycles, first.seconds, first.joules)
    assert first.joules > 0 and first.joules_per_token == first.joules
    # any other step, config or code is another key
    cfg = load_config("mtia-small")
    key = serving._step_key(TINY, cfg, "decode", 1, 32, True, torch.__version__)
    others = [serving._step_key(TINY, cfg, "decode", 1, 48, True, torch.__version__),
              serving._step_key(TINY, cfg, "prefill", 1, 32, True, torch.__version__),
              serving._step_key(TINY, load_config("mtia-small", {"dram.bandwidth_gbps": 25.6}), "decode", 1, 32,
                                True, torch.__version__),
              serving._step_key(TINY, cfg, "decode", 1, 32, True, "0.0")]
    assert len({key, *others}) == 5


def test_a_deep_models_step_is_its_2_and_4_layer_models_extended():
    """Simulated at 2 and 4 layers and extended to 7: close to the 7-layer model simulated whole, with the
    kernels and the joules extended alike, and the table says so."""
    import dataclasses
    deep = dataclasses.replace(TINY, name="llama-tiny-7", layers=7)
    sampled = serving.estimate_step(deep, "mtia-2i", "decode", 1, 64)
    whole = serving.estimate_step(deep, "mtia-2i", "decode", 1, 64, sample_layers=False)
    assert sampled.layers_simulated == list(serving.SAMPLE_LAYERS) and whole.layers_simulated == [7]
    assert sampled.seconds == pytest.approx(whole.seconds, rel=0.02)
    assert sampled.joules == pytest.approx(whole.joules, rel=0.02)
    assert sampled.kernels == whole.kernels
    assert sum(sampled.by_op_class.values()) == pytest.approx(sampled.seconds)
    assert sampled.seconds >= sampled.floor_s
    assert "simulated at 2 and 4 layers" in serving.table([sampled]) and "simulated at" not in serving.table([whole])
