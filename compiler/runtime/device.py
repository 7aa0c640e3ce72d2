"""Device memory: arrays that live in simulated DRAM across launches, each at a device address.

    a = compiler.runtime.device_array(np.random.rand(128, 64).astype(np.float16), name="A")
    table = compiler.runtime.device_array(np.array([a.data_ptr(), b.data_ptr()], np.int64))
    kernel[grid](table, a, ...)          # a device array is a pointer argument; so is a host array
    a.to_host()                          # a numpy copy of what the kernels left there

A device array is placed once, in the upper part of simulated DRAM (from DEVICE_BASE; launch
arguments copied from the host sit below it), with guard zones on each side like every array, and
keeps its address until it is garbage collected. Every launch sees every live device array at its
address, on both executors, so a kernel may load an address from memory (a pointer table, as Triton's
grouped-GEMM tutorial does with `tl.load(ptrs + g).to(tl.pointer_type(tl.float16))`) and dereference
it; an access off one still names it. A launch works on copies and commits them back only when it
succeeds, so a failed launch leaves device arrays unchanged, as it leaves host arrays.
"""
from __future__ import annotations

import bisect
import itertools
import weakref

import numpy as np

from .memory import DEVICE_BASE, DeviceBuffer, host_array

_live: dict[int, DeviceBuffer] = {}     # address -> persistent storage of each live device array
_names = itertools.count()


class DeviceArray:
    """An array in simulated DRAM (see the module doc). `data_ptr()` is its device address."""

    def __init__(self, host: np.ndarray, name: str | None = None):
        from simulator.memory.global_memory import guard_bytes
        data = np.ascontiguousarray(host).reshape(-1).view(np.uint8).copy()
        self.shape, self.dtype = tuple(host.shape), host.dtype
        self.name = name or f"device_array#{next(_names)}"
        guard = guard_bytes(data.size, "dram")
        self.address = _place(max(data.size, 1), guard)
        self._buffer = DeviceBuffer(self.name, self.address, data, region="dram", guard=guard)
        _live[self.address] = self._buffer
        weakref.finalize(self, _live.pop, self.address, None)

    @property
    def nbytes(self) -> int:
        return self._buffer.size

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def data_ptr(self) -> int:
        return self.address

    def to_host(self) -> np.ndarray:
        """A numpy copy of the array as the last successful launch left it."""
        return self._buffer.data.view(self.dtype).reshape(self.shape).copy()

    def __repr__(self) -> str:
        return f"DeviceArray({self.name}, {self.dtype}{list(self.shape)} at {self.address:#x})"


def device_array(x, name: str | None = None) -> DeviceArray:
    """Copy a numpy array or CPU torch tensor into simulated DRAM, to stay there across launches."""
    host = host_array(x)
    if not isinstance(host, np.ndarray):
        raise TypeError(f"device_array() takes a numpy array or a CPU torch tensor, got {type(x).__name__}")
    return DeviceArray(host, name)


def _place(size: int, guard: int) -> int:
    """The lowest address from DEVICE_BASE whose guarded span overlaps no live device array's."""
    def aligned(a: int) -> int:
        return (a + 255) // 256 * 256
    address = aligned(DEVICE_BASE + guard)
    for lo, hi in sorted((a - b.guard, b.end + b.guard) for a, b in _live.items()):
        if address + size + guard <= lo:
            break
        address = max(address, aligned(hi + guard))
    return address


def launch_buffers() -> list[DeviceBuffer]:
    """Private copies of every live device array for one launch; `commit` writes them back."""
    return [DeviceBuffer(b.name, b.address, b.data.copy(), [], b.data, b.region, b.guard)
            for _, b in sorted(_live.items())]


def buffer_of(arr: DeviceArray, buffers: list[DeviceBuffer]) -> DeviceBuffer:
    i = bisect.bisect_left([b.address for b in buffers], arr.address)
    return buffers[i]
