"""How long @triton.autotune takes over the 16 configs of Triton's matmul tutorial at 512^3
(issue 11, "what it must show" 7: at most 60 s on the 2-core machine).

    python -m mtiasim.bench.autotune_speed [--size 512] [--workers N] [--no-serial]

Tunes the tutorial-style matmul (compiler/kernels/matmul_tutorial.py) twice in one run, each time
from a cold compile cache: trials one after another in this process (workers=1, the baseline), then
in parallel worker processes (workers=N, default os.cpu_count()). Each line gives the wall seconds,
the CPU seconds of this process and of its workers, the config chosen and its cycles, and the
configs skipped; the winner's launch computes C, which is checked against numpy. Every trial is
timing-only (numerics=False), so the two runs choose the same config.
"""
from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np

import compiler as triton
import compiler.backend.pipeline  # noqa: F401  (imported here, not inside the first tuning's clock)
import simulator.machine  # noqa: F401
from compiler.kernels.matmul_tutorial import matmul_tutorial_kernel
from simulator import get_config

# The block sizes and stage counts of the 16 configs in the tutorial's autotune list for CUDA
# (BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, num_stages; GROUP_SIZE_M is 8 in all of them, and their
# num_warps does not matter on MTIA). The second eight are the ones it keeps for fp8 inputs.
TUTORIAL_CONFIGS = [
    (128, 256, 64, 3), (64, 256, 32, 4), (128, 128, 32, 4), (128, 64, 32, 4),
    (64, 128, 32, 4), (128, 32, 32, 4), (64, 32, 32, 5), (32, 64, 32, 5),
    (128, 256, 128, 3), (256, 128, 128, 3), (256, 64, 128, 4), (64, 256, 128, 4),
    (128, 128, 128, 4), (128, 64, 64, 4), (64, 128, 64, 4), (128, 32, 64, 4),
]
TARGET_SECONDS = 60.0


def configs() -> list:
    return [triton.Config({"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": 8}, num_stages=s)
            for m, n, k, s in TUTORIAL_CONFIGS]


def cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended (the trial workers)."""
    mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def tune(size: int, workers: int) -> dict:
    """Autotune a fresh copy of the kernel (empty compile cache) and launch the winner once."""
    kernel = triton.autotune(configs(), key=["M", "N", "K"], workers=workers)(triton.jit(matmul_tutorial_kernel.fn))
    rng = np.random.default_rng(0)
    a = rng.standard_normal((size, size)).astype(np.float16)
    b = rng.standard_normal((size, size)).astype(np.float16)
    c = np.full((size, size), np.nan, np.float16)

    def grid(meta):
        return (triton.cdiv(size, meta["BLOCK_SIZE_M"]) * triton.cdiv(size, meta["BLOCK_SIZE_N"]),)
    wall, cpu = time.perf_counter(), cpu_seconds()
    run = kernel[grid](a, b, c, size, size, size, size, 1, size, 1, size, 1)
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), want, rtol=2e-2, atol=2e-2)
    (failures,) = kernel.failures.values()
    return {"workers": workers, "wall_s": wall, "cpu_s": cpu, "config": kernel.best_config, "cycles": run.cycles,
            "trials": kernel.bench_runs, "failures": failures}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=512, help="M = N = K (default 512)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="worker processes (default: CPU count)")
    p.add_argument("--no-serial", action="store_true", help="skip the one-after-another baseline")
    a = p.parse_args(argv)
    print(f"autotuning the tutorial matmul {a.size}^3 over its {len(TUTORIAL_CONFIGS)} configs on {get_config().name}, "
          f"{os.cpu_count()} CPUs (wall and CPU seconds of the tuning and the winner's launch with numerics)")
    runs = [] if a.no_serial else [tune(a.size, 1)]
    if a.workers > 1 or a.no_serial:
        runs.append(tune(a.size, a.workers))
    for r in runs:
        skipped = f"; skipped {sorted(r['failures'])}" if r["failures"] else ""
        print(f"  workers={r['workers']}: {r['wall_s']:6.1f} s wall, {r['cpu_s']:6.1f} s CPU, {r['trials']} trials, "
              f"chose {r['config']} ({r['cycles']:,} cycles){skipped}")
    if len(runs) == 2:
        serial, parallel = runs
        print(f"  parallel / serial: {parallel['wall_s'] / serial['wall_s']:.2f}x the wall time, "
              f"{parallel['cpu_s'] / serial['cpu_s']:.2f}x the CPU time; same choice: "
              f"{serial['config'].all_kwargs() == parallel['config'].all_kwargs()}")
    best = runs[-1]
    print(f"  target: at most {TARGET_SECONDS:.0f} s -> {best['wall_s']:.1f} s "
          f"({'met' if best['wall_s'] <= TARGET_SECONDS else 'NOT met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
