"""`mtiasim serve MODEL`: a decoder LLM served on the simulated chip: time to first token and time per
output token, each beside its compute and memory floors.

    mtiasim serve llama-2-7b --config mtia-2i --batch 1 --prompt 2048 --context 2048 [--json]

The model is built at its published size on torch's meta device (`mtiasim/models/llama.py`) and
estimated timing-only (`mtiasim/serving.py`). torch is imported when the command runs (the `inductor`
extra), so that listing the commands does not need it.
"""
from __future__ import annotations

import json

from ..cli import UsageError, command, config_arg, config_from_args, json_arg, set_arg


def _positive(text: str) -> int:
    import argparse
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def _serve_args(p) -> None:
    from ..models.shapes import SHAPES
    p.add_argument("model", help=f"a model name: {', '.join(SHAPES)}")
    config_arg(p)
    set_arg(p)
    p.add_argument("--batch", type=_positive, default=1, help="sequences served together (default 1)")
    p.add_argument("--prompt", type=_positive, default=2048, help="prompt tokens of the prefill (default 2048)")
    p.add_argument("--context", type=_positive, default=2048,
                   help="positions a decode step attends to, itself included (default 2048)")
    p.add_argument("--phase", choices=("both", "prefill", "decode"), default="both", help="which steps (default both)")
    json_arg(p)


@command("serve", "serve a decoder LLM: time to first token, ms per token, beside their floors", _serve_args)
def cmd_serve(a) -> int:
    from .. import serving
    from ..models.shapes import shape_named
    try:
        shape = shape_named(a.model)
    except ValueError as e:
        raise UsageError(str(e)) from None
    cfg = config_from_args(a.config, a.set)
    steps = [("prefill", a.prompt), ("decode", a.context)]
    rows = [serving.estimate_step(shape, cfg, phase, a.batch, tokens) for phase, tokens in steps
            if a.phase in ("both", phase)]
    if a.json:
        print(json.dumps([r.as_row() for r in rows], indent=2))
        return 0
    print(serving.table(rows))
    for r in rows:
        what = "time to first token" if r.phase == "prefill" else "per output token"
        print(f"{r.phase}: {r.seconds * 1e3:.2f} ms {what}, {r.over_floor:.2f}x its {r.bound} floor "
              f"({r.floor_s * 1e3:.2f} ms); {r.tokens_per_second:,.0f} tokens/s; host {r.wall_seconds:.1f} s")
    return 0
