"""`mtiasim`: simulate kernels on an MTIA config from the command line."""
from __future__ import annotations

import argparse
import json
import sys

from .config import DEFAULT_CONFIG, load_config
from .errors import SimError


def _cmd_run(a) -> int:
    from .examples.gemm import run_gemm
    from .machine import Machine
    cfg = load_config(a.config)
    if a.kernel != "gemm":
        print(f"mtiasim run: unknown kernel {a.kernel!r} (available: gemm)", file=sys.stderr)
        return 2
    M, N, K = a.shape
    rep, out, ref = run_gemm(Machine(cfg, numerics=not a.timing_only), M, N, K, region=a.region)
    if a.json:
        print(rep.to_json(indent=2))
    else:
        print(rep)
        if not a.timing_only:
            err = float(abs(out - ref).max())
            print(f"  check       max |C - A@B| = {err:.3g} against numpy")
    return 0


def _cmd_bench(a) -> int:
    from .bench import format_bench, run_bench
    b = run_bench(a.config, a.size)
    print(json.dumps(b, indent=2) if a.json else format_bench(b))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mtiasim", description="A cycle-approximate MTIA simulator and Triton compiler.")
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp):
        sp.add_argument("--config", default=DEFAULT_CONFIG, help="config name in configs/ or a YAML path "
                                                                  f"(default {DEFAULT_CONFIG})")
        sp.add_argument("--json", action="store_true", help="print JSON instead of a table")

    r = sub.add_parser("run", help="simulate a kernel and print its report")
    r.add_argument("kernel", help="kernel name: gemm")
    r.add_argument("--shape", type=int, nargs=3, default=[2048, 2048, 2048], metavar=("M", "N", "K"))
    r.add_argument("--region", choices=("sram", "dram"), default="sram", help="where the operands live")
    r.add_argument("--timing-only", action="store_true", help="skip the bulk math (same cycles, faster)")
    common(r)
    r.set_defaults(fn=_cmd_run)

    b = sub.add_parser("bench", help="time the simulator on the 2048^3 GEMM against a plain SimPy loop")
    b.add_argument("--size", type=int, default=2048)
    common(b)
    b.set_defaults(fn=_cmd_bench)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except SimError as e:
        print(f"mtiasim: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
