"""Run every portability kernel file, unchanged, on a GPU with real Triton and PyTorch.

    python tests/portability/gpu_check.py --out OUT_DIR [--only k06_dropout_rand ...]
    TRITON_INTERPRET=1 python tests/portability/gpu_check.py --out OUT_DIR --device cpu   # Triton's interpreter
    python tests/portability/gpu_check.py --unpack OUT_DIR/golden.npz    # -> tests/portability/golden/*.npy

Each `kNN_*.py` is imported as it is (its own `import triton` lines), its inputs are made exactly as
tests/end_to_end/test_portability.py makes them (conventions.case_inputs), moved to CUDA tensors, launched by
the file's `host(lib, ...)` with a torch `lib`, and compared with the file's numpy `reference`.
Writes OUT_DIR/summary.json (versions, per kernel and case: pass/fail, max error per output, or the
error text) and OUT_DIR/golden.npz (the outputs named in each file's GOLDEN, e.g. tl.rand values),
which `--unpack` turns into tests/portability/golden/*.npy (needs only numpy).
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib.util
import json
import platform
import sys
import time
import traceback
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import conventions  # noqa: E402


class TorchLib:
    """The array side of the host convention on CUDA: torch tensors are the device tensors."""

    def __init__(self, torch, device="cuda"):
        self.torch, self.device = torch, device
        self.float16, self.float32, self.float64 = torch.float16, torch.float32, torch.float64
        self.int8, self.int16, self.int32, self.int64 = torch.int8, torch.int16, torch.int32, torch.int64
        self.uint8 = torch.uint8

    def tensor(self, a):
        return self.torch.from_numpy(np.ascontiguousarray(a)).to(self.device)

    def output(self, shape, dtype):
        fill = float("nan") if dtype.is_floating_point else self.torch.iinfo(dtype).min
        return self.torch.full(shape, fill, dtype=dtype, device=self.device)

    def zeros(self, shape, dtype):
        return self.torch.zeros(shape, dtype=dtype, device=self.device)

    def full(self, shape, value, dtype):
        return self.torch.full(shape, value, dtype=dtype, device=self.device)

    def numpy(self, t):
        return t.detach().cpu().numpy().copy()

    @staticmethod
    def stride(t, dim):
        return t.stride(dim)

    @staticmethod
    def numel(t):
        return t.numel()


def import_file(path: Path):
    spec = importlib.util.spec_from_file_location(f"portability_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_file(path: Path, lib, torch, golden: dict) -> dict:
    entry = {"file": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()[:16], "cases": []}
    try:
        mod = import_file(path)
    except Exception:
        entry["error"] = traceback.format_exc(limit=3)[-3000:]
        return entry
    for i in range(len(mod.CASES)):
        case = {"index": i, "params": {k: repr(v) for k, v in mod.CASES[i].items()}}
        t0 = time.time()
        try:
            inputs = conventions.case_inputs(path.stem, mod, i)
            args = {k: lib.tensor(v) if conventions.is_array(v) else v for k, v in inputs.items()}
            outs, _ = mod.host(lib, **args)
            if lib.device == "cuda":
                torch.cuda.synchronize()
            outs = {k: lib.numpy(v) for k, v in outs.items()}
            for k, v in inputs.items():
                if conventions.is_array(v) and not np.array_equal(lib.numpy(args[k]), v, equal_nan=True):
                    raise AssertionError(f"input {k} was modified")
            res = conventions.compare(mod, outs, mod.reference(**inputs))
            case["outputs"] = {k: {"ok": ok, "max_abs_error": err, "message": msg} for k, (ok, err, msg) in res.items()}
            case["ok"] = all(ok for ok, _, _ in res.values())
            for name in getattr(mod, "GOLDEN", ()):
                golden[conventions.golden_name(path.stem, i, name)] = outs[name]
        except Exception:
            case["ok"] = False
            case["error"] = traceback.format_exc(limit=4)[-3000:]
        case["seconds"] = round(time.time() - t0, 3)
        entry["cases"].append(case)
        print(f"{path.stem} case {i}: {'PASS' if case['ok'] else 'FAIL'} ({case['seconds']} s)", flush=True)
        if not case["ok"]:
            print(case.get("error") or json.dumps(case.get("outputs"), indent=1), flush=True)
    return entry


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--only", nargs="*", default=None, help="kernel file stems to run (default: all)")
    ap.add_argument("--device", default="cuda", help="torch device (cpu needs TRITON_INTERPRET=1)")
    ap.add_argument("--unpack", type=Path, help="write the arrays of this golden.npz into golden/*.npy and exit")
    a = ap.parse_args(argv)
    if a.unpack:
        conventions.GOLDEN_DIR.mkdir(exist_ok=True)
        with np.load(a.unpack) as z:
            for name in z.files:
                np.save(conventions.GOLDEN_DIR / f"{name}.npy", z[name])
                print("wrote", conventions.GOLDEN_DIR / f"{name}.npy")
        return 0
    if a.out is None:
        ap.error("--out is required")
    import torch
    import triton

    # tl.make_tensor_descriptor built inside a kernel needs global scratch memory for the descriptor
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device=a.device))
    lib = TorchLib(torch, a.device)
    a.out.mkdir(parents=True, exist_ok=True)
    summary = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "triton": triton.__version__, "torch": torch.__version__, "numpy": np.__version__,
               "cuda": torch.version.cuda, "python": platform.python_version(),
               "device": torch.cuda.get_device_name(0) if a.device == "cuda" else f"{a.device} (Triton interpreter)",
               "capability": list(torch.cuda.get_device_capability(0)) if a.device == "cuda" else None,
               "kernels": []}
    golden: dict = {}
    for path in conventions.kernel_files():
        if a.only and path.stem not in a.only:
            continue
        summary["kernels"].append(run_file(path, lib, torch, golden))
        (a.out / "summary.json").write_text(json.dumps(summary, indent=1))    # partial results survive
    np.savez(a.out / "golden.npz", **golden)
    (a.out / "summary.json").write_text(json.dumps(summary, indent=1))
    n_ok = sum(all(c["ok"] for c in k["cases"]) and "error" not in k for k in summary["kernels"])
    print(f"{n_ok} of {len(summary['kernels'])} kernel files pass on {summary['device']} "
          f"(triton {summary['triton']}, torch {summary['torch']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
