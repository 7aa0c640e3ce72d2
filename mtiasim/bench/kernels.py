"""The kernel benchmark: one table of library kernels on a config (MTIA 2i by default), each row with
its cycles, the fraction of the compute peak or of the DRAM bandwidth it reaches, the roof that binds
it, the host's wall time for the simulation, and what each backend switch is worth (the run's cycles
with the switch off over its cycles with every switch on; only switches that change the kernel's
program are run). Below the table, the comparisons the performance targets are stated in.

    python -m mtiasim.bench.kernels            # the whole table (minutes)
    python -m mtiasim.bench.kernels --quick    # smaller shapes, for a first look
    python -m mtiasim.bench.kernels --only 256^3 --set pe.scalar.issue_cycles=24   # a config value changed
    mtiasim bench --kernels                    # the same table from the CLI

Every run is timing-only (`numerics=False`, the same cycles as with numerics). How fast the simulator
computes a kernel with numerics against Triton's own interpreter is `python -m mtiasim.bench.interpreter_speed`.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import time
from dataclasses import dataclass, field

import numpy as np

from compiler.backend.options import BackendOptions
from simulator.report import ENGINES

from ..cli import config_from_args, set_arg

# the engines whose busy time is work; the DMA's is the time with a transfer in flight, latency and all
WORKING_ENGINES = tuple(e for e in ENGINES if e != "dma")


@dataclass(frozen=True)
class Case:
    kernel: str                 # a library kernel's name (compiler.kernels.library())
    shape: tuple
    metric: str                 # "peak" (of the compute roof) or "dram" (of the DRAM bandwidth)
    launch: dict = field(default_factory=dict)
    label: str = ""
    stages: tuple = ()          # other `num_stages` to run it with (its ablation: that many stages / 3)
    together: tuple = ()        # switches also turned off all at once (one more ablation, "a+b")
    dpe_dtype: str = ""         # a DPE input type the case needs: skipped on a config whose DPE lacks it

    @property
    def name(self) -> str:
        return self.label or self.kernel


def cases(quick: bool) -> list[Case]:
    g = 1024 if quick else 2048
    att = (8, 2048, 128) if quick else (32, 4096, 128)          # heads, seq_len, head_dim
    return [
        Case("matmul_tutorial", (g, g, g), "peak", {"sram_resident": True}, "matmul_tutorial (% M, 128x128x64)"),
        Case("matmul", (g, g, g), "peak", {"sram_resident": True}, "matmul (library)"),
        Case("matmul", (2048, 2048, 2048) if quick else (4096, 4096, 4096), "peak", {}, "matmul (library, DRAM)"),
        Case("softmax", (2048, 4096) if quick else (8192, 4096), "dram"),
        Case("layernorm_fwd", (2048, 4096) if quick else (8192, 4096), "dram"),
        Case("int8_gemm", (g, g, g), "peak", {"sram_resident": True}, dpe_dtype="i8"),   # none on MTIA 300
        Case("matmul", (g, g, g), "peak", {"sram_resident": True, "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
             "matmul (library, 128x128x64)"),
        Case("matmul", (256, 256, 256), "peak", {"sram_resident": True}, "matmul 256^3",
             together=("auto_increment", "command_contexts")),
        Case("row_sum", (64, 32768), "dram", {"BLOCK": 128}, "row_sum (512 B chunks)", stages=(1, 2)),
        Case("gemv", (1, 4096, 11008), "dram", {}, "gemv 1x4096x11008 fp16"),      # Llama-2-7B's decode up-projection
        Case("attention", att, "peak", {}, "attention (flash, non-causal)"),
        Case("attention_causal", att, "peak", {}, "attention causal (zigzag)"),
        Case("attention_causal", att, "peak", {"pe_mapping": "linear"}, "attention causal (linear)"),
        # Llama-2-7B's decode (32 heads of 128, a 2048-token KV cache); full: Llama-3-8B's 8 kv heads at 8192
        Case("attention_decode", (32, 32, 2048, 128) if quick else (32, 8, 8192, 128), "dram", {},
             "attention decode (split-K)"),
    ]


def _launch(case: Case, rng, options: BackendOptions | None = None, num_stages: int | None = None):
    """Run a case once: (combined report, the compiled kernels it launched, whether any launch
    broadcast a read, the CPU seconds of the launch: compiling and simulating, not making the inputs)."""
    from compiler.kernels import library
    from compiler.runtime.jit import LAUNCH_OBSERVERS
    from simulator.report import combine
    k = library()[case.kernel]
    inputs = k.make_inputs(case.shape, rng)
    compiled = []

    def observe(c, grid, record):
        compiled.append(c)
    LAUNCH_OBSERVERS.append(observe)
    try:
        launch = dict(case.launch, numerics=False)
        if options is not None:
            launch["mtia_options"] = {n: False for n in options.off()}
        if num_stages is not None:
            launch["num_stages"] = num_stages
        cpu = time.process_time()
        _, runs = k.run(*inputs, **launch)
        cpu = time.process_time() - cpu
    finally:
        LAUNCH_OBSERVERS.remove(observe)
    return combine([r.report for r in runs], case.name), compiled, any(r.broadcast_reads for r in runs), cpu


def _changes(compiled, switch: str, num_stages: int, broadcast: bool) -> bool:
    """Whether turning `switch` off changes the program of any kernel the case launched (broadcast
    reads are chosen at launch: that switch changes a program when a launch broadcast)."""
    if switch == "broadcast_reads":
        return broadcast
    from compiler.errors import CompilationError
    from compiler.runtime.mtia_executor import mtia_program
    from simulator import get_config
    cfg = get_config()
    off = BackendOptions.of({switch: False})
    for c in compiled:
        try:
            if _code(mtia_program(c, cfg, num_stages)[0]) != _code(mtia_program(c, cfg, num_stages, off)[0]):
                return True
        except CompilationError:          # it does not compile without the switch (e.g. does not fit)
            return True
    return False


def _code(prog) -> list[str]:
    """A program's instructions and buffers (its assembly without the .meta line)."""
    return [ln for ln in prog.to_asm().splitlines() if not ln.startswith(".meta")]


def measure(case: Case, ablations: bool = True) -> dict:
    from compiler.errors import CompilationError
    rep, compiled, broadcast, cpu = _launch(case, np.random.default_rng(0))
    floors = rep.roofline.floors
    core = _core_cycles(rep)
    row = {"kernel": case.name, "shape": "x".join(map(str, case.shape)), "cycles": int(rep.cycles),
           "metric": case.metric, "fraction": floors["dpe" if case.metric == "peak" else "dram"] / rep.seconds,
           "bound": _bound(rep, core), "roofline_fraction": rep.roofline.fraction, "wall_s": rep.wall_seconds,
           "cpu_s": cpu, "core": rep.utilization.get("core", 0.0), "core_cycles": core, "core_off": {},
           "dpe_cycles": _busiest(rep, "dpe"),
           "roof": rep.roofline.bound,
           "floor_cycles": rep.roofline.floor_seconds * rep.cycles / rep.seconds, "launch_s": _launch_seconds(),
           "seconds": rep.seconds, "commands": rep.commands, "stages": case.launch.get("num_stages", 3), "ablations": {}}
    if ablations:
        stages = row["stages"]
        for sw in BackendOptions.names():
            if _changes(compiled, sw, stages, broadcast):
                try:
                    off, *_ = _launch(case, np.random.default_rng(0), BackendOptions.of({sw: False}))
                except CompilationError as e:        # e.g. the tiles no longer fit the local store
                    row["ablations"][sw] = type(e).__name__
                    continue
                row["ablations"][sw] = off.cycles / rep.cycles
                row["core_off"][sw] = _core_cycles(off)
        if case.together:
            key = "+".join(case.together)
            off, *_ = _launch(case, np.random.default_rng(0), BackendOptions.of({sw: False for sw in case.together}))
            row["ablations"][key] = off.cycles / rep.cycles
            row["core_off"][key] = _core_cycles(off)
            row["per_step"] = _per_k_step(case)
        for n in case.stages:
            other, *_ = _launch(case, np.random.default_rng(0), num_stages=n)
            row["ablations"][f"num_stages={n}"] = other.cycles / rep.cycles
    return row


def _per_k_step(case: Case) -> dict:
    """A matmul case's cycles per K step, with the `together` switches on and off: the run's, the
    busiest control core's and DPE's, and each roof's floor (`floors`), as what a run at twice the K
    adds over the K steps it adds (the library's BLOCK_K is 32). The steady state, without the launch
    and the pipeline's fill and drain, which do not grow with K."""
    m, n, k = case.shape
    out = {}
    for name, opts in (("on", None), ("off", BackendOptions.of({sw: False for sw in case.together}))):
        reps = [_launch(dataclasses.replace(case, shape=(m, n, kk)), np.random.default_rng(0), opts)[0]
                for kk in (k, 2 * k)]
        steps = k // 32
        out[name] = {u: (_busiest(reps[1], u) - _busiest(reps[0], u)) / steps for u in ("core", "dpe")}
        out[name]["cycles"] = (reps[1].cycles - reps[0].cycles) / steps
        out[name]["floors"] = {roof: (_floor_cycles(reps[1], roof) - _floor_cycles(reps[0], roof)) / steps
                               for roof in reps[0].roofline.floors}
    return out


def _floor_cycles(rep, roof: str) -> float:
    return rep.roofline.floors[roof] * rep.cycles / rep.seconds if rep.seconds else 0.0


def _busiest(rep, unit: str) -> float:
    return max((p.get(unit, 0.0) for p in rep.per_pe), default=0.0) * rep.cycles


def _core_cycles(rep) -> float:
    """The busiest control core's cycles of work (instructions and command issue, no waiting): a
    floor of the run's time after the launch, as the core runs its program in order."""
    return _busiest(rep, "core")


def _bound(rep, core_cycles: float) -> str:
    """The roofline's binding roof, or "issue" when the control core's own work takes longer than
    the roofline's floor and than the busiest engine's work (which adds each command's fixed cost to
    the floor's: a core that out-works the floor but not the DPE is not what binds)."""
    floor = rep.roofline.floor_seconds * rep.cycles / rep.seconds if rep.seconds else 0.0
    engines = max(_busiest(rep, e) for e in WORKING_ENGINES)
    return "issue" if core_cycles > max(floor, engines) else rep.roofline.bound


def _launch_seconds() -> float:
    from simulator import get_config
    return get_config().launch.overhead_ns * 1e-9


def comparisons(quick: bool, rows: list[dict]) -> list[str]:
    """The targets' ratios, measured in this run."""
    by = {r["kernel"]: r for r in rows}
    out = []
    tut, lib = by.get("matmul_tutorial (% M, 128x128x64)"), by.get("matmul (library)")
    if tut and lib:
        out.append(f"tutorial matmul vs library matmul {tut['shape']}: {tut['cycles'] / lib['cycles']:.3f}x the "
                   f"cycles, {tut['wall_s'] / lib['wall_s']:.2f}x the simulation wall time "
                   f"({tut['cpu_s'] / lib['cpu_s']:.2f}x its CPU time, which other processes do not inflate)")
    i8 = by.get("int8_gemm")
    if i8 and lib:
        out.append(f"INT8 GEMM {i8['shape']} (dynamic quantisation counted) vs FP16 library matmul: "
                   f"{lib['cycles'] / i8['cycles']:.2f}x faster")
    zig, lin = by.get("attention causal (zigzag)"), by.get("attention causal (linear)")
    if zig and lin:
        out.append(f"causal attention {zig['shape']}: the zigzag PE mapping {lin['cycles'] / zig['cycles']:.2f}x "
                   f"faster than linear")
    small = by.get("matmul 256^3")
    if small:
        offs = ", ".join(f"{v:,.0f} with {k.replace('+', ' and ')} off" for k, v in small["core_off"].items()
                         if k in ("auto_increment", "command_contexts", "auto_increment+command_contexts"))
        out.append(f"matmul 256^3: {small['cycles']:,} cycles, the launch {100 * small['launch_s'] / small['seconds']:.0f}% "
                   f"of them; the busiest control core works {small['core_cycles']:,.0f} cycles"
                   f"{' (' + offs + ')' if offs else ''}, the busiest DPE {small['dpe_cycles']:,.0f}, and the "
                   f"roofline's floor ({small['roof']}) is {small['floor_cycles']:,.0f}")
        step = small.get("per_step")
        if step:
            roof, floor = max(step["on"]["floors"].items(), key=lambda kv: kv[1])
            out.append(f"matmul 256^3, per K step: the run {step['on']['cycles']:.0f} cycles with the command forms, "
                       f"{step['off']['cycles']:.0f} without; the control core works {step['on']['core']:.0f} with "
                       f"them, {step['off']['core']:.0f} without; the DPE {step['on']['dpe']:.0f}; the roofline's "
                       f"floor ({roof}) {floor:.0f}")
    for r in rows:           # num_stages alternatives: cycles and fraction at each depth
        ratio = {int(k.split("=")[1]): v for k, v in r["ablations"].items() if k.startswith("num_stages=")}
        if ratio:
            ratio[r["stages"]] = 1.0
            depths = sorted(ratio)
            cycles = " / ".join(f"{r['cycles'] * ratio[n]:,.0f}" for n in depths)
            fractions = " / ".join(f"{100 * r['fraction'] / ratio[n]:.1f}" for n in depths)
            roof = "DRAM bandwidth" if r["metric"] == "dram" else "peak"
            out.append(f"{r['kernel']} {r['shape']}, num_stages {' / '.join(map(str, depths))}: {cycles} cycles, "
                       f"{fractions}% of {roof}")
    return out


def run(quick: bool = False, only: tuple = (), ablations: bool = True, progress=None) -> dict:
    import simulator.machine  # noqa: F401  (imported first, so that the first row's time counts no imports)
    from compiler.backend import pipeline  # noqa: F401
    from simulator import get_config
    dpe_dtypes = get_config().pe.dpe.macs_per_cycle
    rows, skipped = [], []
    for c in cases(quick):
        if only and not any(o in c.name for o in only):
            continue
        if c.dpe_dtype and c.dpe_dtype not in dpe_dtypes:
            skipped.append(f"{c.name} (the DPE has no {c.dpe_dtype})")
            continue
        if progress:
            progress(c.name)
        rows.append(measure(c, ablations))
    return {"rows": rows, "comparisons": comparisons(quick, rows), **({"skipped": skipped} if skipped else {})}


def format_table(result: dict, config: str) -> str:
    lines = [f"kernel benchmark on {config} (timing-only runs; ablations: cycles with the switch off / with all on)",
             f"  {'kernel':<36}{'shape':>16}{'cycles':>12}{'fraction':>14}{'bound':>9}{'wall s':>8}{'cpu s':>7}"
             "  ablations"]
    for r in result["rows"]:
        frac = f"{100 * r['fraction']:.1f}% {'peak' if r['metric'] == 'peak' else 'DRAM'}"
        abl = ", ".join(f"{k} {v:.2f}x" if isinstance(v, float) else f"{k} {v}"
                        for k, v in r["ablations"].items()) or "-"
        lines.append(f"  {r['kernel']:<36}{r['shape']:>16}{r['cycles']:>12,}{frac:>14}{r['bound']:>9}"
                     f"{r['wall_s']:>8.1f}{r['cpu_s']:>7.1f}  {abl}")
    lines += [f"  {c}" for c in result["comparisons"]]
    lines += [f"  skipped: {s}" for s in result.get("skipped", ())]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m mtiasim.bench.kernels", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="smaller shapes")
    p.add_argument("--only", action="append", default=[], metavar="TEXT", help="rows whose name contains TEXT")
    p.add_argument("--no-ablations", action="store_true", help="skip the runs with a switch off")
    p.add_argument("--config", default=None, help="config name or path (default: the current one, MTIA 2i)")
    set_arg(p)
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    from simulator import get_config, use_config
    t = time.perf_counter()
    with use_config(config_from_args(a.config or get_config().name, a.set)):
        res = run(a.quick, tuple(a.only), not a.no_ablations,
                  progress=None if a.json else (lambda n: print(f"  ... {n}", flush=True)))
        name = get_config().name + "".join(f" --set {s}" for s in a.set)
    print(json.dumps(res, indent=2) if a.json else format_table(res, name))
    if not a.json:
        print(f"  ({time.perf_counter() - t:.0f} s in all)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
