"""The DRAM channels behind the memory controllers: a data bus per channel, served in order of
request, and what costs that bus time beyond the bytes themselves.

A channel is what has its own data bus and banks: an LPDDR5 channel, or an HBM pseudo-channel
(`dram.kind: hbm3e`; JESD238: each of a stack's 16 channels is two pseudo-channels of 32 data bits
with their own banks, so MTIA 300's 6 stacks give 192). The kind decides two things here: how many
per-bank refresh commands an interval holds (LPDDR5 refreshes bank pairs, HBM single banks), and how
HBM's channel count, six stacks' worth and so not a power of two, is hashed (below).

Each channel is booked per transfer (one calculation per transfer and channel, not per burst):

- **data**: its bytes at the channel's share of `dram.bandwidth_gbps`, times 1 + `ecc_overhead` when
  inline ECC is on (the check bytes travel with the data);
- **mapping**: granules of `interleave_bytes` go to channels in turn, or (`channel_hash: xor`) with
  the higher address bits XOR-folded onto the channel bits, so that a power-of-two stride spreads. A
  count with an odd factor (HBM: 192 = 3 x 64) takes the granule modulo the odd factor and folds the
  quotient onto the power-of-two part: any n consecutive granules still fill each channel once, and a
  power-of-two stride, which the odd factor does not divide, visits every residue;
- **activations**: the lines map to banks and rows (`page_bytes` rows, `banks` per channel, bank bits
  XOR-folded with the row so that strided streams spread); each access to a row that is not the
  bank's open row activates it. Activates overlap data on other banks, but a channel issues at most
  one every `activate_ns`, and a bank one every `row_cycle_ns` after its previous one: a transfer
  lasts at least n_activates x activate_ns, and until its last activate on each bank;
- **turnaround**: a channel that serves reads and writes loses `read_to_write_ns` + `write_to_read_ns`
  of bus time per `write_batch_bytes` written (the controller drains writes in batches);
- **refresh**: the channel stops for `refresh_all_bank_ns` every `refresh_interval_ns` (all-bank), or
  for `refresh_per_bank_ns` banks/2 times per interval (per-bank: the other banks keep serving). The
  windows are fixed in time, staggered across channels, so a transfer that spans one is stretched.

Each channel keeps the cycles lost to each cause, which the report adds up. Write-backs of evicted
dirty lines take channel time that nothing waits for, so a channel can still be booked when the run
ends: `totals(until)` counts only the channel time before `until` and reports the rest apart.
"""
from __future__ import annotations

import numpy as np

LOSSES = ("ecc", "activate", "turnaround", "refresh")


def _fold(g: np.ndarray, bits: int) -> np.ndarray:
    """`g` with every higher group of `bits` bits XORed onto its low `bits` bits."""
    h = g.copy()
    for i in range(1, -(-int(g.max()).bit_length() // bits)):
        h ^= g >> (i * bits)
    return h


class Dram:
    """The channels, their bank state and the address mapping of lines onto them."""

    def __init__(self, cfg):
        d = cfg.dram
        self.cfg = cfg
        self.n = d.channels
        self.bits = self.n.bit_length() - 1 if self.n & (self.n - 1) == 0 else 0
        # HBM: n = odd x 2^fold_bits (LPDDR5 keeps its linear fall-back for such counts, unchanged)
        self.fold_bits = (self.n & -self.n).bit_length() - 1 if d.kind == "hbm3e" else 0
        self.odd = self.n >> self.fold_bits if d.kind == "hbm3e" else 1
        self.granule = d.interleave_bytes
        self.banks = d.banks
        self.page = d.page_bytes
        self.ecc = cfg.dram_ecc_factor
        self.activate = cfg.ns_to_cycles(d.activate_ns)
        self.row_cycle = cfg.ns_to_cycles(d.row_cycle_ns)
        self.turn = cfg.ns_to_cycles(d.read_to_write_ns + d.write_to_read_ns)
        self.batch = d.write_batch_bytes
        if d.refresh == "all_bank":
            self.period, self.stop = cfg.ns_to_cycles(d.refresh_interval_ns), cfg.ns_to_cycles(d.refresh_all_bank_ns)
        elif d.refresh == "per_bank":
            per = d.per_bank_refreshes
            self.period = cfg.ns_to_cycles(d.refresh_interval_ns) / per
            self.stop = cfg.ns_to_cycles(d.refresh_per_bank_ns)
        else:
            self.period, self.stop = 1.0, 0.0
        self.bpc = cfg.dram_bpc / self.n

    def new_launch(self) -> None:
        """Idle channels at time 0, all banks closed. Per channel: when its bus frees, the cycles
        booked, of data alone, lost to each cause; its write batch; and per bank its open row and
        when it may activate again."""
        n = self.n
        self.phase = self.period * np.arange(n) / n          # refresh windows staggered across channels
        self.free_at = np.zeros(n)
        self.busy = np.zeros(n)
        self.data = np.zeros(n)
        self.lost = {k: np.zeros(n) for k in LOSSES}
        self.read_seen = np.zeros(n, np.bool_)               # a read came since the current write batch began
        self.batch_fill = np.zeros(n)                        # bytes of the current write batch
        self.open_rows = np.full(n * self.banks, -1, np.int64)
        self.bank_ready = np.zeros((n, self.banks))
        self.activates = 0                                   # rows opened (each also precharged later)

    def channel_of(self, addrs: np.ndarray) -> np.ndarray:
        """The channel of each byte address: interleave granules, optionally XOR-hashed."""
        g = np.asarray(addrs, np.int64) // self.granule
        n = self.n
        if self.cfg.dram.channel_hash == "xor" and self.bits:
            return _fold(g, self.bits) & (n - 1)
        if self.cfg.dram.channel_hash == "xor" and self.odd > 1:           # HBM's 3 x 64 pseudo-channels
            low = _fold(g // self.odd, self.fold_bits) & ((1 << self.fold_bits) - 1) if self.fold_bits else 0
            return low * self.odd + g % self.odd
        return g % n

    def access(self, now: float, addrs: np.ndarray, nbytes: np.ndarray, write: bool) -> tuple[np.ndarray, np.ndarray]:
        """Book `nbytes[i]` at byte address `addrs[i]` (lines, in address order) on their channels from
        `now`; return the end time on each channel (`now` where a channel got nothing) and the
        channel of each address."""
        ends = np.full(self.n, now, np.float64)
        if addrs.size == 0:
            return ends, np.zeros(0, np.int64)
        ch = self.channel_of(addrs)
        g = addrs // self.granule
        local = (g >> self.bits if self.bits else g // self.n) * self.granule + addrs % self.granule
        page = local // self.page
        row = page // self.banks
        key = ch * self.banks + (page ^ row) % self.banks          # (channel, bank)
        order = np.argsort(key, kind="stable")
        k, r = key[order], row[order]
        first = np.ones(k.size, np.bool_)
        first[1:] = k[1:] != k[:-1]
        prev = np.empty_like(r)
        prev[1:] = r[:-1]
        prev[first] = self.open_rows[k[first]]
        act = r != prev
        last = np.ones(k.size, np.bool_)
        last[:-1] = first[1:]
        self.open_rows[k[last]] = r[last]                           # open-page policy
        acts = np.bincount(k[act], minlength=self.n * self.banks).reshape(self.n, self.banks)
        self.activates += int(np.count_nonzero(act))
        per_ch = np.bincount(ch, weights=nbytes, minlength=self.n)
        used = per_ch > 0
        ends[used] = self._book(now, per_ch, acts, write)[used]
        return ends, ch

    def _book(self, now: float, nbytes: np.ndarray, acts: np.ndarray, write: bool) -> np.ndarray:
        """Book `nbytes[c]` on each channel c from `now` (`acts[c, b]`: rows it activates in bank b);
        return when each channel is through (channels with no bytes are left as they were)."""
        used = nbytes > 0
        lost = self.lost
        data = nbytes / self.bpc
        work = data * self.ecc
        lost["ecc"] += work - data
        start = np.maximum(now, self.free_at)
        if write:
            turn = np.where(self.read_seen, self.turn * nbytes / self.batch, 0.0)
            lost["turnaround"] += turn
            work += turn
            self.batch_fill += nbytes
            full = self.batch_fill >= self.batch
            self.batch_fill[full] = 0
            self.read_seen[full] = False
        else:
            self.read_seen |= used
        opened = acts > 0
        if opened.any():
            first = np.maximum(start[:, None], self.bank_ready)
            last = np.where(opened, first + (acts - 1) * self.row_cycle, -np.inf)
            self.bank_ready = np.where(opened, last + self.row_cycle, self.bank_ready)
            need = np.maximum(acts.sum(axis=1) * self.activate, last.max(axis=1) - start)
            extra = np.maximum(need - work, 0.0)
            lost["activate"] += extra
            work += extra
        end = self._through_refresh(start, work)
        end = np.where(used, end, self.free_at)
        lost["refresh"] += np.where(used, end - start - work, 0.0)
        self.busy += np.where(used, end - start, 0.0)
        self.data += data
        self.free_at = end
        return end

    def _through_refresh(self, start: np.ndarray, work: np.ndarray) -> np.ndarray:
        """When `work` cycles started at `start` end, skipping the stops [k P + phase, + stop)."""
        P, D = self.period, self.stop
        if D <= 0:
            return start + work
        t = start - self.phase
        k = np.floor(t / P)
        t = np.where(t - k * P < D, k * P + D, t)            # inside a stop: wait for its end
        avail = (k + 1) * P - t                              # run time left before the next stop
        rest = np.maximum(work - avail, 0.0)
        full = np.floor(rest / (P - D))
        left = rest - full * (P - D)
        base = (k + 1 + full) * P
        late = np.where(left > 0, base + D + left, base)
        return np.where(work <= avail, t + work, late) + self.phase

    def totals(self, until: float | None = None) -> dict[str, float]:
        """Channel cycles by use, summed over the channels: data, each loss, and all booked (`busy`).
        With `until` (the run's end), only what lies before it: a channel's bookings are back to back
        from the first that crosses `until` on (nothing is booked after the run, so each later booking
        starts where the one before ended), so each channel was busy from `until` to its `free_at`;
        that time is taken off its uses pro rata and returned as `after_end`."""
        busy = self.busy
        keep = np.ones(self.n)
        after = np.zeros(self.n)
        if until is not None:
            after = np.minimum(np.maximum(self.free_at - until, 0.0), busy)
            keep = np.divide(busy - after, busy, out=np.ones(self.n), where=busy > 0)
        out = {"data": float((self.data * keep).sum())}
        for k in LOSSES:
            out[k] = float((self.lost[k] * keep).sum())
        out["busy"] = float((busy - after).sum())
        out["after_end"] = float(after.sum())
        return out
