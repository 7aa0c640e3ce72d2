"""What one simulated model run cost: a row per kernel launch, the ops left on the host, coverage."""
from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field, fields

from .op_classes import op_classes
from .resident import Transfers

DRAIN = "drain"        # by_op_class/by_layer's row for the dirty lines written back at the end (carried state)


def _summed(pairs) -> dict:
    """{key: {"cycles", "seconds", "kernels"}} over (key, KernelRun) pairs, the most cycles first."""
    out: dict = {}
    for key, k in pairs:
        row = out.setdefault(key, {"cycles": 0, "seconds": 0.0, "kernels": 0})
        row["cycles"] += k.cycles
        row["seconds"] += k.seconds
        row["kernels"] += 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]["cycles"]))


# the parts of a training step, in order: the forward graphs (and an inference run), the backward graphs
# AOTAutograd compiled, the graphs Dynamo captured from an optimizer's step()
PHASES = ("forward", "backward", "optimizer")


@dataclass
class KernelRun:
    """One launch of a generated kernel on the simulator."""
    name: str
    aten_ops: tuple            # the ATen ops Inductor fused into it
    kind: str                  # pointwise, reduction, persistent_reduction, template, ...
    grid: tuple
    blocks: dict               # the block sizes it ran with
    cycles: int
    seconds: float
    roofline_fraction: float   # achieved / attainable at its arithmetic intensity
    bound: str                 # what sets its floor: dram, sram, compute, ...
    compiled: bool             # False: a cache hit (no frontend or backend compile)
    wall_seconds: float        # host time to compile (if it did) and simulate it
    report: object = field(default=None, repr=False, compare=False)   # the simulator's full Report
    ablations: dict = field(default_factory=dict)   # switch -> cycles with it off / cycles (session.ablating)
    module: str = ""           # the model's submodule its ops came from ("layers.0.mlp"; "": none or several)
    reused: bool = False       # timing taken from an identical earlier launch (compiler/runtime/launch_memo.py)
    phase: str = "forward"     # what of a training step launched it: one of PHASES

    @property
    def llc_hit_rate(self) -> float:
        """The fraction of its DRAM-line accesses the LLC served (nan: it touched no DRAM line)."""
        llc = getattr(self.report, "llc", None) or {}
        n = llc.get("hits", 0) + llc.get("misses", 0)
        return llc.get("hits", 0) / n if n else float("nan")

    @property
    def joules(self) -> float:
        """The launch's energy (the simulator report's; 0 without a report)."""
        energy = getattr(self.report, "energy", None)
        return energy.joules if energy is not None else 0.0

    def as_row(self) -> dict:
        row = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "report"}
        row["joules"] = self.joules
        row["llc_hit_rate"] = self.llc_hit_rate
        row["aten_ops"] = ", ".join(self.aten_ops)
        row["blocks"] = " ".join(f"{k}={v}" for k, v in self.blocks.items())
        return row


@dataclass
class ModelReport:
    """A model run: `kernels` (one per launch), `not_simulated` (host op -> count), `coverage`."""
    kernels: list = field(default_factory=list)
    not_simulated: Counter = field(default_factory=Counter)   # every ATen compute op that ran on the host
    eager_ops: Counter = field(default_factory=Counter)       # those of them outside every compiled graph
    simulated_ops: int = 0       # ATen compute ops that ran inside simulated kernels
    graphs_run: int = 0          # compiled graphs that ran (more than one: Dynamo broke the model up)
    graphs_compiled: int = 0     # graphs Inductor compiled during this run (0 on a warm second run)
    transfers: Transfers = field(default_factory=Transfers)   # host <-> simulated DRAM copies
    config: str = ""
    wall_seconds: float = 0.0    # host time of the whole run (compile + simulate)
    timing_only: bool = False    # launched with numerics=False (`estimate`): cycles only, no outputs
    index_distribution: str = ""  # where a timing-only run's index tensors came from (`estimate`)
    index_inputs: dict = field(default_factory=dict)   # input -> rows it indexes (0: not an index: zeros)
    memory_state: str = "isolated"   # "carried": the kernels shared one LLC (session.py); "isolated": each a cold one
    line_bytes: int = 0          # the config's LLC line
    drain: dict = field(default_factory=dict)   # carried: the dirty lines left at the end, written back
                                                # ("lines", "bytes", "cycles", "seconds"; session.Recording.finish)

    @property
    def cycles(self) -> int:
        """The kernels' cycles, plus (carried state) the write-back of the dirty lines they left."""
        return sum(k.cycles for k in self.kernels) + self.drain.get("cycles", 0)

    @property
    def seconds(self) -> float:
        return sum(k.seconds for k in self.kernels) + self.drain.get("seconds", 0.0)

    def llc_by_op_class(self) -> dict:
        """{op class: {"hits", "misses", "hit_rate", "warm_hits"}}: how the LLC served each class's reads and
        writes of DRAM lines (`warm_hits`: reads of lines an earlier kernel left, carried state only)."""
        out: dict = {}
        for c, k in zip(op_classes(self.kernels), self.kernels):
            llc = getattr(k.report, "llc", None) or {}
            row = out.setdefault(c, {"hits": 0, "misses": 0, "warm_hits": 0})
            for key in row:
                row[key] += int(llc.get(key, 0))
        for row in out.values():
            n = row["hits"] + row["misses"]
            row["hit_rate"] = row["hits"] / n if n else float("nan")
        return out

    def memory_moves(self) -> dict:
        """What carrying the LLC between kernels moved: bytes of reads found warm (lines an earlier kernel
        left), bytes of earlier kernels' dirty lines written back when a later kernel evicted them, and the
        write-back of the dirty lines left at the end (all 0 for isolated kernels)."""
        line = self.line_bytes
        warm = sum(int((getattr(k.report, "llc", None) or {}).get("warm_hits", 0)) for k in self.kernels)
        paid = sum(int((getattr(k.report, "llc", None) or {}).get("warm_writebacks", 0)) for k in self.kernels)
        return {"memory_state": self.memory_state, "warm_read_bytes": warm * line, "dirty_writeback_bytes": paid * line,
                "drained_bytes": self.drain.get("bytes", 0), "drain_cycles": self.drain.get("cycles", 0)}

    @property
    def joules(self) -> float:
        """Energy of every simulated launch, summed: J per sample or per token is this over their count."""
        return sum(k.joules for k in self.kernels) + sum(self.drain.get("energy", {}).values())

    @property
    def watts(self) -> float:
        """Average power over the simulated time (the kernels back to back, and the end-of-run drain)."""
        return self.joules / self.seconds if self.seconds else 0.0

    def energy_by_component(self) -> dict[str, float]:
        """Joules by component (simulator/energy.py's), summed over the kernels."""
        out: dict[str, float] = {}
        for k in self.kernels:
            energy = getattr(k.report, "energy", None)
            for name, j in (energy.components.items() if energy is not None else ()):
                out[name] = out.get(name, 0.0) + j
        for name, j in self.drain.get("energy", {}).items():        # the end-of-run write-back
            out[name] = out.get(name, 0.0) + j
        return out

    @property
    def host_ops(self) -> int:
        return sum(self.not_simulated.values())

    @property
    def coverage(self) -> float:
        """The fraction of the model's ATen compute ops that ran as simulated kernels (0 when none was
        counted: nothing ran on the simulator)."""
        total = self.simulated_ops + self.host_ops
        return self.simulated_ops / total if total else 0.0

    @property
    def cache_hits(self) -> int:
        return sum(not k.compiled for k in self.kernels)

    @property
    def compiles(self) -> int:
        return sum(k.compiled for k in self.kernels)

    def by_op_class(self) -> dict:
        """{op class: {"cycles", "seconds", "kernels"}} (`op_classes.py`), the largest first; with a carried
        memory state, "drain" is the write-back of the dirty lines left at the end (no kernel's)."""
        return self._with_drain(_summed(zip(op_classes(self.kernels), self.kernels)))

    def _with_drain(self, rows: dict) -> dict:
        """`rows` and the end-of-run drain as one more row, so that they add up to `cycles`."""
        if self.drain.get("cycles"):
            rows[DRAIN] = {"cycles": self.drain["cycles"], "seconds": self.drain["seconds"], "kernels": 0}
        return rows

    def by_layer(self, depth: int | None = None) -> dict:
        """{module path: {"cycles", "seconds", "kernels"}}: where in the model the time went, from the
        module each kernel's ops came from (cut to its first `depth` names: depth=2 gives "layers.3").
        A kernel fusing ops of several modules counts in the module they share ("(model)" for none)."""
        def key(k):
            path = ".".join(k.module.split(".")[:depth]) if depth else k.module
            return path or "(model)"
        return self._with_drain(_summed((key(k), k) for k in self.kernels))

    def by_phase(self) -> dict:
        """{phase: {"cycles", "seconds", "kernels", "bound"}}: a training step split into forward, backward
        and optimizer (PHASES order; phases with no kernel left out). "bound": {bound: cycles} of its kernels.
        The end-of-run drain of a carried memory state is no phase's: `drain` holds it."""
        out = {}
        for phase in PHASES:
            mine = [k for k in self.kernels if k.phase == phase]
            if mine:
                row = _summed((phase, k) for k in mine)[phase]
                row["bound"] = {b: v["cycles"] for b, v in _summed((k.bound, k) for k in mine).items()}
                out[phase] = row
        return out

    def to_dict(self) -> dict:
        return {"config": self.config, "cycles": self.cycles, "seconds": self.seconds, "coverage": self.coverage,
                "joules": self.joules, "watts": self.watts, "energy_components": self.energy_by_component(),
                "timing_only": self.timing_only, "index_distribution": self.index_distribution,
                "memory_state": self.memory_state, "drain": dict(self.drain), "memory_moves": self.memory_moves(),
                "llc_by_op_class": self.llc_by_op_class(),
                "index_inputs": dict(self.index_inputs), "by_op_class": self.by_op_class(),
                "by_layer": self.by_layer(), "by_phase": self.by_phase(),
                "simulated_ops": self.simulated_ops, "not_simulated": dict(self.not_simulated),
                "eager_ops": dict(self.eager_ops), "graphs_run": self.graphs_run, "graphs_compiled": self.graphs_compiled,
                "transfers": asdict(self.transfers), "cache_hits": self.cache_hits, "compiles": self.compiles,
                "wall_seconds": self.wall_seconds, "kernels": [k.as_row() for k in self.kernels]}

    def kernel_reports(self) -> list[tuple[str, object]]:
        """(name, simulator report) of each kernel launch, in order: what a chart of the run plots
        (the chart itself is the application's: mtiasim.plots.model_roofline_chart)."""
        return [(k.name, k.report) for k in self.kernels]

    def launch_labels(self) -> list[str]:
        """Each launch's label, in order: its kernel's full name and the module its ops came from, so that
        one kernel run for three layers (q, k and v projections) reads as three rows. Row i of `table` and
        point i + 1 of the roofline chart (mtiasim.plots.model_roofline_chart) are launch i."""
        return [f"{k.name} ({k.module})" if k.module else k.name for k in self.kernels]

    def table(self) -> str:
        """The per-kernel table and the totals, as `mtiasim model` prints them: names whole, each row
        numbered as the chart numbers its point."""
        rows = [(str(i), k.name, k.module or "-", ", ".join(op.removeprefix("aten.") for op in k.aten_ops),
                 "x".join(str(g) for g in k.grid if g != 1) or "1", f"{k.cycles:,}", f"{k.seconds * 1e6:.2f}",
                 f"{k.roofline_fraction:.1%}", k.bound) for i, k in enumerate(self.kernels, 1)]
        names = ("#", "kernel", "module", "aten ops", "grid", "cycles", "us", "roofline", "bound")
        right = (True, False, False, False, True, True, True, True, False)
        widths = [max([len(n)] + [len(r[c]) for r in rows]) for c, n in enumerate(names)]

        def line(cells):
            return "  ".join(v.rjust(w) if r else v.ljust(w) for v, w, r in zip(cells, widths, right)).rstrip()
        head = line(names)
        lines = [head, "-" * len(head)] + [line(r) for r in rows]
        lines.append("-" * len(head))
        host = ", ".join(f"{op} x{n}" for op, n in sorted(self.not_simulated.items())) or "none"
        lines.append(f"total {self.cycles:,} cycles = {self.seconds * 1e6:.2f} us on {self.config} in "
                     f"{len(self.kernels)} kernel launches ({self.cache_hits} cache hits, {self.compiles} compiled)")
        if self.joules:
            lines.append(f"energy {self.joules * 1e3:.4g} mJ, {self.watts:.1f} W average over the simulated time")
        lines.append(f"coverage {self.coverage:.1%} of {self.simulated_ops + self.host_ops} ATen compute ops "
                     f"simulated; on the host: {host}")
        if self.eager_ops:
            eager = ", ".join(f"{op} x{n}" for op, n in sorted(self.eager_ops.items()))
            lines.append(f"run by plain PyTorch outside the {self.graphs_run} compiled graph(s) (Dynamo's graph "
                         f"breaks): {eager}")
        t = self.transfers
        lines.append(f"host <-> device: {t.to_device} tensors in ({t.to_device_bytes / 1e6:.3g} MB), {t.to_host} back "
                     f"({t.to_host_bytes / 1e6:.3g} MB); {t.stayed} intermediates stayed in simulated DRAM")
        classes = ", ".join(f"{c} {v['seconds'] / self.seconds:.0%}" for c, v in self.by_op_class().items()) \
            if self.seconds else "none"
        lines.append(f"by op class: {classes}")
        llc = ", ".join(f"{c} {v['hit_rate']:.0%}" for c, v in self.llc_by_op_class().items()
                        if v["hits"] + v["misses"])
        lines.append(f"LLC hit rate by op class: {llc or 'no DRAM lines touched'}")
        m = self.memory_moves()
        if self.memory_state == "carried":
            lines.append(f"memory state carried between kernels: {m['warm_read_bytes'] / 1e6:.3g} MB of reads found "
                         f"warm, {m['dirty_writeback_bytes'] / 1e6:.3g} MB of earlier kernels' dirty lines written "
                         f"back; {m['drained_bytes'] / 1e6:.3g} MB left dirty drained at the end "
                         f"({m['drain_cycles']:,} cycles, in the total)")
        else:
            lines.append("memory state: isolated kernels (each on a cold LLC; nothing written back at the end)")
        phases = self.by_phase()
        if set(phases) != {"forward"}:
            lines.append("by phase: " + ", ".join(f"{p} {v['cycles']:,} cycles in {v['kernels']} launches"
                                                  for p, v in phases.items()))
        if self.timing_only:
            lines.append(f"timing only (no outputs computed); index tensors: {self.index_distribution or 'none'}")
        lines.append(f"simulated in {self.wall_seconds:.2f} s of host time")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()
