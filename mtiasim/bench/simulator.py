"""How fast the simulator itself is: the 2048^3 GEMM stream, timed with and without numerics,
against a plain SimPy event loop measured in the same run, and at two lengths of K to show that
wall time follows the number of commands."""
from __future__ import annotations

import time

import simpy

from simulator.config import load_config
from simulator.examples.gemm import run_gemm
from simulator.machine import Machine


def simpy_baseline(events: int = 200_000, procs: int = 64) -> float:
    """Events per second of a bare SimPy loop: `procs` processes each waiting on timeouts."""
    env = simpy.Environment()
    per = events // procs

    def proc():
        for _ in range(per):
            yield env.timeout(1)
    for _ in range(procs):
        env.process(proc())
    t = time.perf_counter()
    env.run()
    return per * procs / (time.perf_counter() - t)


def time_gemm(cfg, M: int, N: int, K: int, numerics: bool) -> dict:
    m = Machine(cfg, numerics=numerics)
    rep, _, _ = run_gemm(m, M, N, K)
    wall = rep.wall_seconds             # the simulation alone, not making the random inputs
    return {"shape": f"{M}x{N}x{K}", "numerics": numerics, "commands": rep.commands, "wall_s": wall,
            "commands_per_s": rep.commands / wall, "cycles": rep.cycles,
            "fraction_of_peak": 2 * M * N * K / rep.seconds / cfg.dpe_peak_flops("f16")}


def run_bench(config: str = "mtia-2i", size: int = 2048) -> dict:
    cfg = load_config(config)
    base = simpy_baseline()
    rows = [time_gemm(cfg, size, size, size, True), time_gemm(cfg, size, size, size, False),
            time_gemm(cfg, size, size, 2 * size, False)]
    for r in rows:
        r["vs_simpy_events"] = r["commands_per_s"] / base
    return {"config": cfg.name, "simpy_events_per_s": base, "runs": rows,
            "k_doubling_wall_ratio": rows[2]["wall_s"] / rows[1]["wall_s"],
            "k_doubling_command_ratio": rows[2]["commands"] / rows[1]["commands"]}


def format_bench(b: dict) -> str:
    lines = [f"simulator benchmark on {b['config']}",
             f"  plain SimPy loop (baseline, same run): {b['simpy_events_per_s']:,.0f} events/s",
             f"  {'GEMM':<16}{'numerics':>9}{'commands':>10}{'wall s':>9}{'commands/s':>12}{'vs SimPy':>10}"
             f"{'of peak':>9}"]
    for r in b["runs"]:
        lines.append(f"  {r['shape']:<16}{'yes' if r['numerics'] else 'no':>9}{r['commands']:>10,}{r['wall_s']:>9.2f}"
                     f"{r['commands_per_s']:>12,.0f}{r['vs_simpy_events']:>10.3f}{100 * r['fraction_of_peak']:>8.1f}%")
    lines.append(f"  doubling K: {b['k_doubling_command_ratio']:.2f}x commands, {b['k_doubling_wall_ratio']:.2f}x wall time")
    return "\n".join(lines)
