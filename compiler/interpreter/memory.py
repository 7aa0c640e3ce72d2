"""The interpreter's flat byte-addressed memory over the launch's device buffers.

Loads and stores are gathers/scatters by address: each lane's address is located in a buffer
(binary search over buffer start addresses), checked to lie fully inside it, and its bytes are
read or written. Masked-off lanes are never touched (so they may hold any address). An address
outside every buffer is reported against the buffer whose guard zone it fell in (the runtime keeps
one on each side of every buffer), as the simulator reports it: the array the access ran off.
"""
from __future__ import annotations

import numpy as np

from isa.types import DRAM_BASE, host_address_hint

from ..errors import OutOfBoundsError
from ..runtime.memory import DeviceBuffer


class FlatMemory:
    def __init__(self, buffers: list[DeviceBuffer], dram_bytes: int):
        """`buffers`: the launch's device buffers; `dram_bytes`: the capacity of the target config's
        DRAM, past whose end an address is named as a host pointer (as the simulator names it)."""
        self.dram_end = DRAM_BASE + dram_bytes
        self.buffers = sorted(buffers, key=lambda b: b.address)
        self.starts = np.array([b.address for b in self.buffers], dtype=np.int64)
        self.ends = np.array([b.end for b in self.buffers], dtype=np.int64)
        self.guards = np.array([b.guard for b in self.buffers], dtype=np.int64)

    # --- address resolution ---
    def _locate(self, addrs: np.ndarray, nbytes: int, what: str) -> np.ndarray:
        """Buffer index of each address; raises OutOfBoundsError naming the nearest array."""
        if not self.buffers:
            if addrs.size:
                raise OutOfBoundsError(f"out-of-bounds {what} at address {int(addrs[0]):#x}: the kernel has no "
                                       "array arguments")
            return np.zeros(0, dtype=np.int64)
        idx = np.searchsorted(self.starts, addrs, side="right") - 1
        safe = np.clip(idx, 0, len(self.buffers) - 1)
        ok = (idx >= 0) & (addrs >= self.starts[safe]) & (addrs + nbytes <= self.ends[safe])
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            raise OutOfBoundsError(self._describe(int(addrs[bad]), nbytes, int(idx[bad]), what))
        return idx

    def _describe(self, addr: int, nbytes: int, idx: int, what: str) -> str:
        msg = f"out-of-bounds {what} of {nbytes} byte(s) at address {addr:#x}"
        if idx + 1 < len(self.buffers) and (idx < 0 or addr >= self.ends[idx] + self.guards[idx]):
            idx += 1                                  # in the guard zone before the next buffer
        b = self.buffers[idx]
        desc = ", ".join(f"{a.size} x {a.dtype}" for a in b.arrays) if b.arrays else f"{b.size} bytes"
        where = f"'{b.name}' ([{b.address:#x}, {b.end:#x}), {desc}; byte offset {addr - b.address})"
        if addr < b.address:
            return msg + f": starts {b.address - addr} byte(s) before the start of array {where}"
        if addr >= b.end:
            return (msg + f": starts {addr - b.end} byte(s) past the end of array {where}"
                    + host_address_hint(addr, self.dram_end))
        return msg + f": runs {addr + nbytes - b.end} byte(s) past the end of array {where}"

    def _element_index(self, addrs: np.ndarray, itemsize: int):
        """Fast path: (buffer, element indices) when every address lies in one buffer, aligned to the
        element size from its start - the common case. None sends the access down the general path."""
        if not self.buffers or addrs.size == 0:
            return None
        lo, hi = int(addrs.min()), int(addrs.max())
        bi = int(np.searchsorted(self.starts, lo, side="right")) - 1
        if bi < 0 or hi + itemsize > self.ends[bi]:
            return None
        off = addrs - self.starts[bi]
        if itemsize > 1 and (off % itemsize).any():
            return None
        return self.buffers[bi], off // itemsize

    @staticmethod
    def _typed(buf: DeviceBuffer, dtype: np.dtype) -> np.ndarray:
        n = buf.size // dtype.itemsize * dtype.itemsize
        return buf.data[:n].view(dtype)

    def _byte_index(self, addrs: np.ndarray, idx: np.ndarray, itemsize: int):
        offs = addrs - self.starts[idx]
        return offs[:, None] + np.arange(itemsize, dtype=np.int64)

    # --- access ---
    def load(self, addrs: np.ndarray, dtype: np.dtype, mask: np.ndarray | None) -> np.ndarray:
        addrs = np.asarray(addrs, dtype=np.int64)
        flat = addrs.reshape(-1)
        m = np.ones(flat.shape, bool) if mask is None else np.broadcast_to(mask, addrs.shape).reshape(-1)
        active = flat[m]
        isz = dtype.itemsize
        fast = self._element_index(active, isz)
        if fast is not None:
            out = np.zeros(flat.shape, dtype=dtype)
            out[m] = self._typed(fast[0], dtype)[fast[1]]
            return out.reshape(addrs.shape)
        idx = self._locate(active, isz, "load")
        vals = np.zeros(active.shape, dtype=dtype)
        for bi in np.unique(idx):
            sel = idx == bi
            raw = self.buffers[bi].data[self._byte_index(active[sel], np.full(sel.sum(), bi), isz)]
            vals[sel] = raw.view(dtype).reshape(-1)
        out = np.zeros(flat.shape, dtype=dtype)
        out[m] = vals
        return out.reshape(addrs.shape)

    def store(self, addrs: np.ndarray, values: np.ndarray, mask: np.ndarray | None) -> None:
        addrs = np.asarray(addrs, dtype=np.int64)
        flat = addrs.reshape(-1)
        vals = np.ascontiguousarray(np.broadcast_to(values, addrs.shape)).reshape(-1)
        m = np.ones(flat.shape, bool) if mask is None else np.broadcast_to(mask, addrs.shape).reshape(-1)
        active, vals = flat[m], vals[m]
        isz = vals.dtype.itemsize
        fast = self._element_index(active, isz)
        if fast is not None:
            self._typed(fast[0], vals.dtype)[fast[1]] = vals
            return
        idx = self._locate(active, isz, "store")
        for bi in np.unique(idx):
            sel = idx == bi
            byts = np.ascontiguousarray(vals[sel]).view(np.uint8).reshape(-1, isz)
            self.buffers[bi].data[self._byte_index(active[sel], np.full(sel.sum(), bi), isz)] = byts
