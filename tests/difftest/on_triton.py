"""Check the generated kernels against real Triton on a GPU: does our frontend type and compute what
Triton does? (The long run only compares our two executors with each other.)

    python -m difftest.on_triton export --examples 3000 --seed 6001 --out cases.pkl   # here, from tests/
    python -m difftest.on_triton check cases.pkl                                       # where torch + triton + CUDA are

`export` runs each kernel on our interpreter executor and saves its source, inputs and outputs (as
raw bytes, so the file needs only numpy and ml_dtypes to read). `check` compiles each source with
`import triton` in place of ours, runs it on the GPU in worker processes and compares the outputs
the same way `run.compare` does (bit for bit unless the case has a tolerance). It prints each
kernel that differs or that Triton refuses, and a summary. Known differences that are not ours to
fix: NVIDIA's dots need M, N and K >= 16; Triton before 3.8 negates a float as 0 - x (so -0.0 is
+0.0 there); the GPU's cos/sin/exp are approximations.
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import multiprocessing
import os
import pickle
import sys
import tempfile

import ml_dtypes
import numpy as np

SCALARS = ("n", "nt", "s0", "f0")
NP = {"bfloat16": ml_dtypes.bfloat16}


def _pack(a: np.ndarray) -> tuple:
    return a.dtype.name, a.tobytes()


def _unpack(packed: tuple) -> np.ndarray:
    name, raw = packed
    return np.frombuffer(raw, NP.get(name, name)).copy()


def export(examples: int, seed: int, out: str) -> int:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed

    from .generate import cases
    from .run import inputs, run_on
    saved = []

    @hypothesis_seed(seed)
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(cases())
    def collect(case):
        ref = run_on(case, "interpreter")   # a generator error propagates: fix the generator first
        saved.append({"source": case.source, "arrays": [a.name for a in case.arrays], "grid": case.grid,
                      "inputs": {k: _pack(v) for k, v in inputs(case).items()},
                      "scalars": case.scalars, "tolerances": case.tolerances,
                      "outputs": {k: _pack(v) for k, v in ref.items()}})

    collect()
    with open(out, "wb") as f:
        pickle.dump(saved, f)
    print(f"{len(saved)} kernels run on the interpreter executor and saved to {out}")
    return 0


def _differences(case: dict, got: dict) -> list[str]:
    out = []
    for name, packed in case["outputs"].items():
        ref, new, atol = _unpack(packed), got[name], case["tolerances"].get(name)
        if atol is None:
            same = (ref.view(np.uint8).reshape(ref.size, -1) == new.view(np.uint8).reshape(new.size, -1)).all(1)
            if ref.dtype.kind == "f" or ref.dtype == ml_dtypes.bfloat16:
                same |= np.isnan(ref.astype(np.float32)) & np.isnan(new.astype(np.float32))
        else:
            r, g = ref.astype(np.float64), new.astype(np.float64)
            same = (np.abs(r - g) <= atol) | (np.isnan(r) & np.isnan(g))
        if not same.all():
            i = np.flatnonzero(~same)[0]
            how = "bit for bit" if atol is None else f"within {atol:.3g}"
            out.append(f"{name} differs {how} at {(~same).sum()} of {ref.size}; first [{i}]: ours {ref[i]!r}, "
                       f"triton {new[i]!r}")
    return out


def _check_one(index: int, case: dict, folder: str) -> tuple[str, str]:
    import torch
    source = case["source"].replace("import compiler as triton", "import triton").replace(
        "import compiler.language as tl", "import triton.language as tl")
    path = os.path.join(folder, f"kernel_{index}.py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(f"kernel_{index}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        dev = {}
        for name, packed in case["inputs"].items():
            host = _unpack(packed)
            dev[name] = torch.from_numpy(host.view(np.uint8).copy()).cuda().view(getattr(torch, host.dtype.name))
        module.kernel[(case["grid"],)](*[dev[a] for a in case["arrays"]], *[case["scalars"][k] for k in SCALARS])
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001 - Triton refusing a kernel we run is a finding
        return "refused by triton", f"{type(e).__name__}: {e}"
    got = {name: dev[name].view(torch.uint8).cpu().numpy().view(NP.get(packed[0], packed[0]))
           for name, packed in case["outputs"].items()}
    problems = _differences(case, got)
    return ("differs", "\n".join(problems)) if problems else ("same", "")


def _check_share(share: list) -> list:
    folder = tempfile.mkdtemp(prefix="difftest-triton-")
    return [(i, *_check_one(i, case, folder)) for i, case in share]


def check(files: list[str], workers: int) -> int:
    kernels = []
    for name in files:
        with open(name, "rb") as f:
            kernels += pickle.load(f)
    shares = [[(i, k) for i, k in enumerate(kernels) if i % workers == w] for w in range(workers)]
    counts = collections.Counter()
    with multiprocessing.get_context("spawn").Pool(workers) as pool:   # CUDA wants spawned workers
        for results in pool.imap_unordered(_check_share, shares):
            for i, kind, text in results:
                counts[kind] += 1
                if text:
                    print(f"== kernel {i}: {kind}\n{text}\n{kernels[i]['source']}", flush=True)
    print(f"{len(kernels)} kernels: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    return 0 if counts["same"] == len(kernels) else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m difftest.on_triton", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="verb", required=True)
    e = sub.add_parser("export", help="run generated kernels on our interpreter and save them")
    e.add_argument("--examples", type=int, default=1000)
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--out", default="difftest-cases.pkl")
    c = sub.add_parser("check", help="run saved kernels with real Triton on a GPU and compare")
    c.add_argument("files", nargs="+")
    c.add_argument("--workers", type=int, default=min(16, os.cpu_count() or 1))
    args = ap.parse_args(argv)
    if args.verb == "export":
        return export(args.examples, args.seed, args.out)
    return check(args.files, args.workers)


if __name__ == "__main__":
    sys.exit(main())
