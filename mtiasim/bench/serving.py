"""The serving estimates at production size and what they cost on the host: must-show figures of issue #34.

    python -m mtiasim.bench.serving                      # Llama-2-7B and Llama-3-8B on mtia-2i, 2i-ECC, 300
    python -m mtiasim.bench.serving --models llama-tiny --configs mtia-2i --prompt 64 --context 64

For each model and config: prefill of the prompt (time to first token) and a decode step at the context,
batch 1, each beside its floors (mtiasim/serving.py), then the host time of the whole run and how many
launches were simulated. Run it twice: the first run is cold unless MTIASIM_CACHE_DIR already holds the
compiled kernels, tuned blocks and launch records; the second, in a new process, reads them all. Prints
figures; asserts nothing (the load of a shared host moves the wall times: `os.getloadavg()` is printed).
"""
from __future__ import annotations

import argparse
import json
import os
import time


def main(argv: list[str] | None = None) -> int:
    from mtiasim import serving
    p = argparse.ArgumentParser(prog="python -m mtiasim.bench.serving", description=__doc__.splitlines()[0])
    p.add_argument("--models", nargs="+", default=["llama-2-7b", "llama-3-8b"])
    p.add_argument("--configs", nargs="+", default=["mtia-2i", "mtia-2i-ecc", "mtia-300"])
    p.add_argument("--prompt", type=int, default=2048)
    p.add_argument("--context", type=int, default=2048)
    p.add_argument("--json", help="also write the rows to this JSON file")
    a = p.parse_args(argv)
    rows, start = [], time.perf_counter()
    for model in a.models:
        for config in a.configs:
            t = time.perf_counter()
            pair = serving.serve(model, config, batch=1, prompt=a.prompt, context=a.context)
            rows += pair
            print(f"{model} on {config}: {time.perf_counter() - t:.0f} s of host time, {_cpu():.0f} CPU s so far "
                  f"({', '.join(_how(r) for r in pair)})", flush=True)
    wall = time.perf_counter() - start
    print(serving.table(rows))
    print(f"host time {wall:.0f} s ({_cpu():.0f} CPU s); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"cache {os.environ.get('MTIASIM_CACHE_DIR', '~/.cache/mtiasim')}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"wall_seconds": wall, "rows": [r.as_row() for r in rows]}, f, indent=2)
    return 0


def _how(r) -> str:
    if r.from_cache:
        return f"{r.phase} read from the cache"
    return (f"{r.phase} {r.simulated_launches} simulated ({r.sampled_launches} sampled), {r.reused_layers} from "
            f"another layer")


def _cpu() -> float:
    """CPU seconds of this process and its trial workers: the host cost whatever the machine's load."""
    import resource
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


if __name__ == "__main__":
    raise SystemExit(main())
