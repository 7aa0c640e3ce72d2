"""What a run reports: time, work by engine, bytes by memory level, engine utilisation, and where
the run sits against the roofline of its config.

Work is the kernel's own: a DPE command counts 2MNK of the elements its operands hold data in (a
masked load's padding is not work; simulator/pe/dpe.py), and `dpe_issued` is what the MAC array spent
its time on, padding included. FLOP/s and FLOP/B are of the useful work.

The roofline floor is the shortest time the config allows for this run: each unit's share at its
peak (the DPE's issued MACs, the SE's, RE's and vector cores' operations, the bytes the MLU lays
out), every DRAM (or SRAM) byte at full bandwidth, or the busiest NoC link's bytes at its bandwidth
(`noc`: the PEs of a half-row share one link into their crossbar), whichever is longest. A run can never beat it; `fraction`
("% of roof", the one figure of that name in every report, table and chart) is floor / actual, and
`bound` names the unit that sets the floor: dpe, se, re, vector, mlu, dram, sram or noc.

The compulsory floor judges the traffic itself: the bytes the kernel's arguments must move at least
once (each array read counts the DRAM lines of it the run touched, each array written those again: all
of a dense operand, the named rows of a gathered table; simulator/chip/footprint.py) at DRAM (arrays in DRAM)
and SRAM (all of them) bandwidth, and the useful work at each unit's peak. A kernel that moves 7x
those bytes shows it here, however well it uses the bandwidth it spends: its roofline fraction is
measured against its own traffic, its compulsory `fraction` against what the kernel must move, and
the two stand side by side wherever either is shown. A write-back LLC may still hold up to its size
of the outputs when the run ends, so only written bytes past that size must reach DRAM; only a warm
LLC (an earlier run on the same machine) can then beat the floor.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from . import energy as energy_model
from .energy import Energy
from .hints import hints

ENGINES = ("dpe", "se", "re", "mlu", "dma")
COMPUTE_UNITS = ("dpe", "se", "re", "vector")        # the units with a compute floor (and a FLOP/s roof)
ENGINE_UNITS = (*COMPUTE_UNITS, "mlu")               # ... and the MLU, whose work is bytes it lays out
UNITS = (*ENGINE_UNITS, "dram", "sram", "noc")       # every floor, and so every bound a run can have


@dataclass
class Roofline:
    flops: float                      # useful operations of every engine (FLOPs for floats, ops for ints)
    dram_bytes: float
    sram_bytes: float
    compute_roof: str                 # the compute unit whose floor is longest ("dpe:f16", "se", "vector")
    peak_flops: float                 # that unit's peak, in FLOP/s
    dram_bandwidth: float             # bytes/s
    sram_bandwidth: float             # bytes/s
    arithmetic_intensity: float       # useful FLOPs per DRAM byte (inf when nothing touched DRAM)
    floors: dict[str, float]          # seconds each unit alone needs, by unit (UNITS)
    floor_seconds: float
    bound: str                        # the unit that sets the floor: one of UNITS
    attainable_flops: float           # flops / floor_seconds
    achieved_flops: float             # flops / seconds
    fraction: float                   # floor_seconds / seconds, in (0, 1]: "% of roof"
    issued_flops: float = 0.0         # flops with the DPE's padded work in place of its useful work


@dataclass
class Compulsory:
    dram_bytes: float                 # argument bytes in DRAM, read once and written once
    sram_bytes: float                 # every argument byte, read once and written once
    floors: dict[str, float]          # seconds: compute (useful work at peak), dram, sram
    floor_seconds: float
    dram_ratio: float                 # DRAM bytes this run moved / dram_bytes (nan when 0)
    sram_ratio: float                 # SRAM bytes this run moved / sram_bytes
    fraction: float = 0.0             # floor_seconds / the run's seconds: "% of compulsory"
    argument_bytes: float = 0.0       # the arguments' whole sizes, read once and written once (sram_bytes
                                      # is less where the run touched only part of one: a gather's table)


@dataclass
class Report:
    kernel: str
    config: str
    grid: tuple
    cycles: float
    seconds: float
    commands: int
    instructions: int
    ops: dict[str, float]                     # by engine
    bytes: dict[str, float]                   # dram_read, dram_write, sram, ls, dma
    llc: dict[str, int]
    utilization: dict[str, float]             # mean busy fraction of each engine over the PEs that ran
    per_pe: list[dict[str, float]]            # busy fraction of each engine on each PE
    roofline: Roofline
    wall_seconds: float
    numerics: bool = True
    log: list = field(default_factory=list)
    # why engines could not work: engine -> reason -> fraction of the run, averaged over the PEs that
    # ran (reasons: see simulator/pe/engine.py; "data a" = waiting for a tile of CB a to be written)
    stalls: dict[str, dict[str, float]] = field(default_factory=dict)
    compulsory: Compulsory | None = None
    # DRAM channel time by use, as fractions of (channels x run): data, ecc, activate, turnaround, refresh
    # (these add up to the channels' busy time, at most all of it), and after_end: write-backs still
    # booked on the channels when the run ended (nothing waited for them), not part of the run
    dram: dict[str, float] = field(default_factory=dict)
    dpe_issued: float = 0.0                   # the DPE's FLOPs as issued: ops["dpe"] plus its tiles' padding
    energy: Energy | None = None              # joules by component, watts, perf/W (simulator/energy.py)
    transfers: int = 0                        # DMA commands (transfers) the run issued
    hints: list = field(default_factory=list)  # why it is slow and what to try (simulator/hints.py)
    # a sampled launch: {"programs_per_pe": [m1, m2], "waves": n, "programs": N}; the counts extend the
    # runs of m1 and m2 programs per PE to the n waves, and with {"loop_trips": [t1, t2], "trips": T} runs
    # whose K loop stopped after t1 and t2 trips to its T (simulator/sampling.py); {} for a launch run whole
    sampled: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), default=_jsonable, **kw)

    def row(self) -> dict:
        """A flat dict: one table row per run (sweeps, CSV)."""
        r = {"kernel": self.kernel, "config": self.config, "cycles": self.cycles, "seconds": self.seconds,
             "commands": self.commands, "instructions": self.instructions, "wall_seconds": self.wall_seconds}
        r.update({f"ops_{k}": v for k, v in self.ops.items()})
        r["ops_dpe_issued"] = self.dpe_issued
        r.update({f"bytes_{k}": v for k, v in self.bytes.items()})
        r.update({f"llc_{k}": v for k, v in self.llc.items()})
        r.update({f"util_{k}": v for k, v in self.utilization.items()})
        for k in ENGINES:               # each engine's main reason to wait, and its share ("" if it never ran)
            reasons = self.stalls.get(k, {})
            top = max(reasons, key=reasons.get, default="")
            r[f"stall_{k}"], r[f"stall_{k}_fraction"] = top, reasons.get(top, 0.0)
        rf = self.roofline
        r.update({"flops": rf.flops, "arithmetic_intensity": rf.arithmetic_intensity, "peak_flops": rf.peak_flops,
                  "compute_roof": rf.compute_roof, "floor_seconds": rf.floor_seconds, "bound": rf.bound,
                  "attainable_flops": rf.attainable_flops, "achieved_flops": rf.achieved_flops,
                  "roofline_fraction": rf.fraction, "issued_flops": rf.issued_flops})
        r.update({f"dram_{k}": v for k, v in self.dram.items()})
        if self.compulsory is not None:
            c = self.compulsory
            r.update({"compulsory_floor_seconds": c.floor_seconds, "compulsory_fraction": c.fraction,
                      "compulsory_dram_ratio": c.dram_ratio, "compulsory_sram_ratio": c.sram_ratio})
        if self.energy is not None:
            en = self.energy
            r.update({"joules": en.joules, "watts": en.watts, "peak_watts": en.peak_watts,
                      "tflops_per_watt": en.flops_per_joule / 1e12, "dram_gbps_per_watt": en.dram_bytes_per_joule / 1e9,
                      "dram_energy_share": en.dram_share,
                      "above_tdp": int(en.above_tdp)})          # 0/1: a number in CSV and Parquet alike
            r.update({f"joules_{k}": v for k, v in en.components.items()})
        return r

    def __str__(self) -> str:
        return format_report(self)


def _jsonable(o):
    if isinstance(o, float):
        return repr(o)
    return str(o)


def _si(v: float, unit: str) -> str:
    for scale, p in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            return f"{v / scale:.3g} {p}{unit}"
    return f"{v:.3g} {unit}"


def format_report(r: Report) -> str:
    rf = r.roofline
    padded = r.dpe_issued - r.ops.get("dpe", 0.0)
    work = [f"{k} {_si(v, 'op')}" + (f" ({_si(r.dpe_issued, 'op')} issued, with the padding of masked tiles)"
                                     if k == "dpe" and padded > 0.5 else "")
            for k, v in r.ops.items() if v]
    lines = [
        f"{r.kernel} on {r.config}, grid {r.grid}{'' if r.numerics else ' (timing only)'}",
        f"  time        {r.cycles:,.0f} cycles = {r.seconds * 1e6:,.2f} us   "
        f"({r.commands:,} commands, {r.instructions:,} instructions, simulated in {r.wall_seconds:.2f} s)",
        "  work        " + (", ".join(work) or "no arithmetic"),
        f"  memory      DRAM {_si(r.bytes['dram_read'], 'B')} read + {_si(r.bytes['dram_write'], 'B')} written, "
        f"SRAM {_si(r.bytes['sram'], 'B')}, LS {_si(r.bytes['ls'], 'B')}; LLC {r.llc['hits']:,} hits / "
        f"{r.llc['misses']:,} misses" + _llc_extra(r.llc),
        "  engines     " + "  ".join(f"{k} {100 * v:5.1f}%" for k, v in r.utilization.items()),
        f"  roofline    {100 * rf.fraction:.1f}% of roof, bound by {rf.bound}: "
        + (f"{_si(rf.achieved_flops, 'FLOP/s')} achieved of {_si(rf.attainable_flops, 'FLOP/s')} attainable; "
           if rf.flops else "")
        + f"DRAM {_si(rf.dram_bytes / r.seconds if r.seconds else 0, 'B/s')} of {_si(rf.dram_bandwidth, 'B/s')}"
        + (f"; intensity {rf.arithmetic_intensity:.3g} FLOP/B, compute roof {rf.compute_roof} "
           f"{_si(rf.peak_flops, 'FLOP/s')}" if rf.flops else ""),
        "  floors      " + ", ".join(f"{k} {v * 1e6:,.2f} us" for k, v in rf.floors.items()
                                     if v or k not in ENGINE_UNITS),
    ]
    if r.dram.get("data"):
        lines.insert(4, "  dram        " + format_dram(r.dram))
    if r.sampled:
        lines.insert(2, "  sampled     " + format_sampled(r.sampled))
    c = r.compulsory
    if c is not None and c.sram_bytes:
        moved = (f"moved {c.dram_ratio:.2f}x those bytes from DRAM, " if c.dram_bytes else "moved ") + \
                f"{c.sram_ratio:.2f}x through SRAM"
        lines.append(f"  compulsory  {100 * c.fraction:.1f}% of the compulsory floor: dram {c.floors['dram'] * 1e6:,.2f} us, "
                     f"sram {c.floors['sram'] * 1e6:,.2f} us ({_si(c.sram_bytes, 'B')} of arguments{_part(c)}, each read or "
                     f"written once); {moved}")
    stalls = format_stalls(r.stalls)
    if stalls:
        lines.append("  stalls      " + stalls)
    if r.energy is not None:
        lines += energy_model.format_energy(r.energy, rf.flops, rf.dram_bytes, rf.bound)
    lines += [f"  {'hints' if i == 0 else '':<10}  {h}" for i, h in enumerate(r.hints)]
    return "\n".join(lines)


def _llc_extra(llc: dict) -> str:
    parts = [f"{llc[k]:,} {name}" for k, name in (("fill_waits", "waits on fills"), ("prefetched", "prefetched"),
                                                  ("warm_hits", "hits left by earlier launches"),
                                                  ("warm_writebacks", "write-backs of earlier launches' dirty lines"))
             if llc.get(k)]
    if llc.get("dirty_bytes"):
        parts.append(f"{_si(llc['dirty_bytes'], 'B')} dirty")
    return (", " + ", ".join(parts)) if parts else ""


def format_dram(d: dict) -> str:
    """How the DRAM channels spent the run: busy, and of it, data and each loss."""
    busy = sum(v for k, v in d.items() if k != "after_end")
    parts = [f"data {100 * d['data']:.1f}%"] + [f"{k} {100 * d[k]:.1f}%" for k in ("refresh", "turnaround", "activate",
                                                                               "ecc") if d.get(k, 0) >= 0.0005]
    after = d.get("after_end", 0.0)
    tail = f"; write-backs queued past the end: {100 * after:.1f}% more" if after >= 0.0005 else ""
    return f"channels {100 * busy:.1f}% busy: " + ", ".join(parts) + tail


def format_sampled(sampled: dict) -> str:
    """What a sampled launch simulated (`Report.sampled`), in words."""
    parts = []
    if "programs_per_pe" in sampled:
        m1, m2 = sampled["programs_per_pe"]
        parts.append(f"{m2} of {sampled['waves']} programs per PE simulated (and {m1} in another run)")
    if "trips" in sampled:
        t1, t2 = sampled["loop_trips"]
        parts.append(f"{t2} of {sampled['trips']} trips of the K loop (and {t1} in another run)")
    return "; ".join(parts) + "; the rest extended from their difference (simulator/sampling.py)"


def format_stalls(stalls: dict, top: int = 2, at_least: float = 0.01) -> str:
    """The two largest stall reasons of each engine that ran (at least 1% of the run)."""
    parts = []
    for eng, reasons in stalls.items():
        big = sorted(((v, k) for k, v in reasons.items() if v >= at_least), reverse=True)[:top]
        if big:
            parts.append(f"{eng} " + ", ".join(f"{k} {100 * v:.0f}%" for v, k in big))
    return "; ".join(parts)


def build_report(machine, program, wall: float) -> Report:
    cfg = machine.cfg
    cycles = float(machine.env.now)
    hz = cfg.clock_ghz * 1e9
    seconds = cycles / hz
    active = [pe for pe in machine.pes if len(pe.pids)]
    ops = {k: sum(pe.engines[k].ops for pe in machine.pes) for k in ("dpe", "se", "re")}
    vec = [pe.core.vec.stats() for pe in machine.pes]
    ops["vector"] = float(sum(v["ops"] for v in vec))
    per_pe = []
    for pe in machine.pes:
        per_pe.append({k: (pe.engines[k].busy / cycles if cycles else 0.0) for k in ENGINES}
                      | {"core": (pe.core.busy / cycles if cycles else 0.0)})
    util = {k: (sum(per_pe[pe.index][k] for pe in active) / len(active) if active else 0.0)
            for k in (*ENGINES, "core")}
    stalls: dict[str, dict[str, float]] = {}
    share = 1.0 / (cycles * len(active)) if cycles and active else 0.0
    for k in ENGINES:
        for eng in (pe.engines[k] for pe in active if pe.engines[k].commands):
            per = stalls.setdefault(k, {})
            for reason, c in eng.stalls.items():
                per[reason] = per.get(reason, 0.0) + c * share
            per["done"] = per.get("done", 0.0) + max(0.0, cycles - eng.last_end) * share
    ms = machine.memsys
    dram = ms.dram_read + ms.dram_write
    use = ms.dram.totals(until=cycles)          # (channel time booked past the run's end kept apart)
    span = cycles * ms.dram.n
    dram_use = {k: (use[k] / span if span else 0.0)
                for k in ("data", "ecc", "activate", "turnaround", "refresh", "after_end")}
    by = {"dram_read": float(ms.dram_read), "dram_write": float(ms.dram_write), "sram": float(ms.sram_bytes),
          "ls": float(sum(pe.ls_port.bytes for pe in machine.pes)),
          "dma": float(sum(pe.engines["dma"].bytes for pe in machine.pes))}
    # each compute unit's floor: its work at chip-wide peak (the DPE's as issued: padding takes its time)
    issued, useful = {}, {}
    for pe in machine.pes:
        dpe = pe.engines["dpe"]
        for dt, v in dpe.ops_by_dtype.items():
            issued[dt] = issued.get(dt, 0.0) + v
        for dt, v in dpe.useful_by_dtype.items():
            useful[dt] = useful.get(dt, 0.0) + v
    ops["dpe"] = sum(useful.values())
    dpe_issued = float(sum(pe.engines["dpe"].ops for pe in machine.pes))
    peaks = {"se": cfg.pe.se.elems_per_cycle * cfg.num_pes * hz, "re": cfg.pe.re.elems_per_cycle * cfg.num_pes * hz}
    vec_by_dtype: dict[str, float] = {}
    for v in vec:
        for dt, n in v["ops_by_dtype"].items():
            vec_by_dtype[dt] = vec_by_dtype.get(dt, 0.0) + n

    def compute_floors(dpe_by_dtype: dict) -> dict:
        return {"dpe": sum(v / cfg.dpe_peak_flops(dt) for dt, v in dpe_by_dtype.items()),
                "se": ops["se"] / peaks["se"], "re": ops["re"] / peaks["re"],
                "vector": float(sum(n / (cfg.pe.vector.ops_per_cycle.get(dt, 1) * cfg.num_pes * hz)
                                    for dt, n in vec_by_dtype.items()))}
    floors = compute_floors(issued)
    unit = max(COMPUTE_UNITS, key=floors.get)
    mlu_peak = cfg.pe.mlu.bytes_per_cycle * cfg.num_pes * hz
    floors["mlu"] = sum(pe.engines["mlu"].bytes for pe in machine.pes) / mlu_peak
    if unit == "dpe" and issued:
        dt = max(issued, key=issued.get)
        compute_roof, peak = f"dpe:{dt}", cfg.dpe_peak_flops(dt)
    elif unit in peaks and floors[unit]:
        compute_roof, peak = unit, peaks[unit]
    elif unit == "vector" and floors[unit]:
        compute_roof, peak = "vector", sum(vec_by_dtype.values()) / floors["vector"]   # its mix's rate
    else:
        compute_roof, peak = "dpe:f16", cfg.dpe_peak_flops("f16") if "f16" in cfg.pe.dpe.macs_per_cycle else peaks["se"]
    dram_bw = cfg.dram.bandwidth_gbps * 1e9
    sram_bw = cfg.sram.gbps * 1e9
    floors |= {"dram": dram / dram_bw, "sram": ms.sram_bytes / sram_bw, "noc": noc_floor(ms, cfg)}
    floor = max(floors.values())
    bound = max(floors, key=floors.get)
    flops = sum(ops.values())
    rf = Roofline(
        flops=flops, dram_bytes=float(dram), sram_bytes=float(ms.sram_bytes), compute_roof=compute_roof,
        peak_flops=peak, dram_bandwidth=dram_bw, sram_bandwidth=sram_bw,
        arithmetic_intensity=flops / dram if dram else float("inf"), floors=floors, floor_seconds=floor,
        bound=bound, attainable_flops=flops / floor if floor else 0.0,
        achieved_flops=flops / seconds if seconds else 0.0, fraction=floor / seconds if seconds else 0.0,
        issued_flops=flops - ops["dpe"] + dpe_issued)
    comp = compulsory(machine, max(compute_floors(useful).values()), dram, ms.sram_bytes, seconds)
    energy, machine.power_timeline = energy_model.measure(machine, cycles, flops)
    transfers = sum(pe.engines["dma"].commands for pe in machine.pes)
    programs = machine.grid[0] * machine.grid[1] * machine.grid[2]
    advice = hints(cfg, rf.fraction, programs, transfers, by["dma"], util.get("dma", 0.0), dram_use, ops["dpe"],
                   dpe_issued, bound)
    return Report(
        kernel=program.name, config=cfg.name, grid=machine.grid, cycles=cycles, seconds=seconds,
        commands=sum(pe.core.issued for pe in machine.pes),
        instructions=sum(pe.core.instructions for pe in machine.pes), ops=ops, bytes=by,
        llc={"hits": ms.llc.hits, "misses": ms.llc.misses, "fill_waits": ms.llc.fill_waits,
             "writebacks": ms.llc.writebacks, "prefetched": ms.prefetched, "discarded": ms.discarded,
             "dirty_bytes": ms.llc.dirty_lines() * ms.line,
             # reads that found lines an earlier launch left, and dirty lines an earlier launch left that
             # this one wrote back (both 0 on a fresh LLC: chip/memory_state.py carries one between launches)
             "warm_hits": ms.llc.warm_hits, "warm_writebacks": ms.llc.warm_writebacks},
        utilization=util, per_pe=per_pe, roofline=rf,
        wall_seconds=wall, numerics=machine.numerics, log=list(machine.log),
        stalls={k: dict(sorted(v.items(), key=lambda kv: -kv[1])) for k, v in stalls.items()},
        compulsory=comp, dram=dram_use, dpe_issued=dpe_issued, energy=energy, transfers=transfers, hints=advice)


def noc_floor(ms, cfg) -> float:
    """Seconds the busiest NoC link carries data: a half-row of PEs reaches its crossbar through one
    link (chip/noc.py), so the PEs behind it share its bandwidth however the SRAM keeps up."""
    busiest = max((link.bytes for link in ms.noc.links.values()), default=0)
    return busiest / (cfg.noc.link_gbps * 1e9)


def _part(c: Compulsory) -> str:
    """How much of the arguments the run touched, where that is not all of them."""
    if c.argument_bytes and c.sram_bytes < 0.999 * c.argument_bytes:
        return f" it touched, of {_si(c.argument_bytes, 'B')} in all"
    return ""


def compulsory(machine, compute_floor: float, dram_moved: float, sram_moved: float, seconds: float) -> Compulsory:
    """The floor of the bytes the arguments must move: every array argument the run read counts its
    size once, every one it wrote once more (at DRAM: less what a write-back LLC can keep dirty)."""
    cfg, ms = machine.cfg, machine.memsys
    dram_read = dram_written = sram_b = sizes = 0.0
    seen = set()
    for addr in getattr(machine, "arg_addrs", ()):
        a = machine.gmem.find(addr)
        if a is None or a.base in seen:
            continue
        seen.add(a.base)
        how = ms.touched.get(a.base, 0)
        read, written = a.data.size * (how & 1), a.data.size * (how >> 1)
        sizes += read + written
        if a.region == "dram" and a.data.size:
            # only the lines it touched: a gather reads the rows its indices name, not the whole table
            first, last = a.base // ms.line, (a.base + a.data.size - 1) // ms.line
            read = min(read, ms.footprint.lines_in(first, last, False) * ms.line)
            written = min(written, ms.footprint.lines_in(first, last, True) * ms.line)
        sram_b += read + written
        if a.region == "dram":
            dram_read, dram_written = dram_read + read, dram_written + written
    kept = cfg.sram.llc_mib * 2**20 if ms.write_back else 0       # outputs the LLC may hold when the run ends
    dram_b = dram_read + max(0.0, dram_written - kept)
    floors = {"compute": compute_floor, "dram": dram_b / (cfg.dram.bandwidth_gbps * 1e9),
              "sram": sram_b / (cfg.sram.gbps * 1e9)}
    floor = max(floors.values())
    return Compulsory(dram_bytes=dram_b, sram_bytes=sram_b, argument_bytes=sizes, floors=floors, floor_seconds=floor,
                      dram_ratio=dram_moved / dram_b if dram_b else float("nan"),
                      sram_ratio=sram_moved / sram_b if sram_b else float("nan"),
                      fraction=floor / seconds if seconds else 0.0)


def combine(reports: list[Report], kernel: str) -> Report:
    """Several launches run one after another as one report: times, work and bytes add up, busy
    fractions are weighted by each launch's time, and the roofline floor is the sum of the floors
    (each launch must respect its own)."""
    if len(reports) == 1:
        return reports[0]
    total = sum(r.cycles for r in reports)
    secs = sum(r.seconds for r in reports)

    def add(key):
        out: dict = {}
        for r in reports:
            for k, v in getattr(r, key).items():
                out[k] = out.get(k, 0) + v
        return out

    def weighted(dicts):
        out: dict = {}
        for r, d in zip(reports, dicts):
            for k, v in d.items():
                out[k] = out.get(k, 0.0) + v * (r.cycles / total if total else 0.0)
        return out
    per_pe = [weighted([r.per_pe[i] for r in reports]) for i in range(len(reports[0].per_pe))]
    stalls = {k: weighted([r.stalls.get(k, {}) for r in reports]) for k in {k for r in reports for k in r.stalls}}
    rfs = [r.roofline for r in reports]
    floors = {k: sum(rf.floors.get(k, 0.0) for rf in rfs) for k in rfs[0].floors}
    floor = sum(rf.floor_seconds for rf in rfs)
    flops = sum(rf.flops for rf in rfs)
    dram = sum(rf.dram_bytes for rf in rfs)
    main = max(rfs, key=lambda rf: rf.flops)
    rf = Roofline(flops=flops, dram_bytes=dram, sram_bytes=sum(rf.sram_bytes for rf in rfs),
                  compute_roof=main.compute_roof, peak_flops=main.peak_flops, dram_bandwidth=main.dram_bandwidth,
                  sram_bandwidth=main.sram_bandwidth, arithmetic_intensity=flops / dram if dram else float("inf"),
                  floors=floors, floor_seconds=floor, bound=max(floors, key=floors.get),
                  attainable_flops=flops / floor if floor else 0.0, achieved_flops=flops / secs if secs else 0.0,
                  fraction=floor / secs if secs else 0.0, issued_flops=sum(rf.issued_flops for rf in rfs))
    return Report(kernel=kernel, config=reports[0].config, grid=reports[-1].grid, cycles=total, seconds=secs,
                  commands=sum(r.commands for r in reports), instructions=sum(r.instructions for r in reports),
                  ops=add("ops"), bytes=add("bytes"), llc=add("llc"), utilization=weighted([r.utilization for r in reports]),
                  per_pe=per_pe, roofline=rf, wall_seconds=sum(r.wall_seconds for r in reports),
                  numerics=all(r.numerics for r in reports), log=[x for r in reports for x in r.log],
                  stalls=stalls, compulsory=_combine_compulsory(reports), dram=weighted([r.dram for r in reports]),
                  dpe_issued=sum(r.dpe_issued for r in reports), transfers=sum(r.transfers for r in reports),
                  hints=list(dict.fromkeys(h for r in reports for h in r.hints)),
                  energy=(energy_model.combine([r.energy for r in reports], secs, flops, dram)
                          if all(r.energy is not None for r in reports) else None))


def _combine_compulsory(reports: list[Report]) -> Compulsory | None:
    cs = [r.compulsory for r in reports]
    if any(c is None for c in cs):
        return None
    dram_b, sram_b = sum(c.dram_bytes for c in cs), sum(c.sram_bytes for c in cs)
    floors = {k: sum(c.floors[k] for c in cs) for k in cs[0].floors}
    moved_d = sum(r.bytes["dram_read"] + r.bytes["dram_write"] for r in reports)
    moved_s = sum(r.bytes["sram"] for r in reports)
    floor, secs = sum(c.floor_seconds for c in cs), sum(r.seconds for r in reports)
    return Compulsory(dram_bytes=dram_b, sram_bytes=sram_b, argument_bytes=sum(c.argument_bytes for c in cs), floors=floors, floor_seconds=floor,
                      dram_ratio=moved_d / dram_b if dram_b else float("nan"),
                      sram_ratio=moved_s / sram_b if sram_b else float("nan"),
                      fraction=floor / secs if secs else 0.0)
