"""Global memory: the byte-addressed DRAM and SRAM-scratch space that kernels' arrays live in.

Only allocated ranges hold data (each a numpy byte array), so a 128 GiB address space costs what the
arrays cost. Every access is checked against the allocation it starts in: an access that leaves it
is reported with the array's name, its bounds and the offending address.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from isa.types import DRAM_BASE, SRAM_BASE

from ..errors import SanitizerError

ALLOC_ALIGN = 256     # bytes; generous so every array starts on a DMA burst and an LLC line


@dataclass
class Allocation:
    name: str
    base: int
    data: np.ndarray          # uint8, the bytes of the array
    region: str               # "dram" or "sram"
    written: np.ndarray | None = field(default=None, repr=False)   # per-byte "something wrote it"

    @property
    def end(self) -> int:
        return self.base + self.data.size

    def describe(self) -> str:
        return f"{self.name} [{self.base:#x}, {self.end:#x}) in {self.region.upper()}"


def _what(what) -> str:
    """Error context ("<kernel, program, PE, instruction>: out-of-bounds load") is built only when
    an error is raised, since it formats an instruction."""
    return what() if callable(what) else what


class GlobalMemory:
    def __init__(self, dram_bytes: int, sram_scratch_bytes: int):
        self.limits = {"dram": (DRAM_BASE, DRAM_BASE + dram_bytes), "sram": (SRAM_BASE, SRAM_BASE + sram_scratch_bytes)}
        self.next = {"dram": DRAM_BASE, "sram": SRAM_BASE}
        self.allocs: list[Allocation] = []
        self._bases: list[int] = []

    # ---- allocation ---------------------------------------------------------------------------
    def alloc(self, nbytes: int, name: str, region: str = "dram", init: np.ndarray | None = None,
              track_writes: bool = False) -> Allocation:
        if region not in self.limits:
            raise ValueError(f"region {region!r} is not 'dram' or 'sram'")
        base = self.next[region]
        lo, hi = self.limits[region]
        size = max(int(nbytes), 1)
        if base + size > hi:
            raise SanitizerError(f"cannot place {name} ({nbytes} bytes) in {region.upper()}: "
                                 f"{(hi - base)} of {hi - lo} bytes are left")
        data = np.zeros(size, np.uint8)
        if init is not None:
            data[: init.nbytes] = np.ascontiguousarray(init).reshape(-1).view(np.uint8)
        a = Allocation(name, base, data, region, np.zeros(size, np.bool_) if track_writes else None)
        if init is not None and a.written is not None:
            a.written[:] = True
        self.next[region] = base + (size + ALLOC_ALIGN - 1) // ALLOC_ALIGN * ALLOC_ALIGN
        i = bisect.bisect(self._bases, base)
        self._bases.insert(i, base)
        self.allocs.insert(i, a)
        return a

    def alloc_array(self, arr: np.ndarray, name: str, region: str = "dram", track_writes: bool = False) -> Allocation:
        return self.alloc(arr.nbytes, name, region, init=arr, track_writes=track_writes)

    def find(self, addr: int) -> Allocation | None:
        i = bisect.bisect(self._bases, addr) - 1
        if i >= 0 and addr < self.allocs[i].end:
            return self.allocs[i]
        return None

    def region_of(self, addr: int) -> str:
        return "sram" if addr < DRAM_BASE else "dram"

    # ---- checked access -----------------------------------------------------------------------
    def locate(self, lo: int, hi: int, what: str) -> tuple[Allocation, int]:
        """The allocation holding bytes [lo, hi) and lo's offset in it; an error otherwise."""
        a = self.find(lo)
        if a is not None and hi > a.end:
            raise SanitizerError(f"{_what(what)}: bytes [{lo:#x}, {hi:#x}) run {hi - a.end} bytes past "
                                 f"the end of {a.describe()}")
        if a is None:
            near = self._nearest(lo)
            where = f"; the nearest array is {near.describe()}" if near else "; nothing is allocated there"
            raise SanitizerError(f"{_what(what)}: bytes [{lo:#x}, {hi:#x}) are outside every array{where}")
        return a, lo - a.base

    def _nearest(self, addr: int) -> Allocation | None:
        if not self.allocs:
            return None
        i = bisect.bisect(self._bases, addr) - 1
        cands = [self.allocs[j] for j in (i, i + 1) if 0 <= j < len(self.allocs)]
        return min(cands, key=lambda a: min(abs(addr - a.base), abs(addr - a.end)))

    def box_view(self, base: int, dtype: np.dtype, shape: tuple[int, ...], strides: tuple[int, ...],
                 what: str) -> np.ndarray:
        """A writable view of the elements base + sum(i_k * strides_k) * itemsize, i_k < shape_k."""
        isz = dtype.itemsize
        if any(s == 0 for s in shape):
            return np.empty(shape, dtype)
        lo_off = sum(min(0, (n - 1) * s) for n, s in zip(shape, strides)) * isz
        hi_off = sum(max(0, (n - 1) * s) for n, s in zip(shape, strides)) * isz + isz
        a, _ = self.locate(base + lo_off, base + hi_off, what)
        return np.ndarray(tuple(shape), dtype, buffer=a.data, offset=base - a.base,
                          strides=tuple(s * isz for s in strides))

    def track(self, base: int, isz: int, shape, strides, write: bool, what) -> None:
        """For arrays allocated with track_writes: a write marks its bytes, a read of bytes nothing
        wrote is reported. Costs nothing for other arrays."""
        a = self.find(base)
        if a is None or a.written is None or 0 in tuple(shape):
            return
        offs = np.zeros(1, np.int64) + (base - a.base)
        for n, s in zip(shape, strides):
            offs = (offs[:, None] + np.arange(n, dtype=np.int64)[None, :] * (s * isz)).reshape(-1)
        byte_idx = (offs[:, None] + np.arange(isz)[None, :]).reshape(-1)
        self.track_bytes(a, byte_idx, write, what)

    def track_bytes(self, a: Allocation, byte_idx: np.ndarray, write: bool, what) -> None:
        if a.written is None:
            return
        if write:
            a.written[byte_idx] = True
        elif byte_idx.size and not a.written[byte_idx].all():
            bad = int(byte_idx[np.argmin(a.written[byte_idx])])
            raise SanitizerError(f"{_what(what)}: reads byte {a.base + bad:#x} of {a.name}, which was never written")

    def element_addresses(self, base: int, offsets: np.ndarray, isz: int, what: str) -> tuple[Allocation, np.ndarray]:
        """Byte offsets (into one allocation) of base + offsets * isz; all must be inside it."""
        if offsets.size == 0:
            a = self.find(base) or self._nearest(base)
            return a, np.zeros(0, np.int64)
        addr = base + offsets.astype(np.int64) * isz
        lo, hi = int(addr.min()), int(addr.max()) + isz
        a = self.find(base) or self.find(lo)
        if a is None or lo < a.base or hi > a.end:
            bad = addr[(addr < (a.base if a else 0)) | (addr + isz > (a.end if a else 0))] if a else addr
            first = int(bad.flat[0]) if bad.size else lo
            near = a or self._nearest(first)
            where = f"; the array is {near.describe()}" if near else "; nothing is allocated there"
            raise SanitizerError(f"{_what(what)}: address {first:#x} (element offset "
                                 f"{(first - base) // isz}) is outside the array{where}")
        return a, addr - a.base
