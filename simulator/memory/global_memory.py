"""Global memory: the byte-addressed DRAM and SRAM-scratch space that kernels' arrays live in.

Only allocated ranges hold data (each a numpy byte array), so a 128 GiB address space costs what the
arrays cost. Every array has an unmapped guard zone before and after it (`guard_bytes`), so an access
that runs off either end of an array lands in nothing rather than in its neighbour. Every access is
checked: one that leaves its array, or lands in a guard zone, is reported with the name of the array
whose guard it hit, its bounds and the offending address.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from isa.types import DRAM_BASE, SRAM_BASE, host_address_hint

from ..errors import SanitizerError

ALLOC_ALIGN = 256     # bytes; generous so every array starts on a DMA burst and an LLC line
# Guard zones: as large as the array itself, so that an overrun by up to a whole array length (a grid
# twice too large, a pointer offset by n) is caught and attributed. DRAM has 64-128 GiB of address
# space and unmapped bytes cost nothing, so a 64 KiB floor and a 1 GiB cap are cheap there; the SRAM
# scratch holds only 32-128 MiB, so its guards stop at 64 KiB (two 128x128 f32 tiles of overrun).
GUARD_BYTES = {"dram": (64 << 10, 1 << 30), "sram": (4 << 10, 64 << 10)}    # (floor, cap) per region


def guard_bytes(nbytes: int, region: str) -> int:
    """The unmapped bytes kept on each side of an array of `nbytes` in `region`."""
    floor, cap = GUARD_BYTES[region]
    return min(cap, max(floor, _round_up(nbytes)))


def _round_up(n: int) -> int:
    return (max(int(n), 1) + ALLOC_ALIGN - 1) // ALLOC_ALIGN * ALLOC_ALIGN


@dataclass
class Allocation:
    name: str
    base: int
    data: np.ndarray          # uint8, the bytes of the array
    region: str               # "dram" or "sram"
    written: np.ndarray | None = field(default=None, repr=False)   # per-byte "something wrote it"
    guard: int = 0            # unmapped bytes reserved before base and after end

    @property
    def end(self) -> int:
        return self.base + self.data.size

    def relation(self, lo: int, hi: int) -> str:
        """Where bytes [lo, hi), which are not all inside this array, sit against it (for errors)."""
        if lo >= self.end:
            return f"{lo - self.end} bytes past the end of {self.describe()}"
        if lo < self.base:
            return f"{self.base - lo} bytes before the start of {self.describe()}"
        return f"{hi - self.end} bytes past the end of {self.describe()}"

    def holds(self, addr: int) -> bool:
        return self.base <= addr < self.end

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
              track_writes: bool = False, address: int | None = None, guard: int | None = None) -> Allocation:
        """Place an array with a guard zone on each side: after the last one, or at `address` (the
        runtime places launch arguments and device arrays itself, so both executors see one layout)."""
        if region not in self.limits:
            raise ValueError(f"region {region!r} is not 'dram' or 'sram'")
        size = max(int(nbytes), 1)
        guard = guard_bytes(size, region) if guard is None else int(guard)
        base = self.next[region] + guard if address is None else int(address)
        lo, hi = self.limits[region]
        if base - guard < lo or base + size + guard > hi:
            raise SanitizerError(f"cannot place {name} ({nbytes} bytes and {guard}-byte guard zones) at {base:#x} "
                                 f"in {region.upper()} [{lo:#x}, {hi:#x}): the config's {region.upper()} is too small")
        i = bisect.bisect(self._bases, base)
        for j in (i - 1, i):
            if 0 <= j < len(self.allocs):
                o = self.allocs[j]
                if base - guard < o.end + o.guard and o.base - o.guard < base + size + guard:
                    raise SanitizerError(f"cannot place {name} at {base:#x}: it or its guard zones overlap {o.describe()}")
        data = np.zeros(size, np.uint8)
        if init is not None:
            data[: init.nbytes] = np.ascontiguousarray(init).reshape(-1).view(np.uint8)
        a = Allocation(name, base, data, region, np.zeros(size, np.bool_) if track_writes else None, guard)
        if init is not None and a.written is not None:
            a.written[:] = True
        self.next[region] = max(self.next[region], base + _round_up(size) + guard)
        self._bases.insert(i, base)
        self.allocs.insert(i, a)
        return a

    def free(self, a: Allocation) -> None:
        """Unmap an array (the runtime frees a launch's arguments after it, so a caller's Machine can
        run the next launch at the same addresses, with its LLC still warm)."""
        i = bisect.bisect_left(self._bases, a.base)
        if i == len(self.allocs) or self.allocs[i] is not a:
            raise ValueError(f"{a.describe()} is not allocated here")
        del self.allocs[i], self._bases[i]
        self.next[a.region] = max((o.base + _round_up(o.data.size) + o.guard for o in self.allocs
                                   if o.region == a.region), default=self.limits[a.region][0])

    def alloc_array(self, arr: np.ndarray, name: str, region: str = "dram", track_writes: bool = False) -> Allocation:
        return self.alloc(arr.nbytes, name, region, init=arr, track_writes=track_writes)

    def find(self, addr: int) -> Allocation | None:
        i = bisect.bisect(self._bases, addr) - 1
        if i >= 0 and addr < self.allocs[i].end:
            return self.allocs[i]
        return None

    def owner(self, addr: int) -> Allocation | None:
        """The array whose bytes or guard zones hold `addr`: the one an access there ran off."""
        i = bisect.bisect(self._bases, addr) - 1
        for j in (i, i + 1):
            if 0 <= j < len(self.allocs):
                a = self.allocs[j]
                if a.base - a.guard <= addr < a.end + a.guard:
                    return a
        return None

    def region_of(self, addr: int) -> str:
        return "sram" if addr < DRAM_BASE else "dram"

    # ---- checked access -----------------------------------------------------------------------
    def locate(self, lo: int, hi: int, what: str) -> tuple[Allocation, int]:
        """The allocation holding bytes [lo, hi) and lo's offset in it; an error otherwise."""
        a = self.find(lo)
        if a is not None and hi <= a.end:
            return a, lo - a.base
        raise SanitizerError(f"{_what(what)}: bytes [{lo:#x}, {hi:#x}) {self._off_array(lo, hi)}")

    def _off_array(self, lo: int, hi: int) -> str:
        """How bytes [lo, hi) miss every array: which array's end or start they ran off, by how much."""
        a = self.find(lo) or self.owner(lo)
        if a is not None:
            return ("run " if a.holds(lo) else "start ") + a.relation(lo, hi)
        near = self._nearest(lo)
        return "are outside every array" + (f"; the nearest array is {near.describe()}" if near else
                                            "; nothing is allocated there") + \
            host_address_hint(lo, self.limits["dram"][1])

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
        if 0 in shape:
            return np.empty(shape, dtype)
        lo = hi = 0                     # the lowest and highest element offsets
        for n, s in zip(shape, strides):
            if s < 0:
                lo += (n - 1) * s
            else:
                hi += (n - 1) * s
        a, _ = self.locate(base + lo * isz, base + hi * isz + isz, what)
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
        a = self.find(base) or self.owner(base) or self.find(lo)
        if a is None or lo < a.base or hi > a.end:
            bad = addr[(addr < a.base) | (addr + isz > a.end)] if a else addr
            first = int(bad.flat[0]) if bad.size else lo
            raise SanitizerError(f"{_what(what)}: address {first:#x} (element offset {(first - base) // isz}) "
                                 f"{self._element_miss(a, first, isz)}")
        return a, addr - a.base

    def _element_miss(self, a: Allocation | None, addr: int, isz: int) -> str:
        if a is None:
            return self._off_array(addr, addr + isz)
        return ("runs " if a.holds(addr) else "is ") + a.relation(addr, addr + isz)
