"""Timing-only launches simulated once: a launch identical to an earlier one reuses its record.

A model's layers launch the same kernels on the same shapes again and again (a 32-layer decoder, 32
times), and an autotuner tries one config at several call sites; a timing-only run's cycles depend
only on what the launch is, so one simulation per distinct launch is enough. A launch is the same
as an earlier one when all of these are:

- the compiled kernel (its final IR, parameters and constexprs, not its name: `kernel_body`);
- the grid, each scalar argument's value, each pointer's element type and offset into its buffer,
  and every buffer's name, address, size, region and guard (the argument shapes, strides and dtypes
  as the runtime lays them out in simulated memory);
- every launch option (num_stages, pe_mapping, the backend switches, sram_resident, ...) and the
  hardware config, all of its values;
- the memory state it starts from: a fresh Machine's, or, for a launch on a carried memory state
  (`memory_state=`), the class of that state, with keys relative to where the buffers lie and the
  launch's effect on the LLC kept to replay (`memo_state.py` says what that class is and why a reuse is
  sound); a launch on a caller's Machine, whose LLC and tracer carry over, is never reused;
- and for a program whose tile data can reach an address or a branch (a gather's indices, a
  data-dependent loop: `simulator.pe.timing_only.is_blind` says no), the bytes of every buffer.

Only the MTIA executor's timing-only runs are kept (`numerics=False`): a run that computes results
always runs. A reused record is a copy of the first one with `reused=True`. The records live in this
process (`_MEMORY`) and in the disk cache (`disk_cache.py`), keyed by the same content, so another
process running the same launches reads them too. `disabled()` turns reuse off (tests that patch the
simulator itself).

`across_placements()` relaxes one part of the key, for a caller that asks: a model's identical layers
launch the same kernels on the same shapes, but each layer's weights lie at their own addresses, so the
exact key never matches across layers. Inside it, a program whose data cannot reach its timing is keyed
by its kernel, grid, scalars, launch options and config, and for each pointer argument by its element
type, offset, its buffer's size, region and guard and the buffer's address modulo `PAGE` (its alignment
to lines, bursts and pages), and by nothing of where else the buffers lie or what other arrays are
live. That is an approximation, not an identity: the cycles depend on absolute addresses through the
DRAM channel and bank hash (higher address bits are XOR-folded onto the channel bits), the open rows
and the LLC sets, so the same kernel on a buffer elsewhere sees its lines permuted over channels and
sets. An identical launch's exact record is still taken first; a record found only by the relaxed key
(whose key starts with `PLACEMENT_BLIND`) is counted in `STATS["reused_elsewhere"]` and never serves an
exact lookup. A launch on a carried memory state is keyed relative to its buffers already; inside it, its
incoming state is also keyed coarsely (`memo_state.coarse_class`: how much of each buffer is cached, not
which lines), so that the layers of a large prefill, which each evict a different part of the last
one's activations, take the first such layer's record. And where a launch's last two simulations, from
different classes, agree within `SETTLED` of each other's cycles, its state is taken to have settled
(the layers after the first few see the same steady mix of warm weights and dirty activations): every
later launch of it takes the latest record, kept under the key with `SETTLED_STATE` in place of a class,
which the disk cache keeps for the next process too.
"""
from __future__ import annotations

import dataclasses
import hashlib
from collections import OrderedDict
from contextlib import contextmanager

from . import disk_cache, memo_state

KIND = "launches"
_MEMORY: OrderedDict = OrderedDict()     # key -> record or DATA_DEPENDENT, most recent last
MEMORY_LIMIT = 4096                       # records kept in the process (each holds a simulator report)
DATA_DEPENDENT = "data-dependent"        # stored under a launch's key when its program reads its data
_OFF: list[bool] = []
_ACROSS: list[bool] = []
STATS = {"simulated": 0, "reused": 0, "reused_elsewhere": 0}   # timing-only launches of this process
PLACEMENT_BLIND = "placement-blind"
PAGE = 1 << 12        # what a placement-blind key keeps of a buffer's address: its offset in a 4 KiB page
SETTLED = 0.01        # two simulations of a carried launch this close in cycles: its incoming state has settled
SETTLED_STATE = "settled"
_LAST_CYCLES: dict = {}   # placement-blind key of a carried launch -> the cycles of its latest simulation


@contextmanager
def disabled():
    """Inside, every launch simulates (nothing is read from or added to the memo)."""
    _OFF.append(True)
    try:
        yield
    finally:
        _OFF.pop()


@contextmanager
def across_placements():
    """Inside, a launch also reuses the record of the same launch on buffers that lie elsewhere (module
    docstring: an approximation a caller opts into, for a model's identical layers)."""
    _ACROSS.append(True)
    try:
        yield
    finally:
        _ACROSS.pop()


def clear() -> None:
    """Forget the records of this process (the disk cache stays)."""
    _MEMORY.clear()
    _LAST_CYCLES.clear()


def applies(executor, options) -> bool:
    """Whether this launch may be reused: a timing-only run of an executor that allows it, on a fresh machine
    (or a carried memory state, `memo_state.py`)."""
    if _OFF or not getattr(executor, "reusable_timing", False) or options.machine is not None:
        return False
    numerics = getattr(executor, "numerics", True) if options.numerics is None else options.numerics
    return numerics is False


def launch_key(compiled, grid: tuple, values: list, buffers: list, options) -> tuple:
    """The launch's identity apart from its data (module docstring)."""
    from .memory import PointerArg
    args = tuple((v.buffer.name, v.offset, str(v.elem)) if isinstance(v, PointerArg) else (type(v).__name__, repr(v))
                 for v in values)
    bufs = tuple((b.name, b.address, b.size, b.region, b.guard) for b in buffers)
    opts = tuple((f.name, repr(getattr(options, f.name))) for f in dataclasses.fields(options)
                 if f.name not in ("config", "machine", "executor", "memory_state"))
    config = hashlib.sha256(options.config.model_dump_json().encode()).hexdigest()
    return (kernel_body(compiled), tuple(grid), args, bufs, opts, config)


def placement_key(compiled, grid: tuple, values: list, options) -> tuple:
    """The launch's identity up to where its buffers lie (`across_placements`)."""
    from .memory import PointerArg
    args = tuple((str(v.elem), v.offset, v.buffer.size, v.buffer.region, v.buffer.guard, v.buffer.address % PAGE)
                 if isinstance(v, PointerArg) else (type(v).__name__, repr(v)) for v in values)
    exact = launch_key(compiled, grid, [], [], options)
    return (PLACEMENT_BLIND, exact[0], tuple(grid), args, exact[4], exact[5])


def kernel_body(compiled) -> str:
    """The kernel's fingerprint without its name and file: Inductor generates one template or fused kernel
    under another name at each call site (triton_mm_3, triton_mm_7), which times alike."""
    body = getattr(compiled, "_body_fingerprint", None)
    if body is None:
        text = repr((compiled.asm["ir"].replace(f"@{compiled.name}(", "@<kernel>("), compiled.op_lines(),
                     list(compiled.arg_names),
                     dict(compiled.signature), sorted((k, repr(v)) for k, v in compiled.constexprs.items())))
        body = compiled._body_fingerprint = hashlib.sha256(text.encode()).hexdigest()
    return body


def _as_launched(record, compiled):
    """A copy of an earlier launch's record for this one: marked reused, under this kernel's name."""
    report = getattr(record, "report", None)
    if dataclasses.is_dataclass(report) and getattr(report, "kernel", compiled.name) != compiled.name:
        report = dataclasses.replace(report, kernel=compiled.name)
    extra = {"report": report} if hasattr(record, "report") else {}
    return dataclasses.replace(record, kernel=compiled.name, reused=True, wall_seconds=0.0, **extra)


def data_key(key: tuple, buffers: list) -> tuple:
    """`key` with the bytes of every buffer: for a program whose data can reach its timing."""
    digest = hashlib.sha256()
    for b in buffers:
        if b.lazy:              # (a lazy buffer has no bytes: it reads as zeros whatever its size)
            digest.update(b"lazy")
        else:
            digest.update(memoryview(b.data).cast("B"))
    return (*key, digest.hexdigest())


def _find(key: tuple):
    hit = _MEMORY.get(key)
    if hit is None:
        hit = disk_cache.load(KIND, disk_cache.entry_key(*key))
        if hit is not None:
            _remember(key, hit)
    else:
        _MEMORY.move_to_end(key)
    return hit


def _remember(key: tuple, value) -> None:
    _MEMORY[key] = value
    while len(_MEMORY) > MEMORY_LIMIT:
        _MEMORY.popitem(last=False)


def _keep(key: tuple, value) -> None:
    _remember(key, value)
    disk_cache.store(KIND, disk_cache.entry_key(*key), value)


def run(compiled, grid: tuple, values: list, buffers: list, options, simulate, reads_data):
    """The record of this timing-only launch: an earlier identical launch's (a copy, `reused=True`), or
    `simulate()`'s, kept for the next. `reads_data()`: whether the program's data can reach its timing."""
    state = options.memory_state
    if state is None:
        key, incoming = launch_key(compiled, grid, values, buffers, options), ()
        hit = _find(key)
        if _ACROSS and not isinstance(hit, str) and not reads_data():
            return _across_placements(key, hit, compiled, grid, values, options, simulate)
    else:
        spans = memo_state.ranges(values)
        key = memo_state.relative_key(compiled, grid, values, options, kernel_body)
        incoming = memo_state.state_class(state, spans)
        hit = _find((*key, *incoming))
        if _ACROSS and not reads_data():
            coarse = (*key, PLACEMENT_BLIND, *memo_state.coarse_class(state, spans))
            if hit is None:
                hit = _find(coarse) or _find((*key, PLACEMENT_BLIND, SETTLED_STATE))
                if hit is not None:
                    STATS["reused_elsewhere"] += 1
            elif _find(coarse) is None:
                _keep(coarse, hit)
    if isinstance(hit, str) or (hit is None and reads_data()):       # DATA_DEPENDENT
        if hit is None:
            _keep((*key, *incoming), DATA_DEPENDENT)
        if state is not None:       # its addresses are data: where its buffers lie counts
            key = launch_key(compiled, grid, values, buffers, options)
        key = data_key(key, buffers)
        hit = _find((*key, *incoming))
    if hit is not None:
        STATS["reused"] += 1
        if state is not None:
            memo_state.replay(state, spans, hit.effect)
            hit = hit.record
        return _as_launched(hit, compiled)
    before = memo_state.coarse_class(state, spans) if state is not None and _ACROSS and not reads_data() else None
    record = simulate()
    STATS["simulated"] += 1
    kept = record if state is None else memo_state.Carried(record, memo_state.effect(state, spans))
    _keep((*key, *incoming), kept)
    if before is not None:          # (the state's class as the launch found it)
        _keep((*key, PLACEMENT_BLIND, *before), kept)
        _settle((*key, PLACEMENT_BLIND), kept)
    return record


def _settle(blind: tuple, kept) -> None:
    """Keep `kept` for every later class of this carried launch where it agrees with the one before it."""
    cycles = kept.record.cycles
    last = _LAST_CYCLES.get(blind)
    _LAST_CYCLES[blind] = cycles
    if last is not None and abs(cycles - last) <= SETTLED * last:
        _keep((*blind, SETTLED_STATE), kept)


def _across_placements(key: tuple, hit, compiled, grid: tuple, values: list, options, simulate):
    """An isolated launch under `across_placements()`: an exact record if there is one, else one of the
    same kernel over buffers of the same sizes elsewhere (another layer's weights), else simulate."""
    relaxed = placement_key(compiled, grid, values, options)
    if hit is not None:                      # an identical launch: exact, whatever the context
        if _find(relaxed) is None:           # (and from now on the other layers' record too)
            _keep(relaxed, hit)
        STATS["reused"] += 1
        return _as_launched(hit, compiled)
    hit = _find(relaxed)
    if hit is not None:
        STATS["reused"] += 1
        STATS["reused_elsewhere"] += 1
        return _as_launched(hit, compiled)
    record = simulate()                      # at this launch's own addresses: an exact record too
    STATS["simulated"] += 1
    _keep(key, record)
    _keep(relaxed, record)
    return record
