"""Timing of the path between a PE and global memory: the PE's fabric-interface port, the NoC, the
SRAM (its LLC part caching DRAM lines, its scratch part addressed directly) and the DRAM channels.

The NoC is non-blocking (ISCA'25), so it costs latency per hop from the PE to the crossbar at the
nearer die edge; bandwidth limits are the PE port, the SRAM and each DRAM channel, all shared, so
PEs contend for them. The SRAM's arbiter serves the PEs in turn (`sram.arbitration: round_robin`,
a `FairLink`) or whole transfers in arrival order (`fifo`, a `Link`). Reads of DRAM lines that miss the LLC fetch whole lines from their channel
(lines interleave across channels); writes go through to DRAM and update lines already cached.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import simpy

from isa.types import DRAM_BASE

from ..config import Config
from .fair_link import FairLink
from .link import Link
from .llc import LLC


@dataclass
class Access:
    """What a transfer touches: `starts` (byte addresses) of runs of `run_bytes` contiguous bytes
    (one length for all runs, or one per run when a descriptor joins boxes of different runs)."""
    starts: np.ndarray
    run_bytes: int | np.ndarray

    @property
    def nbytes(self) -> int:
        if isinstance(self.run_bytes, np.ndarray):
            return int(self.run_bytes.sum())
        return int(self.starts.size) * self.run_bytes

    def span(self) -> tuple[int, int]:
        """[lowest, highest) byte address touched."""
        return int(self.starts.min()), int((self.starts + self.run_bytes).max())

    @staticmethod
    def join(parts: list["Access"]) -> "Access":
        """The runs of several boxes one descriptor covers."""
        starts = np.concatenate([p.starts for p in parts])
        runs = np.concatenate([np.broadcast_to(np.int64(p.run_bytes), p.starts.shape) for p in parts])
        return Access(starts, int(runs[0]) if np.all(runs == runs[0]) else runs)


class MemorySystem:
    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.llc = LLC(cfg.sram.llc_mib << 20, cfg.sram.line_bytes, cfg.sram.ways)
        self.line = cfg.sram.line_bytes
        self.burst = cfg.pe.dma.burst_bytes
        self.dram_latency = cfg.dram_latency_cycles
        cols = cfg.grid.cols
        self.edge_hops = [min(i % cols + 1, cols - i % cols) for i in range(cfg.num_pes)]
        self.env = None

    def new_launch(self, env: simpy.Environment) -> None:
        """Links idle at time 0 (of `env`) and counters at zero; the LLC keeps its lines."""
        cfg = self.cfg
        self.env = env
        self.ports = [Link(f"pe{i}.fi", cfg.gbps_to_bpc(cfg.pe.dma.gbps)) for i in range(cfg.num_pes)]
        self.sram = (FairLink(env, "sram", cfg.sram_bpc) if cfg.sram.arbitration == "round_robin"
                     else Link("sram", cfg.sram_bpc))
        per_ch = cfg.dram_bpc / cfg.dram.channels
        self.channels = [Link(f"dram{c}", per_ch) for c in range(cfg.dram.channels)]
        self.dram_read = 0
        self.dram_write = 0
        self.sram_bytes = 0
        self.llc.hits = self.llc.misses = 0

    def bus_bytes(self, acc: Access) -> int:
        """Bytes on the wires: every run is rounded out to whole bursts."""
        b = self.burst
        first = acc.starts // b
        last = (acc.starts + acc.run_bytes - 1) // b
        return int((last - first + 1).sum()) * b

    def lines(self, acc: Access) -> np.ndarray:
        L = self.line
        first = acc.starts // L
        last = (acc.starts + acc.run_bytes - 1) // L
        counts = last - first + 1
        if counts.size and counts.max() == 1:
            return np.unique(first)
        total = int(counts.sum())
        offs = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
        return np.unique(np.repeat(first, counts) + offs)

    def channel_of(self, addrs: np.ndarray) -> np.ndarray:
        """The DRAM channel of each byte address: interleave granules, optionally XOR-hashed."""
        g = np.asarray(addrs, np.int64) // self.cfg.dram.interleave_bytes
        n = len(self.channels)
        if self.cfg.dram.channel_hash == "xor" and n & (n - 1) == 0 and n > 1:
            bits = n.bit_length() - 1
            h = g.copy()
            shifted = g >> bits
            while np.any(shifted):          # fold every higher group of bits onto the low ones
                h ^= shifted
                shifted = shifted >> bits
            return h & (n - 1)
        return g % n

    def _channel_bytes(self, lines: np.ndarray) -> np.ndarray:
        ch = self.channel_of(lines * self.line)
        return np.bincount(ch, minlength=len(self.channels)) * self.line

    def transfer(self, now: float, pe: int, acc: Access, write: bool) -> simpy.Event:
        """Start a transfer between PE `pe` and global memory now; the event fires when it completes."""
        env = self.env
        bus = self.bus_bytes(acc)
        end = self.ports[pe].reserve(now, bus)
        fair = isinstance(self.sram, FairLink)
        sram_done = self.sram.start(pe, bus) if fair else None
        if not fair:
            end = max(end, self.sram.reserve(now, bus))
        self.sram_bytes += bus
        latency = self.cfg.pe.dma.setup_cycles + 2 * self.edge_hops[pe] * self.cfg.noc.hop_cycles \
            + self.cfg.sram.latency_cycles
        if acc.starts.size and int(acc.starts[0]) >= DRAM_BASE:
            lines = self.lines(acc)
            if write:
                self.llc.access(lines, allocate=False)          # refresh lines already cached
                per_ch = self._channel_bytes(lines) * (acc.nbytes / max(1, lines.size * self.line))
                self.dram_write += acc.nbytes
            else:
                miss = self.llc.access(lines)
                per_ch = self._channel_bytes(lines[miss])
                self.dram_read += int(per_ch.sum())
            dram_end = now
            for c in np.flatnonzero(per_ch):
                dram_end = max(dram_end, self.channels[c].reserve(now, float(per_ch[c])))
            if dram_end > now:
                end = max(end, dram_end + self.dram_latency)
        if sram_done is None:
            return env.timeout(end + latency - now)
        done = env.event()

        def through_sram(_):        # the other limits are fixed times; the SRAM share was not
            env.timeout(max(env.now, end) + latency - env.now).callbacks.append(lambda _: done.succeed())
        sram_done.callbacks.append(through_sram)
        return done
