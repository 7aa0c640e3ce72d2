"""The DMA engine (fabric interface): starts transfers in order, keeps up to `max_outstanding` in
flight, and books each one on the memory system (PE port, NoC, SRAM, LLC, DRAM channels).

With `pe.dma.loads_pass_waiting_stores`, a store whose data is not written yet (a tile's epilogue
still converting) waits aside instead of at the head of the queue: later loads of other bytes (the
next program's first tiles) start meanwhile; everything else still waits for it, in program order.

Reads of global memory happen when a transfer starts; writes land when it completes. A read or a
write that overlaps a write still in flight from this PE waits for it, so a kernel reads back what it
stored and the later of two stores of the same bytes lands last. The control core's own scalar
loads and stores keep program order with these transfers too (`earlier`, docs/timing-model.md).
The local store has one port, shared with the engines: a load's bytes take it as they arrive, a
store's as they leave. Hints (`dma.prefetch`, `dma.in ... prefetch=`, `dma.discard`) go to the
memory system and occupy the engine only for their descriptor.
"""
from __future__ import annotations

import numpy as np

from isa import dma
from isa.types import np_dtype

from ..chip.memory_system import Access
from ..errors import SanitizerError
from ..semantics.dma import boxes, skipped, wrap_parts
from ..signal import Signal
from .engine import Engine

READS_AT_START = (dma.DmaIn, dma.DmaGather, dma.DmaRows)
WRITES = (dma.DmaOut, dma.DmaScatter, dma.DmaAtomic, dma.DmaCas)
ATOMICS = (dma.DmaAtomic, dma.DmaCas)      # read-modify-writes, done where the lines are cached
HINTS = (dma.DmaPrefetch, dma.DmaDiscard)


class DMA(Engine):
    kind = "dma"
    in_order = False          # transfers overlap: a later one may finish first

    def __init__(self, pe):
        c = pe.cfg.pe.dma
        super().__init__(pe, 0, 0)
        self.c = c
        self.inflight = 0
        self.inflight_writes: list[tuple] = []    # (lo, hi, done event, Access)
        self.held: list[tuple[int, int, object]] = []     # stores waiting for their data: (lo, hi, started)
        self.head = None        # the command taken from the queue and not started yet
        self.slot_free = Signal(self.env)       # fires when a transfer finishes (scheduled only if awaited)
        self.bytes = 0
        self.busy_since = 0.0

    def idle_clock(self) -> float:
        now = self.env.now
        return now - self.busy - (now - self.busy_since if self.inflight else 0.0)

    def run(self):
        env, queue = self.env, self.queue
        while True:
            # the waits of next_command, wait_deps and wait_resolved, entered only when they wait
            cmd = queue.take()
            if cmd is None:
                cmd = yield from self.next_command()
            self.current = self.head = cmd
            if self.held:
                yield from self.wait_held(cmd)
            if self.c.loads_pass_waiting_stores and type(cmd.ins) is dma.DmaOut and \
                    any(not ev.triggered for ev, _ in cmd.deps):
                self.hold(cmd)
                self.current = self.head = None
                yield env.wake(1)
                continue
            yield from self.start(cmd)
            self.head = None

    def start(self, cmd):
        """Wait for the command's data and a free transfer slot, then start it."""
        env, pe, mem = self.env, self.pe, self.pe.machine.memsys
        for ev, _ in cmd.deps:
            if not ev.triggered:
                yield from self.wait_deps(cmd)
                break
        if env.now < cmd.issued + pe.cfg.pe.cp_cycles:
            yield from self.wait_resolved(cmd)
        if type(cmd.ins) in HINTS:
            if type(cmd.ins) is dma.DmaDiscard:          # the stores into a dead tensor land first
                lo = int(cmd.vals["base"])
                yield from self.wait_stores(lo, lo + int(cmd.vals["nbytes"]))
            yield from self.hint(cmd, mem)
            return
        acc, write = self.access(cmd)
        if acc is not None and self.inflight_writes:
            yield from self.wait_stores(*acc.span(), acc if write else None)
        while self.inflight >= self.c.max_outstanding:     # (waits with transfers in flight: no stall)
            self.waiting = ("outstanding", self.inflight, None)
            yield self.slot_free
        self.waiting = None
        start = env.now
        if isinstance(cmd.ins, READS_AT_START):
            pe.run_semantics(cmd)
        bcast = cmd.vals.get("bcast", 0) if acc is not None else 0
        if acc is None:
            landed = env.wake(self.c.setup_cycles)
        elif bcast > 1:
            landed = mem.broadcast(start, pe.index, bcast, acc, cmd.where, bool(cmd.vals.get("bcast_col", 0)))
        else:
            landed = mem.transfer(start, pe.index, acc, write, isinstance(cmd.ins, ATOMICS))
        if acc is not None and cmd.vals.get("prefetch"):
            mem.prefetch(start, Access(acc.starts + int(cmd.vals["prefetch"]), acc.run_bytes))
        # a store's bytes leave the local store now; a load's enter it as they land
        ls_end = pe.ls_port.reserve(start, cmd.plan.ls_bytes) if write else None
        cmd.start = start
        if acc is not None:
            self.bytes += acc.nbytes
            if write:
                self.inflight_writes.append((*acc.span(), cmd.done, acc))
        if self.inflight == 0:
            self.busy_since = start
        self.inflight += 1
        self.commands += 1
        self.current = None
        if self.head is cmd:
            self.head = None
        landed.callbacks.append(lambda _, c=cmd, t=ls_end: self._land(c, t))
        # the engine itself is busy only for descriptor issue; transfers overlap
        yield env.wake(1)

    def hold(self, cmd) -> None:
        """Set aside a store whose data is not written yet (`pe.dma.loads_pass_waiting_stores`): it
        starts once its data is there, and later loads of other bytes start meanwhile."""
        acc, _ = self.access(cmd)
        entry = (*(acc.span() if acc is not None else (0, 0)), self.env.event())
        self.held.append(entry)
        self.env.process(self._start_held(cmd, entry))

    def _start_held(self, cmd, entry):
        for ev, _ in cmd.deps:          # not an engine stall: the engine goes on with later loads
            if not ev.triggered:
                yield ev
        yield from self.start(cmd)
        self.held.remove(entry)
        entry[2].succeed()

    def wait_held(self, cmd):
        """A load of bytes no held store writes passes the held stores; any other command waits
        until they have started, so stores, hints and overlapping reads keep program order."""
        t = self.idle_clock()
        if type(cmd.ins) is dma.DmaIn:
            acc, _ = self.access(cmd)
            lo, hi = acc.span() if acc is not None else (0, 0)
            waits = [ev for wlo, whi, ev in self.held if wlo < hi and lo < whi]
        else:
            waits = [ev for _, _, ev in self.held]
        for ev in waits:
            if not ev.triggered:
                self.waiting = ("held store", cmd.ins.mnemonic, None)
                yield ev
        self.stall("held store", self.idle_clock() - t)

    def wait_stores(self, lo: int, hi: int, store: Access | None = None):
        """Wait for this PE's in-flight stores to bytes [lo, hi); for a `store`, only those that write
        one of its bytes (the tiles of one matrix that programs store side by side have overlapping
        spans but no common byte, and may land in any order)."""
        t = self.idle_clock()
        for wlo, whi, wev, wacc in list(self.inflight_writes):
            if wlo < hi and lo < whi and not wev.triggered and (store is None or _overlap(wacc, store)):
                self.waiting = ("store", wlo, whi)
                yield wev
        self.stall("store in flight", self.idle_clock() - t)   # a read of bytes a DMA out still writes

    def earlier(self, lo: int, hi: int, write: bool) -> list:
        """What the control core waits for before its scalar load (or, with `write`, store) of global
        bytes [lo, hi): the transfers this PE's program issued before it that touch those bytes and
        are not through. A write must have landed; for a store, a read must have started too (it
        reads when it starts). Events of commands not started yet are their completions; of a held
        store, its start (the core looks again then). Empty, at no cost, when nothing overlaps."""
        waits = [ev for wlo, whi, ev, acc in self.inflight_writes
                 if wlo < hi and lo < whi and _touches(acc, lo, hi)]
        waits += [ev for wlo, whi, ev in self.held if wlo < hi and lo < whi]
        unstarted = self.queue.items
        if self.head is not None:
            unstarted = (self.head, *unstarted)
        if unstarted:
            for cmd in unstarted:
                t = type(cmd.ins)
                if (t in WRITES or t is dma.DmaDiscard or (write and t in READS_AT_START)) and \
                        self.reaches(cmd, lo, hi):
                    waits.append(cmd.done)
        return waits

    def reaches(self, cmd, lo: int, hi: int) -> bool:
        """Whether a command not started yet may touch bytes [lo, hi): a box's runs exactly (its
        registers are resolved at issue); a discard its range; an element-wise command, whose offsets
        may not be computed yet, anything in the array its base points into."""
        t, v = type(cmd.ins), cmd.vals
        if t is dma.DmaIn or t is dma.DmaOut:
            try:
                acc, _ = self.access(cmd)
            except SanitizerError:          # (the transfer reports it when it starts)
                acc = False
            if acc is None:                 # (an empty box)
                return False
            if acc is not False:
                alo, ahi = acc.span()
                return alo < hi and lo < ahi and _touches(acc, lo, hi)
        if t is dma.DmaDiscard:
            base = int(v["base"])
            return base < hi and lo < base + int(v["nbytes"])
        gmem = self.pe.machine.gmem
        base = int(v["base"])
        a = gmem.find(base) or gmem.owner(base)
        return a is None or (a.base < hi and lo < a.end)

    def hint(self, cmd, mem):
        """A prefetch or a dead-tensor hint: the descriptor goes to the memory system; no transfer
        occupies a slot, nothing reaches the local store."""
        env, v = self.env, cmd.vals
        cmd.start = env.now
        if type(cmd.ins) is dma.DmaPrefetch:
            n = int(v["nbytes"])
            if n > 0:
                mem.prefetch(env.now, Access(np.array([v["base"]], np.int64), n))
        else:
            self.pe.run_semantics(cmd)
            mem.discard(int(v["base"]), int(v["base"]) + int(v["nbytes"]))
        self.commands += 1
        self.current = None
        env.call_later(self.c.setup_cycles, self._hinted, cmd)
        yield env.wake(1)

    def _hinted(self, cmd) -> None:
        cmd.end = self.env.now
        self.last_end = max(self.last_end, cmd.end)
        self.pe.complete(cmd, semantics=False)

    def _land(self, cmd, ls_end: float | None) -> None:
        """The transfer is through memory; it ends once the local store's port has taken its bytes too."""
        if ls_end is None:
            ls_end = self.pe.ls_port.reserve(self.env.now, cmd.plan.ls_bytes)
        if ls_end > self.env.now:
            self.env.call_later(ls_end - self.env.now, self._finish, cmd)
        else:
            self._finish(cmd)

    def _finish(self, cmd) -> None:
        cmd.end = self.env.now
        self.inflight -= 1
        if self.inflight == 0:           # busy = time with at least one transfer in flight
            self.busy += self.env.now - self.busy_since
        self.last_end = self.env.now
        self.inflight_writes = [w for w in self.inflight_writes if w[2] is not cmd.done]
        ev, self.slot_free = self.slot_free, Signal(self.env)
        ev.succeed()
        self.pe.complete(cmd, semantics=not isinstance(cmd.ins, READS_AT_START))

    # ---- what a command touches ------------------------------------------------------------------
    def access(self, cmd) -> tuple[Access | None, bool]:
        ins, v = cmd.ins, cmd.vals
        t = type(ins)
        if t is dma.DmaAtomic and ins.offsets is None:     # a box of addresses: its runs, as dma.out's
            isz = np_dtype(ins.val.dtype).itemsize
            if len(v["strides"]) != len(ins.val.shape):
                raise SanitizerError(f"{cmd.where()}: {len(v['strides'])} strides for a "
                                     f"{len(ins.val.shape)}-dimensional tile")
            shape = clip(ins.val.shape, v["valid"])
            self.check_aligned(cmd, v["base"])
            if 0 in shape:
                return None, True
            return box_access(v["base"], isz, shape, tuple(v["strides"])), True
        if t is dma.DmaIn or t is dma.DmaOut:
            tile = ins.dst if t is dma.DmaIn else ins.src
            isz = np_dtype(tile.dtype).itemsize
            if len(v["strides"]) != len(tile.shape):
                raise SanitizerError(f"{cmd.where()}: {len(v['strides'])} strides for a "
                                     f"{len(tile.shape)}-dimensional tile")
            v, shape, _ = skipped(v, clip(tile.shape, v["valid"]), isz, cmd.where)
            if 0 in shape:
                self.check_aligned(cmd, v["base"])
                return None, t is dma.DmaOut
            parts = boxes(v, shape, isz, cmd.where)
            for base, _, _, _ in parts:
                self.check_aligned(cmd, base)
            acc = [box_access(base, isz, sh, st) for base, _, sh, st in parts]
            return (acc[0] if len(acc) == 1 else Access.join(acc)), t is dma.DmaOut
        if t is dma.DmaRows and v.get("wrap"):          # each row's wrapped parts, a run each
            offs, tile, _, cols = self.element_offsets(cmd)
            if offs is None or offs.size == 0:
                return None, False
            isz = np_dtype(tile.dtype).itemsize
            parts = wrap_parts(int(v["wrap"][0]), int(v["wrap"][1]), cols, cmd.where)
            starts = (offs[:, None] + np.array([j0 for _, _, j0, _ in parts], np.int64)[None, :]).reshape(-1)
            runs = np.tile(np.array([n for _, n, _, _ in parts], np.int64), offs.size)
            return Access(v["base"] + starts * isz, runs * isz if len(parts) > 1 else int(runs[0]) * isz), False
        # element-wise forms: every element its own transaction
        offs, tile, write, run = self.element_offsets(cmd)
        if offs is None or offs.size == 0:
            return None, write
        isz = np_dtype(tile.dtype).itemsize
        return Access(v["base"] + offs * isz, run * isz), write

    def check_aligned(self, cmd, base: int) -> None:
        """Each box of a descriptor starts at an aligned address unless it is in the unaligned mode."""
        if base % self.c.align_bytes and not cmd.vals["unaligned"]:
            raise SanitizerError(
                f"{cmd.where()}: address {base:#x} is not {self.c.align_bytes}-byte aligned, as box "
                f"DMA requires; set unaligned=1 (the unaligned-address mode) or align the array/offset")

    def element_offsets(self, cmd):
        from ..semantics.tiles import view
        ins, ls = cmd.ins, self.pe.ls
        t = type(ins)
        if t is dma.DmaRows:
            idx = view(ls, cmd.addr["index"], ins.index).reshape(-1)[: ins.dst.shape[0]].astype(np.int64)
            if ins.mask is not None:
                idx = idx[view(ls, cmd.addr["mask"], ins.mask).reshape(-1)[: idx.size].astype(np.bool_)]
            ncols = int(np.prod(ins.dst.shape[1:]))
            cols = ncols if not cmd.vals["valid_cols"] else min(int(cmd.vals["valid_cols"]), ncols)
            if cols == 0:
                return None, ins.dst, False, 0
            return idx * int(cmd.vals["row_stride"]), ins.dst, False, cols
        tile = {dma.DmaGather: "dst", dma.DmaScatter: "src", dma.DmaAtomic: "val", dma.DmaCas: "dst"}[t]
        tt = getattr(ins, tile)
        shape = ins.dst.shape if t in (dma.DmaGather, dma.DmaCas) or (t is dma.DmaAtomic and ins.dst) else tt.shape
        offs = np.broadcast_to(view(ls, cmd.addr["offsets"], ins.offsets).astype(np.int64), shape)
        if getattr(ins, "mask", None) is not None:
            m = np.broadcast_to(view(ls, cmd.addr["mask"], ins.mask).astype(np.bool_), shape)
            offs = offs[m]
        return offs.reshape(-1), tt, t is not dma.DmaGather, 1


def _touches(acc: Access, lo: int, hi: int) -> bool:
    """Whether one of the access's runs overlaps bytes [lo, hi)."""
    starts = acc.starts
    return bool(((starts < hi) & (starts + acc.run_bytes > lo)).any())


def _overlap(a: Access, b: Access) -> bool:
    """Whether a run of `a` and a run of `b` share a byte: for each run of b, the runs of a that start
    before it ends, and the furthest end among them."""
    order = np.argsort(a.starts, kind="stable")
    starts = a.starts[order]
    ends = np.maximum.accumulate(np.broadcast_to(a.starts + a.run_bytes, a.starts.shape)[order])
    b_ends = b.starts + b.run_bytes
    i = np.searchsorted(starts, b_ends, "left")
    return bool(((i > 0) & (ends[np.maximum(i - 1, 0)] > b.starts)).any())


def clip(shape, valid) -> tuple[int, ...]:
    if not valid:
        return tuple(shape)
    return tuple(max(0, min(int(x), n)) for x, n in zip(valid, shape))


_BOX_RUNS: dict[tuple, tuple[np.ndarray, int]] = {}      # (isz, shape, strides) -> run offsets, run bytes


def box_access(base: int, isz: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> Access:
    """The contiguous runs of a strided box: inner dimensions merge while they are dense. A box's runs
    are its pattern's (computed once per element size, shape and strides) moved to `base`."""
    key = (isz, shape, strides)
    hit = _BOX_RUNS.get(key)
    if hit is None:
        if len(_BOX_RUNS) > 1 << 14:
            _BOX_RUNS.clear()
        hit = _BOX_RUNS[key] = _box_runs(isz, shape, strides)
    offsets, run = hit
    if offsets.size == 1:
        return Access(np.array([base], np.int64), run)
    return Access(offsets + base, run, key)


def _box_runs(isz: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[np.ndarray, int]:
    dims = [(n, s) for n, s in zip(shape, strides) if n > 1] or [(1, 1)]
    run_elems = 1
    if dims[-1][1] == 1:
        run_elems = dims[-1][0]
        dims.pop()
        while dims and dims[-1][1] == run_elems:
            run_elems *= dims[-1][0]
            dims.pop()
    starts = np.zeros(1, np.int64)
    for n, s in dims:
        starts = (starts[:, None] + np.arange(n, dtype=np.int64)[None, :] * (s * isz)).reshape(-1)
    starts.flags.writeable = False
    return starts, run_elems * isz
