"""Timeline traces in the Chrome trace-event JSON format, which Perfetto (ui.perfetto.dev) and
chrome://tracing open.

    tracer = Tracer(pes={0, 1}, max_events=200_000)
    report = Machine(cfg, trace=tracer).run(program, grid, args)
    tracer.save("trace.json")

Layout: one process per PE ("PE 3 (0, 3)") with one track per engine ("DPE", "SE", "RE", "MLU",
"DMA") and a "core" track showing which program instance the control core is issuing. Each command
is a complete event (`ph: X`) named by its mnemonic, from the cycle its engine starts it to the
cycle the engine is free again, with the instruction text, program id, time spent waiting and the
kernel source line that made it (`source`, file:line) in its args. DMA transfers overlap (several are in flight), and slices on one track must nest, so DMA
spreads over lanes "DMA", "DMA #2", ... Counters (`ph: C`):
each CB's occupancy in slots, each PE's DMA bandwidth per time window, and the traced PEs' total on
a "chip" process; power in watts per window of `energy.peak_window_us` (simulator/energy.py), each
traced PE's own (its engines, core and static power) and the whole chip's on the "chip" process.
Flow arrows (`ph: s` / `f`, category "data") run from the command that wrote a CB
slot to each command that waited for it, so a click on a DPE slice shows the DMA that fed it.
Times are microseconds: cycles / clock.

Size stays bounded: `pes` keeps only some PEs, and `max_events` caps the events kept. Past the cap
each track keeps every 2nd of its events, then every 4th, ... (uniform in time, so the timeline
keeps its shape), and the file says so under `otherData` (`truncated`, `sampling_stride`).

Beside the timeline, every command of a traced PE (sampled or not) adds to its source line's totals:
`by_source_line()` lists lines by the cycles their engines stalled waiting for their inputs.

The tracer sits outside the model: Machine calls `issue` and `complete` for every command, and the
CB release hook is set only on traced PEs' CBs.
"""
from __future__ import annotations

import json
import weakref
from pathlib import Path
from typing import Iterable

from .pe.dma import clip

ENGINE_TRACKS = {"core": (0, "core"), "dpe": (1, "DPE"), "se": (2, "SE"), "re": (3, "RE"), "mlu": (4, "MLU")}
DMA_TID = 5                      # DMA lanes take tids 5, 6, ...
PHASE_ORDER = {"E": 0, "X": 1, "B": 2, "C": 3}   # at equal times a span ends before the next begins
MAX_FLOWS_SHARE = 4              # flow arrows take at most 1/4 of the event cap (two events each)
DEFAULT_MAX_EVENTS = 200_000


class Tracer:
    def __init__(self, pes: Iterable[int] | None = None, max_events: int = DEFAULT_MAX_EVENTS,
                 counters: bool = True, bandwidth_window_cycles: int = 1024, flows: bool = True):
        if max_events < 100:
            raise ValueError(f"max_events = {max_events}: keep at least 100 events")
        self.pes = None if pes is None else frozenset(int(p) for p in pes)
        self.max_events = int(max_events)
        self.counters = counters
        self.window = int(bandwidth_window_cycles)
        # recorded events: (seq in its track, ph, pe, track, t0, t1, name, args); times in cycles on the trace clock
        self.events: list[tuple] = []
        self.seq = 0                     # events offered so far (kept or not)
        self._track_seq: dict[tuple, int] = {}   # the same, per track or counter
        self.stride = 1                  # keep events whose seq is a multiple of this
        self.commands = 0                # commands seen on traced PEs
        self.launches: list[dict] = []
        self.clock_ghz = 1.0
        self.config = None
        self.pe_coords: dict[int, tuple[int, int]] = {}
        self._env = None
        self._offset = 0.0               # where this launch starts on the trace clock (launches run back to back)
        self._end = 0.0                  # latest event time so far, on the trace clock
        self._program: dict[int, tuple] = {}    # pe -> (program id, start) of the span now open
        self._pe_end: dict[int, float] = {}     # pe -> when its latest command ended
        self._dma_bytes: dict[int, dict[int, float]] = {}   # pe -> window -> bytes
        self.flows = flows
        self._writer = weakref.WeakKeyDictionary()   # CB slot version's event -> seq of the X event that wrote it
        self._flows: list[tuple[int, int]] = []       # (producer seq, consumer seq)
        self._chip_power: list[tuple[float, float]] = []   # (time on the trace clock, chip watts)
        self.lines: dict = {}            # (source file, line) or None -> totals of its commands (by_source_line)
        self._engine_end: dict[tuple, float] = {}     # (pe, engine kind) -> when its latest command ended

    # ---- hooks Machine calls ----------------------------------------------------------------------
    def issue(self, pe, cmd) -> None:
        machine = pe.machine
        if machine.env is not self._env:
            self._new_launch(machine)
        if self.pes is not None and pe.index not in self.pes:
            return
        open_ = self._program.get(pe.index)
        if open_ is None or open_[0] != cmd.pid:
            now = self._offset + machine.env.now
            if open_ is not None:
                self._span(pe.index, open_, now)
            self._program[pe.index] = (cmd.pid, now)

    def complete(self, pe, cmd) -> None:
        if self.pes is not None and pe.index not in self.pes:
            return
        self.commands += 1
        off = self._offset
        t0, t1 = off + cmd.start, off + cmd.end
        if t1 > self._end:
            self._end = t1
        if t1 > self._pe_end.get(pe.index, 0.0):
            self._pe_end[pe.index] = t1
        kind = cmd.engine.kind
        ins = cmd.ins       # the slice shows the mnemonic (short, groups alike commands); args the whole text
        where = pe.machine.source_line(cmd.pc)
        args = {"instruction": str(ins), "program": list(cmd.pid), "pc": cmd.pc,
                "waited_cycles": cmd.start - cmd.issued}
        if where is not None:
            args["source"] = f"{where[0]}:{where[1]}"
        self._count_line(pe, cmd, where)
        seq = self._record("X", pe.index, kind, t0, t1, ins.mnemonic, args)
        if self.flows:
            self._link(cmd, seq)
        if not self.counters:
            return
        if kind == "dma":
            self._add_bytes(pe.index, cmd, t0, t1)
        for cb, _, mode in cmd.writes:
            if mode == "push":
                self._cb_counter(cb, off + pe.env.now)

    def power(self, machine, timeline) -> None:
        """Machine calls this after each launch: its power per window (simulator/energy.py's Timeline)
        as counters, each traced PE's and the chip's."""
        if not self.counters:
            return
        if machine.env is not self._env:
            self._new_launch(machine)
        off, width = self._offset, timeline.width
        for pe, joules in sorted(timeline.pe_joules.items()):
            if self.pes is None or pe in self.pes:
                for i, w in enumerate(timeline.watts(joules)):
                    self._record("C", pe, None, off + i * width, off + i * width, "power (W)", {"W": w})
        self._chip_power += [(off + i * width, w) for i, w in enumerate(timeline.watts(timeline.chip_joules))]
    def _count_line(self, pe, cmd, where) -> None:
        """Add the command to its source line's totals (every command of a traced PE, sampled or not).
        Its stall is how long its engine sat ready for it, after the command processor's checks and
        the engine's previous command, until its inputs (or space for its outputs) were there."""
        key = (pe.index, cmd.engine.kind)
        free = max(cmd.issued + pe.cfg.pe.cp_cycles, self._engine_end.get(key, 0.0))
        self._engine_end[key] = max(cmd.end, self._engine_end.get(key, 0.0))
        row = self.lines.get(where)
        if row is None:
            row = self.lines[where] = {"commands": 0, "busy_cycles": 0.0, "stall_cycles": 0.0, "mnemonics": {}}
        row["commands"] += 1
        row["busy_cycles"] += cmd.end - cmd.start
        row["stall_cycles"] += max(0.0, cmd.start - free)
        m = cmd.ins.mnemonic
        row["mnemonics"][m] = row["mnemonics"].get(m, 0) + 1

    def by_source_line(self) -> list[dict]:
        """Each kernel source line's commands on the traced PEs, most stalled first: `source` (file),
        `line` (None where the program has no line table, a hand-written one), `commands`, `busy_cycles`
        (engine time), `stall_cycles` (see `_count_line`) and `mnemonics` (count of each)."""
        rows = [{"source": w[0] if w else None, "line": w[1] if w else None, **r} for w, r in self.lines.items()]
        return sorted(rows, key=lambda r: (-r["stall_cycles"], -r["busy_cycles"]))

    def _link(self, cmd, seq: int) -> None:
        """Arrows from the writers of the slots this command waited on; remember what it wrote."""
        sources = []
        for ev, why in cmd.deps:
            if why[0] == "data":
                src = self._writer.get(ev)
                if src is not None and src not in sources:     # a slot both read and updated: one arrow
                    sources.append(src)
        self._flows.extend((src, seq) for src in sources)
        for _, ev, _ in cmd.writes:
            self._writer[ev] = seq

    # ---- recording --------------------------------------------------------------------------------
    def _new_launch(self, machine) -> None:
        self._close_spans()
        self._engine_end.clear()             # each launch's clock starts at 0
        self._env = machine.env
        self._offset = self._end
        self._program.clear()
        self.clock_ghz = machine.cfg.clock_ghz
        self.config = machine.cfg.name
        self.launches.append({"kernel": machine.kernel_name, "grid": list(machine.grid),
                              "start_us": self._us(self._offset)})
        for pe in machine.pes:
            if self.pes is not None and pe.index not in self.pes:
                continue
            self.pe_coords[pe.index] = pe.coords
            if self.counters:
                for cb in pe.cbs.values():
                    cb.trace_pe = pe.index
                    cb.on_release = self._on_release

    def _on_release(self, cb) -> None:
        self._cb_counter(cb, self._offset + cb.env.now)

    def _cb_counter(self, cb, t: float) -> None:
        pe = getattr(cb, "trace_pe", None)
        if pe is not None:
            self._record("C", pe, None, t, t, f"CB {cb.id} {cb.name} (slots full)", {"slots": cb.occupancy()})

    def _span(self, pe: int, open_: tuple, end: float) -> None:
        pid, start = open_
        self._record("B", pe, "core", start, max(start, end), f"program {tuple(pid)}", {"program": list(pid)})

    def _close_spans(self) -> None:
        for pe, open_ in self._program.items():
            self._span(pe, open_, self._pe_end.get(pe, open_[1]))
        self._program.clear()

    def _record(self, ph, pe, track, t0, t1, name, args) -> int:
        """Offer an event; returns its number (kept or not), which flow arrows refer to."""
        # each track (and each counter) samples its own events: every stride-th of them, so that a
        # regular pattern across tracks (X, counter, X, counter...) cannot alias with the stride
        key = (pe, track or name)
        seq = self._track_seq.get(key, 0)
        self._track_seq[key] = seq + 1
        self.seq += 1
        if seq % self.stride:
            return self.seq
        self.events.append((seq, ph, pe, track, t0, t1, name, args, self.seq))
        if len(self.events) > self.max_events:
            self._thin()
        return self.seq

    def _thin(self) -> None:
        """Halve the events kept: keep every (2 x stride)-th offered event, now and from here on."""
        self.stride *= 2
        s = self.stride
        self.events = [e for e in self.events if e[0] % s == 0]
        kept = {e[-1] for e in self.events}
        self._flows = [(a, b) for a, b in self._flows if a in kept and b in kept]

    def _add_bytes(self, pe: int, cmd, t0: float, t1: float) -> None:
        """Spread the command's bytes evenly over the time windows it spans."""
        nbytes = _dma_bytes(cmd)
        if not nbytes:
            return
        bins = self._dma_bytes.setdefault(pe, {})
        w = self.window
        if t1 <= t0:
            bins[int(t0 // w)] = bins.get(int(t0 // w), 0.0) + nbytes
            return
        rate = nbytes / (t1 - t0)
        i = int(t0 // w)
        while i * w < t1:
            lo, hi = max(t0, i * w), min(t1, (i + 1) * w)
            if hi > lo:
                bins[i] = bins.get(i, 0.0) + rate * (hi - lo)
            i += 1

    # ---- output -----------------------------------------------------------------------------------
    def _us(self, cycles: float) -> float:
        return cycles / (self.clock_ghz * 1e3)

    def to_dict(self) -> dict:
        """The trace as a trace-event JSON object."""
        self._close_spans()
        chip_pid = max(self.pe_coords, default=-1) + 2
        bandwidth = self._bandwidth_events(chip_pid) + [
            {"ph": "C", "name": "power (W), whole chip", "ts": self._us(t), "pid": chip_pid, "args": {"W": w}}
            for t, w in self._chip_power]
        while True:        # thin until data, metadata (its DMA lanes depend on the data) and counters fit
            data, lanes, where = self._data_events()
            meta = self._metadata(lanes, chip_pid, bool(bandwidth))
            flows = self._flow_events(where, self.max_events - len(meta) - len(data) - len(bandwidth))
            if len(meta) + len(data) + len(bandwidth) + len(flows) <= self.max_events or not self.events:
                break
            if self.stride > max(self._track_seq.values(), default=0):
                self.events = []
            else:
                self._thin()
        kept = len(self.events)
        return {
            "traceEvents": meta + data + bandwidth + flows,
            "displayTimeUnit": "ns",
            "otherData": {
                "generator": "mtiasim", "config": self.config, "clock_ghz": self.clock_ghz,
                "launches": self.launches, "pes_traced": sorted(self.pe_coords),
                "commands_seen": self.commands, "events_recorded": self.seq, "events_kept": kept,
                "flows": len(flows) // 2, "flows_recorded": len(self._flows),
                "max_events": self.max_events, "truncated": self.stride > 1, "sampling_stride": self.stride,
                "bandwidth_window_us": self._us(self.window),
                "power_samples": len(self._chip_power),
                "note": ("sampled: only every Nth event (N = sampling_stride) is kept"
                         if self.stride > 1 else "complete"),
            },
        }

    def save(self, path: str | Path) -> dict:
        """Write the trace; returns its `otherData` summary."""
        d = self.to_dict()
        Path(path).write_text(json.dumps(d, separators=(",", ":")))
        return d["otherData"]

    def _data_events(self) -> tuple[list[dict], dict[int, int], dict[int, tuple]]:
        """The kept events in track order, the DMA lanes each PE used, and where each kept command
        slice landed (its number -> pid, tid, start) for the flow arrows."""
        us = self._us
        out: list[tuple] = []
        dma: list[tuple] = []
        where: dict[int, tuple] = {}
        for _, ph, pe, track, t0, t1, name, args, num in self.events:
            if ph == "X" and track == "dma":
                dma.append((t0, t1, pe, name, args, num))
                continue
            pid = pe + 1
            if ph == "X":
                tid = ENGINE_TRACKS[track][0]
                where[num] = (pid, tid, us(t0))
                out.append(((pid, tid, t0, 1), {"ph": "X", "name": name, "cat": track, "ts": us(t0),
                                                  "dur": us(t1 - t0), "pid": pid, "tid": tid, "args": args}))
            elif ph == "B":      # a core span, recorded whole: begin and end travel together
                out.append(((pid, 0, t0, 2), {"ph": "B", "name": name, "cat": "program", "ts": us(t0),
                                              "pid": pid, "tid": 0, "args": args}))
                out.append(((pid, 0, t1, 0), {"ph": "E", "name": name, "cat": "program", "ts": us(t1),
                                              "pid": pid, "tid": 0}))
            else:
                out.append(((pid, -1, t0, 3), {"ph": "C", "name": name, "ts": us(t0), "pid": pid,
                                               "args": args}))
        # DMA lanes: each transfer takes the lowest lane free when it starts, so slices never overlap
        lanes: dict[int, int] = {}
        free_at: dict[int, list[float]] = {}
        for t0, t1, pe, name, args, num in sorted(dma, key=lambda e: (e[2], e[0], e[1])):
            ends = free_at.setdefault(pe, [])
            lane = next((i for i, end in enumerate(ends) if end <= t0), len(ends))
            if lane == len(ends):
                ends.append(t1)
            else:
                ends[lane] = t1
            lanes[pe] = max(lanes.get(pe, 0), lane + 1)
            pid, tid = pe + 1, DMA_TID + lane
            where[num] = (pid, tid, us(t0))
            out.append(((pid, tid, t0, 1), {"ph": "X", "name": name, "cat": "dma", "ts": us(t0),
                                              "dur": us(t1 - t0), "pid": pid, "tid": tid, "args": args}))
        out.sort(key=lambda e: e[0])
        return [e for _, e in out], lanes, where

    def _flow_events(self, where: dict[int, tuple], room: int) -> list[dict]:
        """An s/f pair per arrow whose two slices were kept; evenly sampled down to a share of the cap.
        Each end binds to the slice it starts in (`bp: e` binds the arrow head to the enclosing slice)."""
        pairs = [(a, b) for a, b in self._flows if a in where and b in where]
        cap = max(0, min(room, self.max_events // MAX_FLOWS_SHARE)) // 2
        if len(pairs) > cap:
            step = len(pairs) / cap if cap else float("inf")
            pairs = [pairs[int(i * step)] for i in range(cap)]
        out = []
        for i, (a, b) in enumerate(pairs):
            (pa, ta, sa), (pb, tb, sb) = where[a], where[b]
            out.append({"ph": "s", "id": i, "name": "data", "cat": "data", "ts": sa, "pid": pa, "tid": ta})
            out.append({"ph": "f", "bp": "e", "id": i, "name": "data", "cat": "data", "ts": sb, "pid": pb,
                        "tid": tb})
        return out

    def _metadata(self, lanes: dict[int, int], chip_pid: int, chip: bool) -> list[dict]:
        meta = []
        for pe, (r, c) in sorted(self.pe_coords.items()):
            pid = pe + 1
            meta.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                         "args": {"name": f"PE {pe} ({r}, {c})"}})
            meta.append({"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "args": {"sort_index": pe}})
            for tid, label in ENGINE_TRACKS.values():
                meta.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": label}})
            for lane in range(max(1, lanes.get(pe, 0))):
                meta.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": DMA_TID + lane,
                             "args": {"name": "DMA" if lane == 0 else f"DMA #{lane + 1}"}})
        if chip:
            meta.append({"ph": "M", "name": "process_name", "pid": chip_pid, "tid": 0,
                         "args": {"name": f"chip ({self.config}, traced PEs)"}})
            meta.append({"ph": "M", "name": "process_sort_index", "pid": chip_pid, "tid": 0,
                         "args": {"sort_index": -1}})
        return meta

    def _bandwidth_events(self, chip_pid: int) -> list[dict]:
        """DMA GB/s per PE and over all traced PEs, one value per window. Windows widen (merge in
        pairs) until these counters take at most a tenth of the cap."""
        if not self._dma_bytes:
            return []
        per_pe = {pe: dict(b) for pe, b in self._dma_bytes.items()}
        w = self.window

        def count():
            return sum(2 * len(b) for b in per_pe.values()) + 2 * len(set().union(*per_pe.values()))
        while count() > self.max_events // 10 and w < 1 << 40:
            w *= 2
            for pe, b in per_pe.items():
                merged: dict[int, float] = {}
                for i, v in b.items():
                    merged[i // 2] = merged.get(i // 2, 0.0) + v
                per_pe[pe] = merged
        seconds = w / (self.clock_ghz * 1e9)
        out = []

        def series(pid: int, name: str, bins: dict[int, float]):
            for i in sorted(bins):
                out.append({"ph": "C", "name": name, "ts": self._us(i * w), "pid": pid,
                            "args": {"GB/s": bins[i] / seconds / 1e9}})
                if i + 1 not in bins:     # drop to zero after a busy stretch
                    out.append({"ph": "C", "name": name, "ts": self._us((i + 1) * w), "pid": pid,
                                "args": {"GB/s": 0.0}})
        total: dict[int, float] = {}
        for pe in sorted(per_pe):
            series(pe + 1, "DMA bandwidth", per_pe[pe])
            for i, v in per_pe[pe].items():
                total[i] = total.get(i, 0.0) + v
        series(chip_pid, "DMA bandwidth, traced PEs", total)
        return out


def _dma_bytes(cmd) -> int:
    """Bytes a DMA command moves: its tile, clipped to `valid` and `skip` (element-wise forms: the whole
    tile)."""
    if not cmd.tiles:
        return int(cmd.vals.get("nbytes", 0) or 0)
    _, t = cmd.tiles[0]
    valid, skip = cmd.vals.get("valid"), cmd.vals.get("skip")
    if valid or skip:
        n = t.nbytes // t.size
        for d, k in zip(clip(t.shape, valid), skip or [0] * len(t.shape)):
            n *= max(0, d - max(0, int(k)))
        return n
    return t.nbytes
