"""What a run cost in energy, by Accelergy's method: the count of each action the simulation did
times the config's energy per action (`energy:` in the YAML, simulator/config.py), plus static power
times the simulated time.

    E = sum_a count_a x e_a + (PEs x pe_static_w + uncore_static_w + dram_static_w) x seconds

The counts are the ones the timing model keeps anyway, so a change that moves cycles moves energy
with them, and timing-only runs count the same:

| component      | count                                                       | energy per action       |
|----------------|-------------------------------------------------------------|-------------------------|
| dpe            | MACs issued by input dtype (padding of masked tiles too)    | dpe_pj_per_mac[dtype]   |
| se, re         | element operations (an FMA counts 2)                        | se_pj_per_op, re_...    |
| mlu            | bytes laid out                                              | mlu_pj_per_byte         |
| vector         | RVV element operations by element type                      | vector_pj_per_op[type]  |
| core           | scalar instructions, and engine commands through the CP     | core_pj_per_instruction, command_pj |
| ls             | local-store port bytes (engines and DMA)                    | ls_pj_per_byte          |
| sram           | bytes through the SRAM                                      | sram_pj_per_byte        |
| noc            | bytes x links crossed (each link's bytes)                   | noc_pj_per_byte_hop     |
| dram           | bits read and written, ECC check bits included              | dram_read/write_pj_per_bit |
| dram_activate  | row activates (with their precharge)                        | dram_activate_pj        |
| dram_refresh   | channels x refresh intervals elapsed (refresh not off)      | dram_refresh_pj         |
| static_pe, static_uncore, static_dram | seconds                              | the three static powers |

Peak power is the highest average over a window of `energy.peak_window_us`: each component's energy
is laid over time in proportion to its activity (engines: their busy cycles per window; SRAM, NoC and
DRAM: the bytes each transfer moved, spread from its request to its end; the control core, vector
core, refresh and static power: evenly over the run). The same windows give the trace's power counters.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

COMPONENTS = ("dpe", "se", "re", "mlu", "vector", "core", "ls", "sram", "noc", "dram", "dram_activate",
              "dram_refresh", "static_pe", "static_uncore", "static_dram")
STATIC = ("static_pe", "static_uncore", "static_dram")
DRAM_PARTS = ("dram", "dram_activate", "dram_refresh", "static_dram")     # DRAM's share of a run
PE_PARTS = ("dpe", "se", "re", "mlu", "vector", "core", "ls", "static_pe")   # what one PE draws
MAX_WINDOWS = 20_000           # a longer run widens its windows (in powers of two) to stay within this
PJ = 1e-12


@dataclass
class Energy:
    joules: float                     # total; the components add up to it
    watts: float                      # joules / seconds: average power over the run
    peak_watts: float                 # highest average power over a window of peak_window_us
    peak_window_us: float             # that window (wider than the config's on very long runs)
    components: dict[str, float]      # joules by component (COMPONENTS)
    static_watts: float               # the chip's static power (PEs, uncore, DRAM background)
    tdp_watts: float                  # the config's TDP
    flops_per_joule: float            # useful FLOPs (or ops) per joule = FLOP/s per W
    dram_bytes_per_joule: float       # DRAM bytes per joule = B/s per W (for memory-bound kernels)
    above_tdp: bool = False           # average power above TDP: a real chip would throttle

    @property
    def dram_share(self) -> float:
        """DRAM's part of the energy: its bits, activates, refresh and background power."""
        return sum(self.components.get(k, 0.0) for k in DRAM_PARTS) / self.joules if self.joules else 0.0


def pe_joules(cfg, pe) -> dict[str, float]:
    """Dynamic energy of one PE's actions, by component (J)."""
    e = cfg.energy
    dpe = pe.engines["dpe"]
    vec = pe.core.vec
    return {
        "dpe": sum(flops / 2 * e.dpe_pj_per_mac[dt] for dt, flops in dpe.ops_by_dtype.items()) * PJ,
        "se": pe.engines["se"].ops * e.se_pj_per_op * PJ,
        "re": pe.engines["re"].ops * e.re_pj_per_op * PJ,
        "mlu": pe.engines["mlu"].bytes * e.mlu_pj_per_byte * PJ,
        "vector": sum(n * vector_pj(e, dt) for dt, n in vec.ops_by_dtype.items()) * PJ,
        "core": (pe.core.instructions * e.core_pj_per_instruction + pe.core.issued * e.command_pj) * PJ,
        "ls": pe.ls_port.bytes * e.ls_pj_per_byte * PJ,
    }


def vector_pj(e, rate: str) -> float:
    """Energy of one vector element operation at `rate` (an element type, or "mask": mask-register bit
    logic, priced as the cheapest element operation, an upper figure for one bit's logic)."""
    table = e.vector_pj_per_op
    return table[rate] if rate in table else min(table.values(), default=0.0)


def static_watts(cfg) -> dict[str, float]:
    e = cfg.energy
    return {"static_pe": cfg.num_pes * e.pe_static_w, "static_uncore": e.uncore_static_w,
            "static_dram": e.dram_static_w}


def memory_joules(cfg, ms, seconds: float) -> dict[str, float]:
    """Energy of the shared memory system's actions (J)."""
    e = cfg.energy
    bits = 8 * cfg.dram_ecc_factor
    refreshes = ms.dram.n * seconds / (cfg.dram.refresh_interval_ns * 1e-9) if cfg.dram.refresh != "off" else 0.0
    return {
        "sram": ms.sram_bytes * e.sram_pj_per_byte * PJ,
        "noc": sum(link.bytes for link in ms.noc.links.values()) * e.noc_pj_per_byte_hop * PJ,
        "dram": (ms.dram_read * e.dram_read_pj_per_bit + ms.dram_write * e.dram_write_pj_per_bit) * bits * PJ,
        "dram_activate": ms.dram.activates * e.dram_activate_pj * PJ,
        "dram_refresh": refreshes * e.dram_refresh_pj * PJ,
    }


def drain_joules(cfg, nbytes: float, seconds: float) -> dict[str, float]:
    """Energy of writing back `nbytes` of dirty lines at the end of a run on a carried memory state
    (compiler/inductor/session.py): the DRAM writes and the static power while they last."""
    e = cfg.energy
    out = {k: w * seconds for k, w in static_watts(cfg).items()}
    out["dram"] = nbytes * 8 * cfg.dram_ecc_factor * e.dram_write_pj_per_bit * PJ
    return out


def measure(machine, cycles: float, useful_flops: float) -> tuple[Energy, "Timeline"]:
    """The run's energy and its power over time (for the trace), from the machine's counters."""
    cfg = machine.cfg
    seconds = cycles / (cfg.clock_ghz * 1e9)
    per_pe = [pe_joules(cfg, pe) for pe in machine.pes]
    comps = dict.fromkeys(COMPONENTS, 0.0)
    for d in per_pe:
        for k, v in d.items():
            comps[k] += v
    comps.update(memory_joules(cfg, machine.memsys, seconds))
    static = static_watts(cfg)
    for k, w in static.items():
        comps[k] = w * seconds
    joules = sum(comps.values())
    timeline = Timeline(machine, cycles, per_pe, comps)
    watts = joules / seconds if seconds else 0.0
    e = cfg.energy
    ms = machine.memsys
    energy = Energy(
        joules=joules, watts=watts, peak_watts=max(timeline.peak_watts(), watts),
        peak_window_us=timeline.window_us, components=comps, static_watts=sum(static.values()),
        tdp_watts=e.tdp_w, flops_per_joule=useful_flops / joules if joules else 0.0,
        dram_bytes_per_joule=(ms.dram_read + ms.dram_write) / joules if joules else 0.0,
        above_tdp=watts > e.tdp_w)
    return energy, timeline


class Timeline:
    """Power over time in windows: the chip's, and each PE's own (its engines, core and static power)."""

    def __init__(self, machine, cycles: float, per_pe: list[dict], comps: dict[str, float]):
        cfg = machine.cfg
        self.cycles = cycles
        width = machine.memsys.window
        n = max(1, math.ceil(cycles / width)) if cycles else 1
        merge = 1
        while n > MAX_WINDOWS:
            merge, n = merge * 2, math.ceil(n / 2)
        self.merge = merge
        self.width = width * merge                       # cycles per window
        self.n = n
        self.seconds_per_cycle = 1 / (cfg.clock_ghz * 1e9)
        self.window_us = self.width * self.seconds_per_cycle * 1e6
        lengths = np.clip(cycles - self.width * np.arange(n), 0.0, self.width) if cycles else np.zeros(n)
        self.lengths = lengths
        pe_static = cfg.energy.pe_static_w * self.seconds_per_cycle
        self.pe_joules: dict[int, np.ndarray] = {}
        chip = np.zeros(n)
        for pe, d in zip(machine.pes, per_pe):
            joules = pe_static * lengths
            engine_busy = self._bins(pe.engines[k].activity for k in ("dpe", "se", "re", "mlu"))
            for k in ("dpe", "se", "re", "mlu"):
                self._lay(joules, d[k], self._bins([pe.engines[k].activity]))
            self._lay(joules, d["ls"], engine_busy)                  # the LS port follows its engines
            self._lay(joules, d["vector"] + d["core"], None)          # the core: evenly
            if joules.any():
                self.pe_joules[pe.index] = joules
            chip += joules
        act = machine.memsys.activity
        sram, dram = self._bins([act["sram"]]), self._bins([act["dram"]])
        self._lay(chip, comps["sram"] + comps["noc"], sram)
        self._lay(chip, comps["dram"] + comps["dram_activate"], dram)
        self._lay(chip, comps["dram_refresh"] + comps["static_uncore"] + comps["static_dram"], None)
        self.chip_joules = chip

    def _bins(self, dicts) -> np.ndarray:
        """Activity by window (engines and memory record at the config's width; merged windows add up;
        what lies past the run's end, write-backs nothing waited for, counts in the last window)."""
        out = np.zeros(self.n)
        for d in dicts:
            for i, v in d.items():
                out[min(i // self.merge, self.n - 1)] += v
        return out

    def _lay(self, joules: np.ndarray, amount: float, weights: np.ndarray | None) -> None:
        """Add `amount` over the windows in proportion to `weights` (evenly in time when none)."""
        if not amount:
            return
        total = float(weights.sum()) if weights is not None else 0.0
        if not total:
            weights, total = self.lengths, float(self.lengths.sum())
        if not total:
            joules[0] += amount
            return
        joules += amount * weights / total

    def watts(self, joules: np.ndarray) -> list[float]:
        """Average power in each window (W)."""
        span = self.lengths * self.seconds_per_cycle
        return np.divide(joules, span, out=np.zeros(self.n), where=span > 0).tolist()

    def peak_watts(self) -> float:
        return max(self.watts(self.chip_joules), default=0.0)


def combine(energies: list[Energy], seconds: float, flops: float, dram_bytes: float) -> Energy:
    """Launches one after another: joules add up, the peak is the highest of theirs."""
    comps = dict.fromkeys(COMPONENTS, 0.0)
    for en in energies:
        for k, v in en.components.items():
            comps[k] = comps.get(k, 0.0) + v
    joules = sum(en.joules for en in energies)
    watts = joules / seconds if seconds else 0.0
    first = energies[0]
    return Energy(joules=joules, watts=watts, peak_watts=max(max(en.peak_watts for en in energies), watts),
                  peak_window_us=max(en.peak_window_us for en in energies), components=comps,
                  static_watts=first.static_watts, tdp_watts=first.tdp_watts,
                  flops_per_joule=flops / joules if joules else 0.0,
                  dram_bytes_per_joule=dram_bytes / joules if joules else 0.0,
                  above_tdp=watts > first.tdp_watts)


def format_energy(en: Energy, flops: float, dram_bytes: float, bound: str) -> list[str]:
    """The report's energy lines: total, average and peak power, efficiency, the largest components,
    and the TDP flag."""
    share = sorted(((v / en.joules if en.joules else 0.0, k) for k, v in en.components.items()), reverse=True)
    parts = ", ".join(f"{k} {100 * s:.0f}%" for s, k in share if s >= 0.01)
    if flops and bound not in ("dram", "sram", "noc"):
        eff = f"{flops / en.joules / 1e12:.3g} TFLOPS/W" if en.joules else "-"
    else:
        eff = f"{dram_bytes / en.joules / 1e9:.3g} GB/s per W of DRAM traffic" if en.joules else "-"
        if flops:
            eff += f" ({flops / en.joules / 1e12:.3g} TFLOPS/W)"
    lines = [f"  energy      {_joules(en.joules)} = {en.watts:.1f} W average, peak {en.peak_watts:.1f} W over "
             f"{en.peak_window_us:.3g} us (static {en.static_watts:.1f} W, TDP {en.tdp_watts:g} W); {eff}",
             f"              by component: {parts}; DRAM {100 * en.dram_share:.0f}% of the energy"]
    if en.above_tdp:
        lines.append(f"  ABOVE TDP   average power {en.watts:.1f} W is above the {en.tdp_watts:g} W TDP: a real chip "
                     f"would throttle, so this run's time is optimistic")
    elif en.peak_watts > en.tdp_watts:
        lines.append(f"  note        peak power {en.peak_watts:.1f} W over {en.peak_window_us:.3g} us exceeds the "
                     f"{en.tdp_watts:g} W TDP (the average does not): a short burst the power delivery must carry")
    return lines


def _joules(j: float) -> str:
    for scale, p in ((1, ""), (1e-3, "m"), (1e-6, "u"), (1e-9, "n")):
        if abs(j) >= scale:
            return f"{j / scale:.3g} {p}J"
    return f"{j / 1e-12:.3g} pJ"
