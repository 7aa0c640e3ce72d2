"""Every generated kernel of the three example models at realistic sizes against its DRAM roofline
(issue 13, "what it must show" 4: point-wise and reduction kernels at >= 80%).

    pip install -e '.[inductor]' && python -m mtiasim.bench.inductor_kernels [mlp|decoder|dlrm ...] [--rows N]

Prints a row per kernel launch: its kind, block sizes, grid, the DRAM bytes it moved, its cycles,
its roofline floor in cycles (the time its DRAM bytes, SRAM bytes or operations take at full rate,
whichever is longest: the `bound` column names it), its fraction of that floor, and the DMA instructions
of its program (boxes: dma.in/out/rows; element-wise: dma.gather/scatter/atomic), so a kernel that
falls short shows whether its accesses became boxes. The last line per model counts the point-wise
and reduction kernels at 80% or more of their roofline, and those too small for it: a kernel whose
roofline floor is under 4x the launch overhead cannot reach 80%. `--ablate SWITCH` (default: index_windows,
the windows of checked indices) runs each kernel whose program the backend switch changes once more with
it off, and prints cycles off / on after its row.
"""
from __future__ import annotations

import argparse
import re

import torch

import compiler.inductor as ci
from compiler.inductor import session
from compiler.inductor.examples import MODELS
from compiler.runtime.jit import LAUNCH_OBSERVERS
from simulator import get_config

TARGET = 0.80
# realistic sizes: 8192 rows (tokens for the decoder: 32 sequences of 256). The DLRM is MLPerf's DLRM on
# Criteo 1TB (the reference dlrm_s_pytorch.py with --max-ind-range=40000000): 13 dense features, 26
# sparse ones (so its dot interaction is over 27 vectors, 351 pairs), 128-wide embeddings, and tables of
# Criteo's 26 cardinalities (CRITEO_1TB), each hashed down to at most 100k rows as the reference hashes
# them to 40M, so that a run fits in host memory: 8 tables of 100k rows (51 MB each) and 18 of 3 to 39k
# rows, 0.47 GB in all. Rows come from DRAM when a bag first reads them: in a 100k table about 3 in 4 of
# a kernel's 65,536 lookups are first reads, in the 39k one half, in those of 2k rows or fewer nearly
# none (their rows stay in the LLC), as in the real model. 8 indices per bag (DLRM-v2's multi-hot
# Criteo pools 1 to 100 per feature). Its MLPs stay the example's small ones (templates, not counted
# below). `--dlrm-tables 3` runs the earlier 3-table DLRM (100k, 50k and 20k rows, 16 dense features:
# z of [8192, 4, 4]) for comparison.
CRITEO_1TB = (39884406, 39043, 17289, 7420, 20263, 3, 7120, 1543, 63, 38532951, 2953546, 403346, 10, 2208, 11938,
              155, 4, 976, 14, 39979771, 25641295, 39664984, 585935, 12972, 108, 36)
MAX_TABLE_ROWS = 100_000
SIZES = {"mlp": dict(rows=8192), "decoder": dict(rows=32, seq=256),
         "dlrm": dict(rows=8192, dim=128, per_bag=8, dense=13,
                      tables=tuple(min(n, MAX_TABLE_ROWS) for n in CRITEO_1TB))}
SMALL_DLRM_TABLES = (100_000, 50_000, 20_000)
BOXES = ("dma.in", "dma.out", "dma.rows")
ELEMENTWISE = ("dma.gather", "dma.scatter", "dma.atomic")


def dma_mix(compiled) -> str:
    """The DMA instructions of a compiled kernel's program: 'boxes 3 / elementwise 1'."""
    asm = compiled.asm["mtia-asm"]
    count = {name: len(re.findall(rf"^\s*{re.escape(name)}\b", asm, re.M)) for name in BOXES + ELEMENTWISE}
    return f"{sum(count[n] for n in BOXES)}/{sum(count[n] for n in ELEMENTWISE)}"


def run_model(name: str, sizes: dict, ablate: tuple = ()) -> None:
    compiled_of = {}

    def observe(compiled, grid, record):
        compiled_of[id(record.report)] = compiled
    LAUNCH_OBSERVERS.append(observe)
    try:
        model, inputs = MODELS[name](**sizes)
        with session.ablating(ablate):
            out, report = ci.simulate(model, *inputs)
    finally:
        LAUNCH_OBSERVERS.remove(observe)
    with torch.no_grad():
        error = (out - model(*inputs)).abs().max().item()
    print(f"\n{name} {sizes}: {report.cycles:,} cycles = {report.seconds * 1e6:.1f} us, {len(report.kernels)} kernels, "
          f"coverage {report.coverage:.1%}, max |out - eager| {error:.2g}, host {report.wall_seconds:.0f} s")
    head = (f"{'kernel':<52} {'kind':<20} {'blocks':<22} {'grid':>6} {'DRAM MB':>8} {'cycles':>9} {'floor':>9} "
            f"{'roofline':>8} {'bound':<7} box/elem")
    print(head)
    print("-" * len(head))
    cfg = get_config()
    launch_s = cfg.launch.overhead_ns * 1e-9
    checked = passed = small = 0
    for k in report.kernels:
        rep = k.report
        dram = (rep.bytes.get("dram_read", 0) + rep.bytes.get("dram_write", 0)) / 1e6
        blocks = " ".join(f"{b}={v}" for b, v in k.blocks.items())
        grid = "x".join(str(g) for g in k.grid if g != 1) or "1"
        compiled = compiled_of.get(id(rep))
        mix = dma_mix(compiled) if compiled is not None else "?"
        mark = ""
        best = rep.roofline.floor_seconds / (rep.roofline.floor_seconds + launch_s)   # with a free program
        if k.kind != "template":
            checked += 1
            passed += k.roofline_fraction >= TARGET
            small += best < TARGET
            if k.roofline_fraction < TARGET:
                mark = f"  < 80%: launch-bound (at best {best:.0%})" if best < TARGET else "  < 80%"
        if k.ablations:
            mark += "  off: " + ", ".join(f"{sw} {v:.2f}x" for sw, v in k.ablations.items())
        floor = round(rep.roofline.floor_seconds * cfg.clock_ghz * 1e9)
        print(f"{k.name[:52]:<52} {k.kind:<20} {blocks[:22]:<22} {grid:>6} {dram:>8.2f} {k.cycles:>9,} {floor:>9,} "
              f"{k.roofline_fraction:>7.1%}  {k.bound:<7} {mix}{mark}")
    print(f"{name}: {passed}/{checked} point-wise and reduction kernels at >= {TARGET:.0%} of their roofline; "
          f"{small} of them launch-bound (their roofline floor is under {TARGET / (1 - TARGET):.0f}x the "
          f"{launch_s * 1e9:.0f} ns launch: none of that size can reach {TARGET:.0%}); simulated in "
          f"{report.wall_seconds:.0f} s of host time")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("models", nargs="*", help=f"of {', '.join(SIZES)} (default: all three)")
    p.add_argument("--rows", type=int, help="rows instead of 8192 (sequences of 256 for the decoder: rows / 256)")
    p.add_argument("--dlrm-tables", type=int, choices=(3, 26), default=26,
                   help="the DLRM's sparse features: 26 (Criteo's, the default) or 3 (the earlier small DLRM: "
                        f"tables of {', '.join(map(str, SMALL_DLRM_TABLES))} rows, 16 dense features)")
    p.add_argument("--ablate", action="append", metavar="SWITCH",
                   help="a backend switch (compiler/backend/options.py) to time each kernel without, where it "
                        "changes the kernel's program (default: index_windows; 'none' for none)")
    a = p.parse_args()
    ablate = tuple(s for s in (a.ablate or ["index_windows"]) if s != "none")
    unknown = [m for m in a.models if m not in SIZES]
    if unknown:
        p.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(SIZES)}")
    for name in a.models or list(SIZES):
        sizes = dict(SIZES[name])
        if name == "dlrm" and a.dlrm_tables == 3:
            sizes.update(tables=SMALL_DLRM_TABLES, dense=16)
        if a.rows:
            sizes["rows"] = max(1, a.rows // 256) if name == "decoder" else a.rows
        run_model(name, sizes, ablate)


if __name__ == "__main__":
    main()
