"""Named decoder-LLM shapes from the public model cards (each entry names its source). No torch here:
the CLI lists the names and the floors are computed without building a model."""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class LlamaShape:
    """The sizes that decide a Llama model's work (public model cards; `source` names the card)."""
    name: str
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    rope_theta: float = 10000.0
    norm_eps: float = 1e-5
    source: str = ""

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    def parameters(self) -> int:
        """Parameter count by formula (embedding, per-layer attention, MLP and 2 norms, final norm, lm_head)."""
        kv = self.kv_heads * self.head_dim
        attention = self.hidden * self.hidden * 2 + self.hidden * kv * 2          # q, o; k, v
        mlp = 3 * self.hidden * self.ffn
        return self.vocab * self.hidden * 2 + self.layers * (attention + mlp + 2 * self.hidden) + self.hidden

    def as_dict(self) -> dict:
        return asdict(self)


SHAPES: dict[str, LlamaShape] = {s.name: s for s in (
    # Touvron et al. 2023, "Llama 2" Table 1 and the HF config (meta-llama/Llama-2-7b-hf config.json:
    # hidden_size 4096, num_hidden_layers 32, num_attention_heads 32, intermediate_size 11008, vocab 32000)
    LlamaShape("llama-2-7b", 4096, 32, 32, 32, 11008, 32000, 10000.0, 1e-5,
               "Llama 2 paper Table 1; meta-llama/Llama-2-7b-hf config.json"),
    # meta-llama/Meta-Llama-3-8B config.json: hidden 4096, 32 layers, 32 heads, 8 KV heads, FFN 14336,
    # vocab 128256, rope_theta 500000, rms_norm_eps 1e-5
    LlamaShape("llama-3-8b", 4096, 32, 32, 8, 14336, 128256, 500000.0, 1e-5,
               "meta-llama/Meta-Llama-3-8B config.json"),
    # for tests: every feature of the big ones (GQA 4:2, SwiGLU, RoPE), small enough to simulate in seconds
    LlamaShape("llama-tiny", 128, 2, 4, 2, 256, 512, 10000.0, 1e-5, "made up: a test model"),
)}


def shape_named(name: str) -> LlamaShape:
    """The shape of that name (a `ValueError` that lists the names otherwise)."""
    try:
        return SHAPES[name.lower()]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; the models are {', '.join(SHAPES)}") from None
