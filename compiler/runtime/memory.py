"""Host memory for a launch: the user's numpy arrays become device buffers in the simulated address space.

Each argument array (or group of arrays sharing memory: views of one base overlap) becomes one
`DeviceBuffer`: a private byte copy placed at a 256-byte aligned address of simulated DRAM (or of the
SRAM scratch, for `sram_resident`), in argument order, with an unmapped guard zone on each side
(`simulator.memory.global_memory.guard_bytes`), so that a load or store off either end of an array
faults on both executors instead of reaching its neighbour. Both executors use these addresses.
Executors read and write only these copies; `commit` copies them back into the user's memory after
a successful run, so a failing launch leaves every user array unchanged. Strided views work because
a buffer spans every byte between the view's first and last element, as the device would see them.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass, field

import numpy as np

from ..ir import types as T

from isa.types import DRAM_BASE, SRAM_BASE

REGION_BASE = {"dram": DRAM_BASE, "sram": SRAM_BASE}


def _byte_bounds(a: np.ndarray) -> tuple[int, int]:
    try:
        from numpy.lib.array_utils import byte_bounds
    except ImportError:  # numpy < 2
        byte_bounds = np.byte_bounds
    lo, hi = byte_bounds(a)
    return int(lo), int(hi)


def _raw_bytes(lo: int, hi: int) -> np.ndarray:
    """A writable uint8 view of host memory [lo, hi) (inside a live numpy allocation)."""
    if hi <= lo:
        return np.zeros(0, np.uint8)
    return np.frombuffer((ctypes.c_uint8 * (hi - lo)).from_address(lo), dtype=np.uint8)


@dataclass(eq=False)
class DeviceBuffer:
    """Bytes of the device address space [address, address + size) holding argument data."""
    name: str
    address: int
    data: np.ndarray                         # uint8, the executor's private copy
    arrays: list = field(default_factory=list, repr=False)   # the user's arrays living here
    _host: np.ndarray | None = field(default=None, repr=False)  # view of the user's bytes
    region: str = "dram"                     # "dram" or "sram" (the SRAM scratch)
    guard: int = 0                           # unmapped bytes kept before address and after end

    @property
    def size(self) -> int:
        return int(self.data.size)

    @property
    def end(self) -> int:
        return self.address + self.size


@dataclass(frozen=True)
class PointerArg:
    """A pointer argument: `offset` bytes into `buffer`, pointing to `elem` elements."""
    buffer: DeviceBuffer
    offset: int
    elem: T.DType
    array: np.ndarray = field(repr=False, compare=False, default=None)

    @property
    def address(self) -> int:
        return self.buffer.address + self.offset


@dataclass
class BufferPlan:
    """Where each array will live: group index and byte offset inside its group, per argument name."""
    groups: list                      # [(lo, hi, [names])]
    placement: dict                   # name -> (group index, byte offset)

    def offset(self, name: str) -> int:
        return self.placement[name][1]


def plan_buffers(arrays: dict[str, np.ndarray]) -> BufferPlan:
    spans = sorted(((*_byte_bounds(a), n) for n, a in arrays.items()), key=lambda s: (s[0], s[1]))
    groups: list = []
    for lo, hi, name in spans:
        if groups and lo < groups[-1][1] and hi > groups[-1][0]:
            g = groups[-1]
            groups[-1] = (g[0], max(g[1], hi), g[2] + [name])
        else:
            groups.append((lo, hi, [name]))
    placement = {}
    for gi, (lo, _, names) in enumerate(groups):
        for n in names:
            placement[n] = (gi, _byte_bounds(arrays[n])[0] - lo)
    return BufferPlan(groups, placement)


def in_sram(choice, names) -> bool:
    """`sram_resident=True` keeps every argument array in SRAM scratch (the paper's LLS, for models
    whose tensors fit on chip); a list/tuple of argument names keeps just those there."""
    if not choice:
        return False
    return choice is True or bool(set(names) & set(choice))


def pack(arrays: dict[str, np.ndarray], plan: BufferPlan | None = None,
         sram_resident=None) -> tuple[list[DeviceBuffer], dict]:
    """Copy the arrays into device buffers; returns (buffers, {name: PointerArg}). Buffers are placed
    in argument order (the order of `arrays`), not by host address, which varies run to run: simulated
    addresses decide LLC sets and DRAM channels, so the same launch must get the same layout."""
    from simulator.memory.global_memory import ALLOC_ALIGN, guard_bytes
    plan = plan or plan_buffers(arrays)
    cursor = dict(REGION_BASE)
    buffers: dict[int, DeviceBuffer] = {}
    for name in arrays:
        gi = plan.placement[name][0]
        if gi in buffers:
            continue
        lo, hi, names = plan.groups[gi]
        host = _raw_bytes(lo, hi)
        region = "sram" if in_sram(sram_resident, names) else "dram"
        guard = guard_bytes(host.size, region)
        address = cursor[region] + guard
        cursor[region] = address + (max(host.size, 1) + ALLOC_ALIGN - 1) // ALLOC_ALIGN * ALLOC_ALIGN + guard
        buffers[gi] = DeviceBuffer("/".join(names), address, host.copy(), [arrays[n] for n in names], host,
                                   region, guard)
    ptrs = {}
    for n, (gi, off) in plan.placement.items():
        ptrs[n] = PointerArg(buffers[gi], off, T.from_numpy(arrays[n].dtype), arrays[n])
    return list(buffers.values()), ptrs


def commit(buffers: list[DeviceBuffer]) -> None:
    """Copy what the kernel wrote back into the user's arrays (call only after a successful run)."""
    changed = [b for b in buffers if b._host is not None and not np.array_equal(b.data, b._host)]
    for b in changed:
        if not all(a.flags.writeable for a in b.arrays):
            raise ValueError(f"the kernel wrote to read-only array argument '{b.name}'")
    for b in changed:
        b._host[...] = b.data
