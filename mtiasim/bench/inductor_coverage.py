"""Coverage of public architectures through compiler.inductor (issue 13, "what it must show" 2).

Builds each architecture from its transformers config at a tiny size with random weights (nothing
is downloaded), runs it once with `compiler.inductor.simulate`, checks the output against eager
PyTorch and prints a row per model: whether it compiled and ran end to end on the simulator, its
coverage (the ATen compute ops that ran as simulated kernels), the ops left to the host, the
simulated time, the host wall time, and each failure's cause. The last lines compare the fraction
that runs end to end with the Triton-for-MTIA paper's 94.5% (inference models).

    pip install -e '.[inductor,models]' && python -m mtiasim.bench.inductor_coverage [NAME ...]

A model runs end to end when it compiles, launches at least one kernel on the simulator and
matches eager PyTorch; ops left to the host (a convolution Inductor has no Triton kernel for on a
CPU device) lower its coverage, not its result. Matmul templates are tried with one MTIA block size
(`--autotune` tries them all, as `simulate` does by default): this measures what compiles, not the
fastest tiles. Dynamo's caches are reset before each model, so that no model runs eagerly because
the ones before it used up Dynamo's recompile limit on shared code.

`--train`: each architecture runs one training step instead (`training_check.py`: an MSE loss of its
first output, `loss.backward()` and AdamW through `compiler.inductor.simulate`), compared with the
same step in eager PyTorch (loss, gradients, updated parameters); the last line compares the fraction
that trains end to end with the paper's 94.7% of training models. Dropout is off (the models are in
eval mode) so that both runs compute the same step.
"""
from __future__ import annotations

import argparse
import time
import traceback

import torch
import transformers as hf

import compiler.inductor as ci
from compiler.inductor import gemm_configs

from .training_check import check_step

PAPER = 0.945          # Triton-for-MTIA: Inductor-Triton succeeds on 94.5% of the inference models
PAPER_TRAINING = 0.947  # ... and on 94.7% of the training models
VOCAB, SEQ, BATCH, IMAGE = 128, 8, 2, 32
# the sizes every text config takes under these names (others are spelled out per model below)
TINY = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
            max_position_embeddings=64)
GQA = dict(TINY, num_key_value_heads=1)           # grouped-query attention: one K/V head for two queries


def text(cfg_cls, model_cls, **sizes):
    """A text model of input_ids; `sizes` replace TINY (a config that names its sizes otherwise)."""
    return lambda: (model_cls(cfg_cls(**(sizes or TINY))), "ids")


def seq2seq(cfg_cls, model_cls, **sizes):
    return lambda: (model_cls(cfg_cls(**sizes)), "seq2seq")


def image(cfg_cls, model_cls, **sizes):
    return lambda: (model_cls(cfg_cls(**sizes)), "image")


BART = dict(vocab_size=VOCAB, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
            decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64)
VIT = dict(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64, image_size=IMAGE,
           patch_size=8)

# name -> factory of (model, input kind), each a public architecture at a tiny size
ARCHITECTURES = {
    # encoders
    "bert": text(hf.BertConfig, hf.BertModel),
    "roberta": text(hf.RobertaConfig, hf.RobertaModel, **TINY, pad_token_id=1),
    "xlm-roberta": text(hf.XLMRobertaConfig, hf.XLMRobertaModel, **TINY, pad_token_id=1),
    "distilbert": text(hf.DistilBertConfig, hf.DistilBertModel, vocab_size=VOCAB, dim=32, n_layers=1, n_heads=2,
                       hidden_dim=64, max_position_embeddings=64),
    "albert": text(hf.AlbertConfig, hf.AlbertModel, **TINY, embedding_size=16),
    "electra": text(hf.ElectraConfig, hf.ElectraModel, **TINY, embedding_size=16),
    "mobilebert": text(hf.MobileBertConfig, hf.MobileBertModel, **TINY, embedding_size=16, intra_bottleneck_size=16,
                       true_hidden_size=16, num_feedforward_networks=1),
    "deberta-v2": text(hf.DebertaV2Config, hf.DebertaV2Model),
    "megatron-bert": text(hf.MegatronBertConfig, hf.MegatronBertModel),
    "roformer": text(hf.RoFormerConfig, hf.RoFormerModel, **TINY, embedding_size=32),
    # decoders
    "gpt2": text(hf.GPT2Config, hf.GPT2Model, vocab_size=VOCAB, n_embd=32, n_layer=1, n_head=2, n_positions=64),
    "gpt-neo": text(hf.GPTNeoConfig, hf.GPTNeoModel, vocab_size=VOCAB, hidden_size=32, num_layers=1, num_heads=2,
                    attention_types=[[["global"], 1]], max_position_embeddings=64),
    "gpt-neox": text(hf.GPTNeoXConfig, hf.GPTNeoXModel),
    "gptj": text(hf.GPTJConfig, hf.GPTJModel, vocab_size=VOCAB, n_embd=32, n_layer=1, n_head=2, rotary_dim=8,
                 n_positions=64),
    # CodeGen splits its heads into 4 model-parallel groups: 4 heads at least
    "codegen": text(hf.CodeGenConfig, hf.CodeGenModel, vocab_size=VOCAB, n_embd=64, n_layer=1, n_head=4, rotary_dim=8,
                    n_positions=64, n_ctx=64),
    "opt": text(hf.OPTConfig, hf.OPTModel, vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                ffn_dim=64, word_embed_proj_dim=32, max_position_embeddings=64),
    "bloom": text(hf.BloomConfig, hf.BloomModel, vocab_size=VOCAB, hidden_size=32, n_layer=1, n_head=2),
    "llama": text(hf.LlamaConfig, hf.LlamaModel, **GQA),
    "mistral": text(hf.MistralConfig, hf.MistralModel, **GQA),
    "qwen2": text(hf.Qwen2Config, hf.Qwen2Model, **GQA),
    "qwen3": text(hf.Qwen3Config, hf.Qwen3Model, **GQA, head_dim=16),
    "gemma": text(hf.GemmaConfig, hf.GemmaModel, **GQA, head_dim=16),
    "phi": text(hf.PhiConfig, hf.PhiModel),
    "phi3": text(hf.Phi3Config, hf.Phi3Model, **GQA, pad_token_id=0),
    "falcon": text(hf.FalconConfig, hf.FalconModel, vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1,
                   num_attention_heads=2),
    "stablelm": text(hf.StableLmConfig, hf.StableLmModel, **GQA),
    "starcoder2": text(hf.Starcoder2Config, hf.Starcoder2Model, **GQA),
    "olmo": text(hf.OlmoConfig, hf.OlmoModel, **GQA, pad_token_id=0),
    "biogpt": text(hf.BioGptConfig, hf.BioGptModel),
    "xglm": text(hf.XGLMConfig, hf.XGLMModel, vocab_size=VOCAB, d_model=32, num_layers=1, attention_heads=2,
                 ffn_dim=64, max_position_embeddings=64),
    # encoder-decoders
    "t5": seq2seq(hf.T5Config, hf.T5Model, vocab_size=VOCAB, d_model=32, d_kv=16, d_ff=64, num_layers=1, num_heads=2),
    "bart": seq2seq(hf.BartConfig, hf.BartModel, **BART),
    "mbart": seq2seq(hf.MBartConfig, hf.MBartModel, **BART),
    "pegasus": seq2seq(hf.PegasusConfig, hf.PegasusModel, **BART),
    # vision
    "vit": image(hf.ViTConfig, hf.ViTModel, **VIT),
    "deit": image(hf.DeiTConfig, hf.DeiTModel, **VIT),
    "resnet": image(hf.ResNetConfig, hf.ResNetModel, embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1],
                    layer_type="basic"),
    "convnext": image(hf.ConvNextConfig, hf.ConvNextModel, hidden_sizes=[16, 32], depths=[1, 1], num_stages=2),
}


class FirstOutput(torch.nn.Module):
    """The model's first output tensor (what we compare), with its inputs as positional arguments."""

    def __init__(self, model, kind):
        super().__init__()
        self.model, self.kind = model.eval(), kind

    def forward(self, x, y=None):
        if self.kind == "seq2seq":
            return self.model(input_ids=x, decoder_input_ids=y)[0]
        if self.kind == "image":
            return self.model(pixel_values=x)[0]
        return self.model(input_ids=x)[0]


def inputs_for(kind: str, g: torch.Generator) -> tuple:
    if kind == "image":
        return (torch.randn(BATCH, 3, IMAGE, IMAGE, generator=g),)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
    return (ids, torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)) if kind == "seq2seq" else (ids,)


def one_line(e: BaseException) -> str:
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0] if text else ''}"[:200]


def run_one(name: str, train: bool = False) -> dict:
    torch._dynamo.reset()          # a fresh Dynamo: no recompile limit used up by the models before
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    start = time.perf_counter()
    row = {"model": name, "ok": False, "coverage": None, "host": {}, "us": None, "kernels": 0, "cause": ""}
    try:
        model, kind = ARCHITECTURES[name]()
        wrapped = FirstOutput(model, kind)
        inputs = inputs_for(kind, g)
        if train:
            cause, report = check_step(wrapped, inputs)
            row.update(coverage=report.coverage, host=dict(report.not_simulated), us=report.seconds * 1e6,
                       kernels=len(report.kernels), cause=cause, ok=not cause,
                       phases={p: v["seconds"] * 1e6 for p, v in report.by_phase().items()})
            row["wall"] = time.perf_counter() - start
            return row
        out, report = ci.simulate(wrapped, *inputs)
        with torch.no_grad():
            expected = wrapped(*inputs)
        error = (out - expected).abs().max().item()
        row.update(coverage=report.coverage, host=dict(report.not_simulated), us=report.seconds * 1e6,
                   kernels=len(report.kernels))
        if not report.kernels:
            row["cause"] = "no kernel ran on the simulator"
        elif not torch.allclose(out, expected, rtol=1e-3, atol=1e-4):
            row["cause"] = f"output differs from eager by {error:.3g}"
        else:
            row["ok"] = True
    except Exception as e:          # the benchmark records each failure's cause and goes on
        row.update(cause=one_line(e), trace=traceback.format_exc())
    row["wall"] = time.perf_counter() - start
    return row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", help=f"architectures (default: all {len(ARCHITECTURES)})")
    p.add_argument("--autotune", action="store_true", help="try every MTIA block size of the matmul templates")
    p.add_argument("--traceback", action="store_true", help="print each failure's traceback")
    p.add_argument("--train", action="store_true", help="one training step (forward, backward, AdamW) per model")
    a = p.parse_args()
    unknown = [n for n in a.names if n not in ARCHITECTURES]
    if unknown:
        p.error(f"unknown architecture(s) {', '.join(unknown)}; known: {', '.join(ARCHITECTURES)}")
    if not a.autotune:
        gemm_configs.CANDIDATES[:] = [(64, 64, 64)]
    names = a.names or list(ARCHITECTURES)
    rows = []
    print(f"transformers {hf.__version__}, torch {torch.__version__}")
    print(f"{'model':<14} {'result':<6} {'coverage':>8} {'kernels':>7} {'sim us':>8} {'wall s':>7}  cause / ops on the host")
    for name in names:
        r = run_one(name, a.train)
        rows.append(r)
        cov = f"{r['coverage']:.1%}" if r["coverage"] is not None else "-"
        us = f"{r['us']:.1f}" if r["us"] is not None else "-"
        host = ", ".join(f"{k} x{v}" for k, v in sorted(r["host"].items()))
        print(f"{name:<14} {'ok' if r['ok'] else 'FAIL':<6} {cov:>8} {r['kernels']:>7} {us:>8} {r['wall']:>7.1f}  "
              f"{'; '.join(x for x in (r['cause'], host) if x)}", flush=True)
        if a.traceback and r.get("trace"):
            print(r["trace"])
    passed = sum(r["ok"] for r in rows)
    full = sum(r["ok"] and not r["host"] for r in rows)
    what, paper = ("train one step", f"{PAPER_TRAINING:.1%} of training models") if a.train else \
        ("compile, run", f"{PAPER:.1%} of inference models")
    print(f"end to end: {passed}/{len(rows)} = {passed / len(rows):.1%} of the architectures {what} on the "
          f"simulator and match eager (Triton-for-MTIA: {paper}); "
          f"{full}/{len(rows)} with no op left to the host")


if __name__ == "__main__":
    main()
