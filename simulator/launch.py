"""How a launch is laid out and bounded, defined once for both executors (the simulated machine, and
the compiler's reference interpreter through the runtime):

- placement: which PE runs each program id under a mapping strategy (`pe_mapping`), so that
  `tl.mtia.get_pe_id()` is the same on both;
- the step limit: how many steps one program may take before the launch stops with a
  `StepLimitError` naming the kernel, program id, PE and instruction where it stopped;
- the program limit: how many programs one launch may have before it is refused, naming the grid;
- progress: a bar on long launches when stderr is a terminal.
"""
from __future__ import annotations

import os
import sys

import numpy as np

PE_MAPPINGS = ("linear", "round_robin", "zigzag")
DEFAULT_PE_MAPPING = "linear"

# Steps of one program: control-core instructions on the MTIA executor, IR operations in the reference
# interpreter. Real kernels take far fewer (the 2048^3 library matmul: 960 instructions a program; the
# longest library kernel, attention at 16x1024x64, a few thousand), and a program that reaches 2^20
# does so in seconds on either executor, so a kernel that never ends is stopped in seconds too.
DEFAULT_MAX_STEPS = 1 << 20
MAX_STEPS_ENV = "MTIASIM_MAX_STEPS"

# Programs of one launch. Both executors run every program, a few thousand a second for a small one, so
# 2^24 programs take an hour or more, and the largest grid CUDA allows (2^31 - 1 along x) days; the
# MTIA executor's placement also keeps 8 bytes a program. A larger grid is refused at once, naming it,
# instead of running silently for days (or running out of memory); the limit is a launch option.
DEFAULT_MAX_PROGRAMS = 1 << 24
MAX_PROGRAMS_ENV = "MTIASIM_MAX_PROGRAMS"


def check_mapping(mapping: str) -> str:
    if mapping not in PE_MAPPINGS:
        raise ValueError(f"pe_mapping must be one of {', '.join(PE_MAPPINGS)}, got {mapping!r}")
    return mapping


def pe_of(index, num_programs: int, num_pes: int, mapping: str):
    """The PE of program `index` (x fastest, as Triton numbers them); works on arrays of indices.

    linear: contiguous blocks, PE 0 takes the first ceil(n / PEs) ids, PE 1 the next, ...;
    round_robin: id i on PE i mod PEs;
    zigzag: round robin whose direction flips every pass over the PEs (balances triangular work,
    such as causal attention, whose later programs do more)."""
    check_mapping(mapping)
    if mapping == "linear":
        return index // max(1, -(-num_programs // num_pes))
    lane, rnd = index % num_pes, index // num_pes
    if mapping == "round_robin":
        return lane
    return np.where(rnd % 2 == 0, lane, num_pes - 1 - lane) if isinstance(index, np.ndarray) else \
        (lane if rnd % 2 == 0 else num_pes - 1 - lane)


def map_programs(grid: tuple, num_pes: int, mapping: str) -> list[np.ndarray]:
    """The program indices each PE runs, in run order (ascending), one int64 array per PE."""
    n = int(grid[0]) * int(grid[1]) * int(grid[2])
    index = np.arange(n, dtype=np.int64)
    pes = pe_of(index, n, num_pes, mapping)
    order = np.argsort(pes, kind="stable")
    counts = np.bincount(pes, minlength=num_pes) if n else np.zeros(num_pes, np.int64)
    return np.split(index[order], np.cumsum(counts)[:-1])


def program_id(index: int, grid: tuple) -> tuple[int, int, int]:
    """(x, y, z) of program `index`, x fastest."""
    gx, gy = int(grid[0]), int(grid[1])
    return index % gx, index // gx % gy, index // (gx * gy)


def check_cooperative_grid(cooperative, grid: tuple, num_pes: int) -> None:
    """Triton's `launch_cooperative_grid=True` (CUDA's cooperative launch) promises that every program of
    the grid runs at the same time, so programs may wait for each other (a grid-wide barrier). An MTIA
    program runs alongside the others only on a PE of its own, so such a grid has at most one program per
    PE (every mapping then gives each program its own PE); a larger one is refused, as CUDA refuses a
    cooperative grid that does not fit the device at once. False (or absent) promises nothing."""
    if not cooperative:
        return
    n = int(grid[0]) * int(grid[1]) * int(grid[2])
    if n > num_pes:
        raise ValueError(f"launch_cooperative_grid=True: the grid {tuple(grid)} has {n} programs, but only {num_pes} "
                         f"(the config's PEs, one program each) run at the same time")


def max_steps(value=None) -> int:
    """The step limit of a launch: `value` (the `max_steps=` launch option), else the environment's
    MTIASIM_MAX_STEPS, else DEFAULT_MAX_STEPS."""
    return _limit(value, "max_steps", MAX_STEPS_ENV, DEFAULT_MAX_STEPS, "steps one program may take")


def max_programs(value=None) -> int:
    """The program limit of a launch: `value` (the `max_programs=` launch option), else the environment's
    MTIASIM_MAX_PROGRAMS, else DEFAULT_MAX_PROGRAMS."""
    return _limit(value, "max_programs", MAX_PROGRAMS_ENV, DEFAULT_MAX_PROGRAMS, "programs one launch may have")


def _limit(value, option: str, env: str, default: int, what: str) -> int:
    source = option
    if value is None:
        value, source = os.environ.get(env), env
        if value is None:
            return default
    try:
        limit = int(value)
        ok = limit >= 1 and not isinstance(value, bool) and float(value) == limit
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{source} must be a positive integer ({what}), got {value!r}")
    return limit


def check_programs(grid: tuple, limit=None) -> None:
    """Refuse a grid of more programs than the launch's limit (`max_programs`, see DEFAULT_MAX_PROGRAMS)."""
    limit = max_programs(limit)
    n = int(grid[0]) * int(grid[1]) * int(grid[2])
    if n > limit:
        raise ValueError(f"the grid {tuple(grid)} has {n:,} programs, more than the {limit:,} a launch may have "
                         f"(max_programs=, or {MAX_PROGRAMS_ENV}): the simulator runs every program, so this launch "
                         f"would take about {n / 5000 / 3600:,.0f} hours at 5,000 programs a second")


def progress(total: int, what: str):
    """A tqdm bar over `total` programs, shown only when stderr is a terminal and the launch lasts
    more than a second (None otherwise, so short or captured launches print nothing)."""
    if total < 2 or not sys.stderr.isatty():
        return None
    from tqdm import tqdm
    return tqdm(total=total, desc=what, unit="program", delay=1.0, leave=False, file=sys.stderr)
