"""How much the headline energy figures move when one figure of the energy table is halved or doubled.

Energy is linear in each energy per action, and the action counts do not depend on them (cycles do not
move), so each run is simulated once and every scaled figure is worked out from its report: a
component's joules times the factor, for the part of the component the figure prices (`core` is
instructions and commands, `dram` is reads and writes, apart). tests/mtiasim/test_energy_sensitivity.py
checks that against a simulation with the figure changed in the config.

    python -m mtiasim.bench.energy_sensitivity                   # the table, as markdown
    python -m mtiasim.bench.energy_sensitivity --write docs/energy.md   # ... into the docs page's table

The headlines: average power of the library FP16 GEMM 2048^3 from DRAM and of the softmax 8192x4096 on
MTIA 2i, of a tiny launch (static power), and of the INT8 GEMM on MTIA v1 (the two calibration runs).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

# (field of the energy table, the component it prices)
FIGURES = (("dpe_pj_per_mac", "dpe"), ("se_pj_per_op", "se"), ("re_pj_per_op", "re"), ("mlu_pj_per_byte", "mlu"),
           ("vector_pj_per_op", "vector"), ("core_pj_per_instruction", "core"), ("command_pj", "core"),
           ("ls_pj_per_byte", "ls"), ("sram_pj_per_byte", "sram"), ("noc_pj_per_byte_hop", "noc"),
           ("dram_read_pj_per_bit", "dram"), ("dram_write_pj_per_bit", "dram"),
           ("dram_activate_pj", "dram_activate"), ("dram_refresh_pj", "dram_refresh"), ("pe_static_w", "static_pe"),
           ("uncore_static_w", "static_uncore"), ("dram_static_w", "static_dram"))
FACTORS = (0.5, 2.0)
# (label, config, library kernel, shape, launch options, which launch's report: "all" or "last")
HEADLINES = (
    ("GEMM 2048^3 f16, 2i", "mtia-2i", "matmul", (2048, 2048, 2048), {}, "all"),
    ("softmax 8192x4096, 2i", "mtia-2i", "softmax", (8192, 4096), {}, "all"),
    ("tiny launch, 2i", "mtia-2i", "softmax", (1, 64), {}, "all"),
    ("INT8 GEMM 2048^3, v1", "mtia-v1", "int8_gemm", (2048, 2048, 2048),
     {"sram_resident": True, "BLOCK_M": 128, "BLOCK_N": 128}, "last"),
)
BEGIN, END = "<!-- sensitivity:begin -->", "<!-- sensitivity:end -->"


def priced_joules(report, cfg, figure: str) -> float:
    """The joules of `report` that the energy-table field `figure` prices."""
    e, c, comp = cfg.energy, report.energy.components, dict(FIGURES)[figure]
    if figure == "core_pj_per_instruction":
        return report.instructions * e.core_pj_per_instruction * 1e-12
    if figure == "command_pj":
        return report.commands * e.command_pj * 1e-12
    if figure in ("dram_read_pj_per_bit", "dram_write_pj_per_bit"):
        ecc = cfg.dram_ecc_factor
        nbytes = report.bytes["dram_read" if figure == "dram_read_pj_per_bit" else "dram_write"]
        return nbytes * 8 * ecc * getattr(e, figure) * 1e-12
    return c[comp]


def scaled_joules(report, cfg, figure: str, factor: float) -> float:
    """The run's total energy had `figure` been `factor` times the config's."""
    return report.energy.joules + (factor - 1) * priced_joules(report, cfg, figure)


def run_headline(cfg_name: str, kernel: str, shape: tuple, launch: dict, which: str):
    from compiler.kernels import library
    from compiler.runtime import use_executor
    from simulator.config import load_config, use_config
    from simulator.report import combine
    k = library()[kernel]
    inputs = k.make_inputs(shape, np.random.default_rng(0))
    cfg = load_config(cfg_name)
    with use_config(cfg), use_executor("mtia"):
        _, runs = k.run(*inputs, numerics=False, **launch)
    report = runs[-1].report if which == "last" else combine([r.report for r in runs], kernel)
    return report, cfg


def table(runs: list[tuple[str, object, object]]) -> str:
    """Markdown: a row per figure, for each headline the watts at x0.5 and x2 and the change."""
    head = "| figure | " + " | ".join(f"{label}: W at x0.5 / x2" for label, _, _ in runs) + " |"
    lines = [head, "|" + "---|" * (len(runs) + 1),
             "| (as configured) | " + " | ".join(f"{r.energy.watts:.1f} W" for _, r, _ in runs) + " |"]
    for figure, _ in FIGURES:
        cells = []
        for _, r, cfg in runs:
            w = [scaled_joules(r, cfg, figure, f) / r.seconds for f in FACTORS]
            d = [100 * (x / r.energy.watts - 1) for x in w]
            cells.append(f"{w[0]:.1f} / {w[1]:.1f} ({d[0]:+.0f}% / {d[1]:+.0f}%)")
        lines.append(f"| `{figure}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_into(path: Path, text: str) -> None:
    doc = path.read_text()
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(doc):
        raise SystemExit(f"{path}: no {BEGIN} ... {END} block to write the table into")
    path.write_text(pattern.sub(lambda _: f"{BEGIN}\n{text}\n{END}", doc))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", type=Path, help="replace the table between the sensitivity markers of this file")
    args = ap.parse_args(argv)
    runs = []
    for label, cfg_name, kernel, shape, launch, which in HEADLINES:
        report, cfg = run_headline(cfg_name, kernel, shape, launch, which)
        runs.append((label, report, cfg))
        print(f"{label}: {report.energy.watts:.1f} W ({report.roofline.fraction:.1%} of roof)", file=sys.stderr)
    text = table(runs)
    if args.write:
        write_into(args.write, text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
