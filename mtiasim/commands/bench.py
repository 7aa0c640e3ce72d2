"""`mtiasim bench`: time the simulator, the CLI's start, the compiler or the kernel library
(the benchmarks themselves are in mtiasim/bench/)."""
from __future__ import annotations

import json

from ..cli import UsageError, command, config_arg, json_arg


def _bench_args(p) -> None:
    p.add_argument("--size", type=int, default=2048, help="the GEMM's M = N = K, a multiple of 256 (default 2048)")
    p.add_argument("--startup", action="store_true",
                   help="instead, time `mtiasim --help` against `python -c 'import numpy'`, side by side")
    p.add_argument("--compile", action="store_true", help="instead, time compiling every library kernel (frontend "
                                                          "and MTIA backend)")
    p.add_argument("--kernels", action="store_true", help="instead, the kernel benchmark: cycles, fraction of peak or "
                                                          "DRAM bandwidth, binding roof, wall time and each backend "
                                                          "switch's ablation per library kernel (minutes)")
    p.add_argument("--quick", action="store_true", help="with --kernels: the smaller shapes (a first look, about "
                                                        "five minutes on two cores)")
    config_arg(p)
    json_arg(p)


@command("bench", "time the simulator on the 2048^3 GEMM against a plain SimPy loop", _bench_args)
def cmd_bench(a) -> int:
    if a.quick and not a.kernels:
        raise UsageError("--quick picks the kernel benchmark's smaller shapes: use it with --kernels")
    if a.startup:
        from ..bench.startup import format_startup, startup_times
        b = startup_times()
        print(json.dumps(b, indent=2) if a.json else format_startup(b))
        return 0
    if a.compile:
        from .compile import cmd_bench_compile
        return cmd_bench_compile(a)
    if a.kernels:
        from .compile import cmd_bench_kernels
        return cmd_bench_kernels(a)
    if a.size < 256 or a.size % 256:
        raise UsageError(f"--size {a.size}: the benchmark GEMM takes a multiple of 256 (its 256x256 tiles)")
    from ..bench.simulator import format_bench, run_bench
    b = run_bench(a.config, a.size)
    print(json.dumps(b, indent=2) if a.json else format_bench(b))
    return 0
