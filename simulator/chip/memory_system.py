"""Timing of the path between a PE and global memory: the PE's fabric-interface port, the NoC links
to the crossbar at the nearer die edge, the SRAM (its LLC part caching DRAM lines, its scratch part
addressed directly) and the DRAM channels.

A transfer books every resource it crosses from the moment it starts and completes when the last
of them is through, plus its latency: the PE port, each NoC link on its route (`noc.py`), the SRAM
(chip-wide; `sram.arbitration` serves whole transfers in arrival order, `fifo`, or the PEs in turn,
`round_robin`), and for DRAM lines the LLC and the channels (`dram.py`).

The LLC (`llc.py`): a read that misses allocates the line and fills it from its channel; a second
reader of a line still being filled waits for that fill. Under `llc_policy: write_back` a store of
whole lines allocates them dirty and moves no DRAM bytes; a store of part of a line updates it if
cached and otherwise goes around the LLC to DRAM; dirty lines go to DRAM when evicted, or never
when a dead-tensor hint (`dma.discard`) drops them. Under `write_through` every store goes to DRAM.
An atomic (`dma.atomic`, `dma.cas`) reads and writes its lines where they are cached: it finds or fills
them as a load does and leaves them dirty (under `write_through`, its bytes go on to DRAM too), so a
lock that programs spin on stays in the LLC.

A broadcast read (`dma.in ... bcast=N`) is served once for the N PEs of a group that each issue it:
memory and the shared NoC links carry it once, each receiver's port its own copy. A group down a grid
column (`bcast_col=1`) reads the SRAM once, and each row's route carries its own copy from the crossbar. A prefetch brings
lines from DRAM into the LLC without involving the PE's port or the NoC.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import simpy

from isa.types import DRAM_BASE

from ..activity import spread, window_cycles
from ..config import Config
from ..errors import ProgramError, SanitizerError
from ..signal import Signal
from .dram import Dram
from .fair_link import FairLink
from .footprint import Footprint
from .link import Link
from .llc import LLC
from .noc import Noc


@dataclass
class Access:
    """What a transfer touches: `starts` (byte addresses) of runs of `run_bytes` contiguous bytes
    (one length for all runs, or one per run when a descriptor joins boxes of different runs)."""
    starts: np.ndarray
    run_bytes: int | np.ndarray
    # for a box's runs (pe/dma.py): a hashable key of their offsets from the first one (the box's element
    # size, shape and strides), so that what the offsets alone decide is worked out once per key and
    # start alignment (MemorySystem.derived), not at every transfer
    pattern: tuple | None = None

    @property
    def nbytes(self) -> int:
        if isinstance(self.run_bytes, np.ndarray):
            return int(self.run_bytes.sum())
        return int(self.starts.size) * self.run_bytes

    def span(self) -> tuple[int, int]:
        """[lowest, highest) byte address touched."""
        if self.starts.size == 1 and not isinstance(self.run_bytes, np.ndarray):
            s = int(self.starts[0])
            return s, s + int(self.run_bytes)
        if self.pattern is not None:
            s = int(self.starts[0])
            lo, hi = _SPANS.get(self.pattern) or _SPANS.setdefault(self.pattern, self._span(s))
            return s + lo, s + hi
        return self._span(0)

    def _span(self, origin: int) -> tuple[int, int]:
        return int(self.starts.min()) - origin, int((self.starts + self.run_bytes).max()) - origin

    def same(self, other: "Access") -> bool:
        """Whether two accesses are the same runs."""
        if (self.starts.size == 1 and other.starts.size == 1 and not isinstance(self.run_bytes, np.ndarray)
                and not isinstance(other.run_bytes, np.ndarray)):            # one run each: no array work
            return int(self.starts[0]) == int(other.starts[0]) and self.run_bytes == other.run_bytes
        return np.array_equal(self.run_bytes, other.run_bytes) and np.array_equal(self.starts, other.starts)

    @staticmethod
    def join(parts: list["Access"]) -> "Access":
        """The runs of several boxes one descriptor covers."""
        starts = np.concatenate([p.starts for p in parts])
        runs = np.concatenate([np.broadcast_to(np.int64(p.run_bytes), p.starts.shape) for p in parts])
        return Access(starts, int(runs[0]) if np.all(runs == runs[0]) else runs)


_SPANS: dict[tuple, tuple[int, int]] = {}        # a box pattern's span, from its first run's start


class MemorySystem:
    def __init__(self, cfg: Config, gmem=None, llc: LLC | None = None):
        self.cfg = cfg
        self.gmem = gmem
        # a caller's LLC (memory_state.py: what earlier launches left in it), else an empty one
        self.llc = llc if llc is not None else LLC(cfg.sram.llc_mib << 20, cfg.sram.line_bytes, cfg.sram.ways)
        self.write_back = cfg.sram.llc_policy == "write_back"
        self.line = cfg.sram.line_bytes
        self.burst = cfg.pe.dma.burst_bytes
        self.dram_latency = cfg.dram_latency_cycles
        self.dram = Dram(cfg)
        self.noc = Noc(cfg)
        self.latency = [cfg.pe.dma.setup_cycles + 2 * self.noc.hops(i) * cfg.noc.hop_cycles + cfg.sram.latency_cycles
                        for i in range(cfg.num_pes)]
        self.env = None
        # (what, box pattern, first start modulo the line or burst) -> the lines or bytes it decides
        self.derived: dict[tuple, object] = {}

    def new_launch(self, env: simpy.Environment) -> None:
        """Links idle at time 0 (of `env`) and counters at zero; the LLC keeps its lines."""
        cfg = self.cfg
        self.env = env
        self.ports = [Link(f"pe{i}.fi", cfg.gbps_to_bpc(cfg.pe.dma.gbps)) for i in range(cfg.num_pes)]
        self.sram = (FairLink(env, "sram", cfg.sram_bpc) if cfg.sram.arbitration == "round_robin"
                     else Link("sram", cfg.sram_bpc))
        self.dram.new_launch()
        self.noc.new_launch()
        self.llc.new_launch()
        self.dram_read = 0
        self.dram_write = 0
        self.sram_bytes = 0
        # bytes through SRAM and DRAM by time window, for power over time (each transfer's bytes spread
        # from its request to when the shared resources are through with it)
        self.window = window_cycles(cfg)
        self.activity: dict[str, dict[int, float]] = {"sram": {}, "dram": {}}
        self.prefetched = 0                   # lines prefetch brought in
        self.discarded = 0                    # dirty lines dead-tensor hints dropped
        self.touched: dict[int, int] = {}     # allocation base -> 1 read | 2 written
        self.footprint = Footprint()          # the distinct DRAM lines read and written (compulsory floor)
        self.broadcasts: dict[tuple, dict] = {}
        self.bcast_seq: dict[tuple, int] = {}

    # ---- what a transfer touches ------------------------------------------------------------------
    def _shifted(self, what: str, acc: Access, unit: int, work):
        """`work` of a box pattern's runs moved to start within the first `unit` bytes, computed once per
        pattern and alignment: a box's lines (or bursts) are those of its pattern shifted by whole units."""
        s = int(acc.starts[0])
        key = (what, acc.pattern, s % unit)
        hit = self.derived.get(key)
        if hit is None:
            if len(self.derived) > 1 << 14:          # (programs have a few patterns; bound a long sweep)
                self.derived.clear()
            hit = self.derived[key] = work(Access(acc.starts - (s - s % unit), acc.run_bytes))
            for a in (hit if isinstance(hit, tuple) else (hit,)):
                if isinstance(a, np.ndarray):
                    a.flags.writeable = False         # shared by every transfer of the pattern
        return hit, s // unit

    def bus_bytes(self, acc: Access) -> int:
        """Bytes on the wires: every run is rounded out to whole bursts."""
        b = self.burst
        if acc.starts.size == 1 and not isinstance(acc.run_bytes, np.ndarray):   # one run: no array work
            s = int(acc.starts[0])
            return ((s + int(acc.run_bytes) - 1) // b - s // b + 1) * b
        if acc.pattern is not None:
            return self._shifted("bus", acc, b, self._bus_bytes)[0]
        return self._bus_bytes(acc)

    def _bus_bytes(self, acc: Access) -> int:
        b = self.burst
        first = acc.starts // b
        last = (acc.starts + acc.run_bytes - 1) // b
        return int((last - first + 1).sum()) * b

    def lines(self, acc: Access) -> np.ndarray:
        L = self.line
        if acc.starts.size == 1 and not isinstance(acc.run_bytes, np.ndarray):   # one run: no array work
            s = int(acc.starts[0])
            return np.arange(s // L, (s + int(acc.run_bytes) - 1) // L + 1, dtype=np.int64)
        if acc.pattern is not None:
            rel, shift = self._shifted("lines", acc, L, self._lines)
            return rel + shift
        return self._lines(acc)

    def _lines(self, acc: Access) -> np.ndarray:
        L = self.line
        first = acc.starts // L
        last = (acc.starts + acc.run_bytes - 1) // L
        if first.size == 1:
            return np.arange(int(first[0]), int(last[0]) + 1, dtype=np.int64)
        counts = last - first + 1
        # runs in address order that share no line (a box's rows, mostly) need no sort to be unique
        disjoint = bool((first[1:] > last[:-1]).all())
        if counts.size and counts.max() == 1:
            return first if disjoint else np.unique(first)
        total = int(counts.sum())
        offs = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
        lines = np.repeat(first, counts) + offs
        return lines if disjoint else np.unique(lines)

    def line_cover(self, acc: Access) -> tuple[np.ndarray, np.ndarray]:
        """The lines an access touches and how many of each line's bytes it covers."""
        if acc.pattern is not None and acc.starts.size > 1:
            (rel, cov), shift = self._shifted("cover", acc, self.line, self._line_cover)
            return rel + shift, cov
        return self._line_cover(acc)

    def _line_cover(self, acc: Access) -> tuple[np.ndarray, np.ndarray]:
        L = self.line
        s = acc.starts
        if not (np.asarray(acc.run_bytes) % L).any() and not (s % L).any():        # whole lines only
            lines = self.lines(acc)
            return lines, np.full(lines.size, L, np.int64)
        e = s + acc.run_bytes
        first = s // L
        counts = (e - 1) // L - first + 1
        if counts.max() == 1:
            ln, cov = first, np.broadcast_to(np.int64(acc.run_bytes), s.shape)
        else:
            total = int(counts.sum())
            run = np.repeat(np.arange(s.size), counts)
            ln = np.repeat(first, counts) + (np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts))
            cov = np.minimum((ln + 1) * L, e[run]) - np.maximum(ln * L, s[run])
        u, inv = np.unique(ln, return_inverse=True)
        return u, np.bincount(inv, weights=cov, minlength=u.size).astype(np.int64)

    def _touch(self, addr: int, write: bool) -> None:
        a = self.gmem.find(addr) if self.gmem is not None else None
        if a is not None:
            self.touched[a.base] = self.touched.get(a.base, 0) | (2 if write else 1)

    # ---- transfers --------------------------------------------------------------------------------
    def transfer(self, now: float, pe: int, acc: Access, write: bool, atomic: bool = False) -> simpy.Event:
        """Start a transfer between PE `pe` and global memory now (`atomic`: a read-modify-write of
        `acc`); the event fires when it completes."""
        return self._transfer(now, [pe], acc, write, atomic)[0]

    def broadcast(self, now: float, pe: int, n: int, acc: Access, where, column: bool = False) -> simpy.Event:
        """PE `pe`'s part of a broadcast read shared by the `n` PEs of its group (n consecutive PEs of
        a grid row, or of a grid column when `column`). The k-th broadcast read of each member is one
        transfer; it starts when the last member issues it. The event fires when this PE's copy has
        arrived."""
        members = self.broadcast_group(pe, n, column, where)
        key_pe = (pe, n, column)
        seq = self.bcast_seq.get(key_pe, 0)
        self.bcast_seq[key_pe] = seq + 1
        key = (members, seq)
        entry = self.broadcasts.get(key)
        if entry is None:
            entry = self.broadcasts[key] = {"acc": acc, "pe": pe, "events": {}, "n": n, "column": column}
        elif not entry["acc"].same(acc):
            first = entry["acc"]
            raise SanitizerError(
                f"{where()}: broadcast read #{seq} of {_group_name(members, n, column)}: this PE reads "
                f"{acc.nbytes} bytes at {int(acc.starts[0]):#x} but PE {entry['pe']} read {first.nbytes} "
                f"bytes at {int(first.starts[0]):#x}; every member of a broadcast group reads the same bytes")
        ev = Signal(self.env)
        entry["events"][pe] = ev
        if len(entry["events"]) == n:
            del self.broadcasts[key]
            for p, done in zip(members, self._transfer(now, list(members), acc, False)):
                done.callbacks.append(lambda _, e=entry["events"][p]: e.succeed())
        return ev

    def broadcast_group(self, pe: int, n: int, column: bool, where) -> tuple[int, ...]:
        """The PEs of `pe`'s broadcast group of `n`, in index order: a run of n PEs along its grid row
        (PE index // n), or down its grid column (grid row // n) when `column`."""
        rows, cols = self.cfg.grid.rows, self.cfg.grid.cols
        span, step = (rows, cols) if column else (cols, 1)
        if n > span or span % n:
            along = "column" if column else "row"
            raise ProgramError(f"{where()}: bcast={n}{', bcast_col=1' if column else ''}: a broadcast group is a "
                               f"run of PEs along a grid {along}, so its size must divide the {span} "
                               f"{'rows' if column else 'columns'}")
        first = pe - ((pe // step) % n) * step
        return tuple(first + j * step for j in range(n))

    def pending_broadcasts(self) -> list[str]:
        """Broadcast reads still waiting for members (for deadlock reports)."""
        out = []
        for (members, seq), entry in self.broadcasts.items():
            missing = [p for p in members if p not in entry["events"]]
            out.append(f"broadcast read #{seq} of {_group_name(members, entry['n'], entry['column'])} waits for "
                       f"PE(s) {', '.join(map(str, missing))} to issue it")
        return out

    def _transfer(self, now: float, pes: list[int], acc: Access, write: bool, atomic: bool = False) -> list[simpy.Event]:
        env = self.env
        bus = self.bus_bytes(acc)
        self._touch(int(acc.starts[0]), write)
        ends = [self.ports[p].reserve(now, bus) for p in pes]
        shared = now
        for link in self.noc.links_of(pes, write):
            end = link.reserve(now, bus)
            if end > shared:
                shared = end
        fair = isinstance(self.sram, FairLink)
        sram_done = self.sram.start(pes[0], bus) if fair else None
        if not fair:
            shared = max(shared, self.sram.reserve(now, bus))
        self.sram_bytes += bus
        dram_before = self.dram_read + self.dram_write
        if int(acc.starts[0]) >= DRAM_BASE:
            shared = max(shared, self._atomic(now, acc) if atomic else self._store(now, acc) if write
                         else self._load(now, acc))
        spread(self.activity["sram"], self.window, now, shared, bus)
        moved = self.dram_read + self.dram_write - dram_before
        if moved:
            spread(self.activity["dram"], self.window, now, shared, moved)
        events = []
        for p, end in zip(pes, ends):
            end = max(end, shared)
            if sram_done is None:
                events.append(env.wake(end + self.latency[p] - now))
                continue
            done = env.event()

            def through_sram(_, end=end, done=done, lat=self.latency[p]):   # the SRAM share was not a fixed time
                env.timeout(max(env.now, end) + lat - env.now).callbacks.append(lambda _: done.succeed())
            sram_done.callbacks.append(through_sram)
            events.append(done)
        return events

    # ---- DRAM lines through the LLC -------------------------------------------------------------
    def _load(self, now: float, acc: Access) -> float:
        """Read lines through the LLC; return when the last one is in SRAM."""
        lines = self.lines(acc)
        self.footprint.note(lines, False)
        hit, ready = self.llc.lookup(lines, now)
        n_hit = int(np.count_nonzero(hit))
        self.llc.hits += n_hit
        miss = lines[~hit] if n_hit < lines.size else lines[:0]
        self.llc.misses += int(miss.size)
        return max(ready, self._fill(now, miss))

    def _fill(self, now: float, lines: np.ndarray) -> float:
        """Bring lines that are not cached from DRAM into the LLC; return when the last lands."""
        if lines.size == 0:
            return now
        L = self.line
        slots, victims = self.llc.allocate(lines)
        ends, ch = self.dram.access(now, lines * L, np.full(lines.size, L, np.int64), write=False)
        ready = ends[ch] + self.dram_latency
        if slots[0].size:
            self.llc.ready[slots] = ready
        self.dram_read += int(lines.size) * L
        self._write_back(now, victims)
        return float(ready.max())

    def _write_back(self, now: float, victims: np.ndarray) -> None:
        """Evicted dirty lines go to DRAM through the controller's write queue: they take channel time
        but nothing waits for them."""
        if victims.size:
            L = self.line
            self.dram.access(now, np.sort(victims) * L, np.full(victims.size, L, np.int64), write=True)
            self.dram_write += int(victims.size) * L

    def _store(self, now: float, acc: Access) -> float:
        """Write lines; return when the bytes that go to DRAM are through (`now` if none do)."""
        lines, cov = self.line_cover(acc)
        self.footprint.note(lines, True)
        llc = self.llc
        present, slots = llc.find(lines)
        hits = int(present.sum())
        llc.hits += hits
        llc.misses += int(lines.size) - hits
        if hits:
            llc.stamp[slots] = llc.clock
        if self.write_back and llc.sets:
            if hits:
                llc.write(slots)
            whole = ~present & (cov == self.line)
            new, victims = llc.allocate(lines[whole], dirty=True)
            if new[0].size:
                llc.ready[new] = now
            self._write_back(now, victims)
            around = ~present & ~whole          # part of a line that is not cached: straight to DRAM
        else:
            around = np.ones(lines.size, np.bool_)
        if not around.any():
            return now
        L = self.line
        nbytes = cov[around]
        ends, _ = self.dram.access(now, lines[around] * L, nbytes, write=True)
        self.dram_write += int(nbytes.sum())
        return float(ends.max()) + self.dram_latency

    def _atomic(self, now: float, acc: Access) -> float:
        """A read-modify-write in the LLC: the lines are read as a load reads them (a miss fills the line
        from DRAM), then written there (dirty); return when the old values are read."""
        ready = self._load(now, acc)
        if not (self.write_back and self.llc.sets):
            return max(ready, self._store(now, acc))
        self.llc.mark_dirty(self.lines(acc))
        return ready

    def prefetch(self, now: float, acc: Access) -> None:
        """Bring the DRAM lines of `acc` (within the array it starts in) into the LLC; nothing waits."""
        a = self.gmem.find(int(acc.starts[0])) if self.gmem is not None else None
        if a is None or a.base < DRAM_BASE:
            return
        lines = self.lines(acc)
        L = self.line
        lines = lines[(lines * L + L > a.base) & (lines * L < a.end)]
        present, _ = self.llc.find(lines)
        todo = lines[~present]
        self.prefetched += int(todo.size)
        self._fill(now, todo)

    def discard(self, lo: int, hi: int) -> None:
        """Dead-tensor hint: drop the whole lines inside [lo, hi) without writing them back."""
        L = self.line
        first, last = -(-lo // L), hi // L
        if last > first and lo >= DRAM_BASE:
            self.discarded += self.llc.discard(np.arange(first, last, dtype=np.int64))


def _group_name(members: tuple, n: int, column: bool) -> str:
    """How reports name a broadcast group: "PEs 8..15 (bcast=8)", "PEs 2, 10, 18, 26 (bcast=4, bcast_col=1)"."""
    if column:
        return f"PEs {', '.join(map(str, members))} (bcast={n}, bcast_col=1)"
    return f"PEs {members[0]}..{members[-1]} (bcast={n})"
