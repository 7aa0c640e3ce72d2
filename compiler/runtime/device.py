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

    def __init__(self, host: np.ndarray, name: str | None = None, lazy: bool = False):
        from simulator.memory.global_memory import guard_bytes
        if lazy:            # zero pages the OS maps on first touch, and nothing touches them
            data = np.zeros(host.nbytes, np.uint8)
        else:
            data = np.ascontiguousarray(host).reshape(-1).view(np.uint8).copy()
        self.shape, self.dtype = tuple(host.shape), host.dtype
        self.name = name or f"device_array#{next(_names)}"
        guard = guard_bytes(data.size, "dram")
        self.address = _place(max(data.size, 1), guard)
        self._buffer = DeviceBuffer(self.name, self.address, data, region="dram", guard=guard, lazy=lazy)
        self._offset, self._base = 0, None
        _live[self.address] = self._buffer
        weakref.finalize(self, _live.pop, self.address, None)

    def view(self, dtype, byte_offset: int = 0) -> "DeviceArray":
        """This array's memory from `byte_offset` on as a flat array of `dtype`, sharing it: a pointer
        into the middle of an array (what a storage offset is), which keeps the array alive."""
        dtype = np.dtype(dtype)
        start = self._offset + byte_offset
        if not 0 <= start <= self._buffer.size or start % dtype.itemsize:
            raise ValueError(f"a view of {self.name} at byte {start} as {dtype}: outside its {self._buffer.size} "
                             f"bytes or not a multiple of {dtype.itemsize}")
        v = object.__new__(DeviceArray)
        v.shape, v.dtype, v.name = ((self._buffer.size - start) // dtype.itemsize,), dtype, self.name
        v.address, v._buffer, v._offset, v._base = self._buffer.address + start, self._buffer, start, self._base or self
        return v

    @property
    def nbytes(self) -> int:
        return self._buffer.size - self._offset

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def data_ptr(self) -> int:
        return self.address

    def to_host(self) -> np.ndarray:
        """A numpy copy of the array as the last successful launch left it."""
        return self._buffer.data[self._offset:self._offset + self.size * self.dtype.itemsize].view(
            self.dtype).reshape(self.shape).copy()

    def __repr__(self) -> str:
        return f"DeviceArray({self.name}, {self.dtype}{list(self.shape)} at {self.address:#x})"


def device_array(x, name: str | None = None) -> DeviceArray:
    """Copy a numpy array or CPU torch tensor into simulated DRAM, to stay there across launches."""
    host = host_array(x)
    if not isinstance(host, np.ndarray):
        raise TypeError(f"device_array() takes a numpy array or a CPU torch tensor, got {type(x).__name__}")
    return DeviceArray(host, name)


def lazy_device_array(shape: tuple, dtype, name: str | None = None) -> DeviceArray:
    """An array of `shape` and `dtype` placed in simulated DRAM with no bytes behind it: for timing-only
    launches of kernels that never look at its values (`simulator/pe/timing_only.py`). It reads as zeros,
    and what a launch writes into it is dropped, so a model's weights cost address space, not host memory."""
    return DeviceArray(np.lib.stride_tricks.as_strided(np.zeros(1, dtype), tuple(shape), (0,) * len(shape)),
                       name, lazy=True)


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
    """Private copies of every live device array for one launch; `commit` writes them back. A lazy array
    is shared, not copied, and never written back (it holds no bytes)."""
    return [DeviceBuffer(b.name, b.address, b.data, [], None, b.region, b.guard, lazy=True) if b.lazy else
            DeviceBuffer(b.name, b.address, b.data.copy(), [], b.data, b.region, b.guard)
            for _, b in sorted(_live.items())]


def buffer_of(arr: DeviceArray, buffers: list[DeviceBuffer]) -> DeviceBuffer:
    """The buffer (of `launch_buffers()`, sorted by address) that `arr`, or the array it views, lives in."""
    i = bisect.bisect_right([b.address for b in buffers], arr.address) - 1
    return buffers[i]
