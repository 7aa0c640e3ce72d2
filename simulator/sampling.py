"""Sampled launches: a timing-only launch of many waves simulated for its first waves, the rest extrapolated.

A production-size kernel runs the same program on every PE wave after wave: a 2048x4096x11008 GEMM in
128x128 tiles is 1,376 programs, 22 waves of 64. Each PE runs its programs one after another
(`simulator.launch.map_programs`), so after the first wave, which fills the pipelines and finds the LLC
cold, every wave costs about the same: the launch's time is a + b x waves. Two runs of the same launch
in which each PE runs only its first m1 and its first m2 programs (`Machine.run(programs_per_pe=)`)
measure that line, and every count the report adds up (cycles, commands, FLOPs, bytes, LLC hits, joules)
is extended along it to the whole launch:

    count(n) = count(m2) + (n - m2) x (count(m2) - count(m1)) / (m2 - m1)

with n the waves of the busiest PE for the time-like counts (cycles, static energy, refresh) and the
launch's programs over those of the sampled runs for the work-like ones. Fractions of the run (engine
utilisation, stalls, the DRAM channels' use) are the second run's, whose later waves are the launch's
steady state; the roofline and the compulsory floor are computed again from the extended counts.

What this assumes, and so where it is wrong: that the waves after the first m2 cost what the wave
between m1 and m2 did. That holds for a grid of equal programs over equal data (GEMM tiles, a
row-wise kernel over many rows, an embedding bag's random rows); it does not for programs whose work
varies along the grid (a causal attention's rows see more keys further down), which the caller must
not sample, nor for the LLC's state at the end: the launch leaves the LLC as its sample did. A report
that was sampled says so (`Report.sampled`) and prints it.

The same line extends a program's K loop (`sampled_loop.py`): runs whose programs leave the loop after
t1 and t2 trips give one trip's cost, and every count grows by it up to the loop's trip count. A launch
sampled both ways runs four times, (m1, m2) x (t1, t2): along the waves at each t, then along the trips.
This assumes each trip after the t2-th costs what the trips between t1 and t2 did: true of a GEMM's K
steps over fresh tiles of A and B, not of a loop whose trips differ between programs, which the run
detects and which is then not shortened.
"""
from __future__ import annotations

import dataclasses

from .report import Compulsory, Report

# the runs' waves: the first wave carries the start-up costs, the second the steady state's
SAMPLE_WAVES = (1, 2)
# a launch is worth sampling from this many waves on (fewer: it costs less than 4x its two runs)
MIN_WAVES = 8
# the K loop's trips in its two runs (`sampled_loop.py`): by the fifth trip the command queues and the
# circular buffers (3 slots) are full, so trips 5 to 8 are the loop's steady state
LOOP_TRIPS = (4, 8)
# a loop is worth shortening from this many trips on (fewer: its runs cost more than a quarter of it)
MIN_TRIPS = 32


def waves(assignment: list) -> int:
    """Programs of the busiest PE (`simulator.launch.map_programs`'s lists)."""
    return max((len(p) for p in assignment), default=0)


def _line(a: float, b: float, k: float) -> float:
    return b + k * (b - a)


def _lines(a: dict, b: dict, k: float) -> dict:
    return {key: _line(a.get(key, 0), v, k) for key, v in b.items()}


def extrapolate(first: Report, second: Report, m1: int, m2: int, waves_: int, programs: int,
                sampled_programs: tuple[int, int], grid: tuple) -> Report:
    """The whole launch's report from runs of m1 and m2 programs per PE (module docstring). `programs`:
    the launch's programs; `sampled_programs`: the programs each run ran; `waves_`: the busiest PE's."""
    s1, s2 = sampled_programs
    return extend(first, second, (waves_ - m2) / (m2 - m1), (programs - s2) / (s2 - s1), grid,
                  {"programs_per_pe": [m1, m2], "waves": waves_, "programs": programs})


def extend_loop(first: Report, second: Report, t1: int, t2: int, trips: int, grid: tuple) -> Report:
    """The report of programs whose K loop runs all its `trips`, from runs that left it after t1 and t2
    (`sampled_loop.py`): time and work both grow by one trip's difference per trip."""
    k = (trips - t2) / (t2 - t1)
    return extend(first, second, k, k, grid, dict(second.sampled) | {"loop_trips": [t1, t2], "trips": trips})


def extend(first: Report, second: Report, kt: float, kw: float, grid: tuple, sampled: dict) -> Report:
    """Every count of `second` extended along its difference from `first`: kt differences for the
    time-like counts (cycles, static energy, refresh), kw for the work-like ones."""
    cycles = _line(first.cycles, second.cycles, kt)
    seconds = _line(first.seconds, second.seconds, kt)
    r1, r2 = first.roofline, second.roofline
    floors = _lines(r1.floors, r2.floors, kw)
    floor = max(floors.values())
    flops, dram = _line(r1.flops, r2.flops, kw), _line(r1.dram_bytes, r2.dram_bytes, kw)
    roofline = dataclasses.replace(
        r2, flops=flops, dram_bytes=dram, sram_bytes=_line(r1.sram_bytes, r2.sram_bytes, kw), floors=floors,
        floor_seconds=floor, bound=max(floors, key=floors.get),
        arithmetic_intensity=flops / dram if dram else float("inf"), attainable_flops=flops / floor if floor else 0.0,
        achieved_flops=flops / seconds if seconds else 0.0, fraction=floor / seconds if seconds else 0.0,
        issued_flops=_line(r1.issued_flops, r2.issued_flops, kw))
    by = _lines(first.bytes, second.bytes, kw)
    llc = _lines(first.llc, second.llc, kw) | {"dirty_bytes": second.llc.get("dirty_bytes", 0)}   # an end state
    return dataclasses.replace(
        second, grid=tuple(grid), cycles=cycles, seconds=seconds,
        commands=round(_line(first.commands, second.commands, kw)),
        instructions=round(_line(first.instructions, second.instructions, kw)),
        ops=_lines(first.ops, second.ops, kw), bytes=by, llc={k: round(v) for k, v in llc.items()},
        roofline=roofline, wall_seconds=first.wall_seconds + second.wall_seconds,
        compulsory=_compulsory(first.compulsory, second.compulsory, kw, by, seconds),
        dpe_issued=_line(first.dpe_issued, second.dpe_issued, kw),
        transfers=round(_line(first.transfers, second.transfers, kw)),
        energy=_energy(first.energy, second.energy, kt, kw, seconds, flops, dram),
        sampled=sampled)


def _compulsory(c1: Compulsory | None, c2: Compulsory | None, kw: float, by: dict, seconds: float):
    """The sampled runs touched part of the arguments: their footprint extended with the work, but never
    past the arguments' whole sizes (a GEMM's tiles of A and B are shared by many programs)."""
    if c1 is None or c2 is None:
        return None
    dram_b = min(_line(c1.dram_bytes, c2.dram_bytes, kw), c2.argument_bytes or float("inf"))
    sram_b = min(_line(c1.sram_bytes, c2.sram_bytes, kw), c2.argument_bytes or float("inf"))
    floors = dict(c2.floors)
    floors["compute"] = _line(c1.floors["compute"], c2.floors["compute"], kw)
    floors["dram"] = c2.floors["dram"] * dram_b / c2.dram_bytes if c2.dram_bytes else 0.0
    floors["sram"] = c2.floors["sram"] * sram_b / c2.sram_bytes if c2.sram_bytes else 0.0
    floor = max(floors.values())
    moved_d, moved_s = by["dram_read"] + by["dram_write"], by["sram"]
    return dataclasses.replace(c2, dram_bytes=dram_b, sram_bytes=sram_b, floors=floors, floor_seconds=floor,
                               dram_ratio=moved_d / dram_b if dram_b else float("nan"),
                               sram_ratio=moved_s / sram_b if sram_b else float("nan"),
                               fraction=floor / seconds if seconds else 0.0)


def _energy(e1, e2, kt: float, kw: float, seconds: float, flops: float, dram: float):
    """Dynamic joules along the work, static power and refresh along the time."""
    if e1 is None or e2 is None:
        return None
    from .energy import STATIC
    timed = set(STATIC) | {"dram_refresh"}
    comps = {k: max(0.0, _line(e1.components.get(k, 0.0), v, kt if k in timed else kw))
             for k, v in e2.components.items()}
    joules = sum(comps.values())
    watts = joules / seconds if seconds else 0.0
    return dataclasses.replace(e2, joules=joules, watts=watts, peak_watts=max(e2.peak_watts, watts),
                               components=comps, flops_per_joule=flops / joules if joules else 0.0,
                               dram_bytes_per_joule=dram / joules if joules else 0.0,
                               above_tdp=watts > e2.tdp_watts)




def steady(second: Report, extended: Report, llc_bytes: int) -> bool:
    """Whether the extension is to be trusted: not where the sample's waves fetched from DRAM what later
    waves will find in the LLC. Where the arguments fit the LLC, a GEMM's first waves bring in most of A
    and B and its later ones hit; extended from them, it would read its arguments many times over. So
    an extension that moves more DRAM bytes than its arguments hold (with 5% to spare), from a sample
    that moved fewer, is refused where the arguments fit the LLC: such a launch runs whole. Where they
    do not fit (a 2048x4096x11008 GEMM's 151 MB on a 128 MB LLC), the waves keep streaming what the LLC
    cannot keep, as the extension says; and a launch whose sample already moves more than its arguments
    keeps doing so at the same rate."""
    c = extended.compulsory
    if c is None or not c.argument_bytes or c.argument_bytes > llc_bytes:
        return True

    def dram(r):
        return r.bytes["dram_read"] + r.bytes["dram_write"]
    return dram(extended) <= 1.05 * c.argument_bytes or dram(second) > c.argument_bytes
