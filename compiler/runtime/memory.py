"""Host memory for a launch: the user's numpy arrays become device buffers in the simulated address space.

Each argument array (or group of arrays sharing memory: views of one base overlap) becomes one
`DeviceBuffer`: a private byte copy placed at a 256-byte aligned address of simulated DRAM (or of the
SRAM scratch, for `sram_resident`), in argument order, with an unmapped guard zone on each side
(`simulator.memory.global_memory.guard_bytes`), so that a load or store off either end of an array
faults on both executors instead of reaching its neighbour. Both executors use these addresses.
Executors read and write only these copies; `commit` copies them back into the user's memory after
a successful run, so a failing launch leaves every user array unchanged. Strided views work because
a buffer spans every byte between the view's lowest and highest element, as the device would see them;
the pointer a kernel gets is the address of the view's element [0, 0, ...] (what torch's data_ptr() gives
and Triton passes), which is not the lowest byte when a stride is negative (`base[:, ::-1]`).
"""
from __future__ import annotations

import ctypes
import sys
from dataclasses import dataclass, field

import numpy as np

from isa.types import DRAM_BASE, SRAM_BASE

from ..ir import types as T

REGION_BASE = {"dram": DRAM_BASE, "sram": SRAM_BASE}
DEVICE_BASE = DRAM_BASE + (32 << 30)    # device arrays (device.py) from here up; launch arguments below
# torch dtypes numpy lacks, viewed through ml_dtypes' types of the same name and size
ML_DTYPES = ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")


class TensorWrapper:
    """`triton.reinterpret(tensor, dtype)`: a host array or CPU tensor whose bytes a launch reads as
    another element type of the same size (fp8 kept in uint8 tensors, unsigned ints in signed ones).

    Host code handles it as it handles the tensor, as Triton's TensorWrapper allows: `base` (and `data`)
    is the wrapped numpy array or torch tensor; `shape`, `stride`, `numel`, `element_size`, `device`
    and `data_ptr` are the base's; `new_empty`, `clone`, `cpu` and `to` give wrappers of the same
    reinterpreted dtype around new (or moved) storage; `copy_` copies another tensor's bytes in.
    Assigning `w.data = view` makes the wrapper see that view (of the same element size), as assigning
    a torch tensor's `.data` does; upstream's wrapper keeps a stale copy of the attribute instead."""
    __slots__ = ("base", "dtype")

    def __init__(self, base, dtype: T.ScalarType):
        self.base = base
        self.dtype = dtype

    def _wrap(self, base) -> "TensorWrapper":
        return reinterpret(base, self.dtype)

    @property
    def _is_torch(self) -> bool:
        return _is_torch(self.base)

    @property
    def data(self):
        """The storage tensor: a torch base's `.data` (an alias without autograd history), a numpy base
        itself (numpy's own `.data` is a raw buffer, not an array)."""
        return self.base.data if self._is_torch else self.base

    @data.setter
    def data(self, value):
        if isinstance(value, TensorWrapper):
            value = value.base
        size = host_array(value).dtype.itemsize
        if size != self.dtype.itemsize:
            raise TypeError(f"TensorWrapper[{self.dtype}].data = ...: the new data has {size}-byte elements, "
                            f"not the {self.dtype.itemsize}-byte ones of {self.dtype}")
        self.base = value

    @property
    def shape(self):
        return self.base.shape

    @property
    def device(self):
        """The base's device: a torch.device for a tensor, "cpu" for a numpy array (numpy 2 says so too)."""
        return getattr(self.base, "device", "cpu")

    def data_ptr(self) -> int:
        """The host address of the first element (what Triton passes to a GPU kernel; a launch here
        copies the bytes into simulated DRAM instead)."""
        if self._is_torch:
            return self.base.data_ptr()
        return int(np.asarray(self.base).__array_interface__["data"][0])

    def numel(self) -> int:
        return int(np.prod(self.base.shape))

    def stride(self, *dim):
        """The base's strides in elements (all, or of one dimension), as a torch tensor gives them."""
        a = host_array(self.base)
        strides = tuple(s // a.itemsize for s in a.strides)
        return strides[dim[0]] if dim else strides

    def element_size(self) -> int:
        return self.dtype.itemsize

    def new_empty(self, *sizes) -> "TensorWrapper":
        """Uninitialised storage of `sizes` (a tuple, or the sizes as arguments), seen as the same dtype."""
        shape = tuple(sizes[0]) if len(sizes) == 1 and not isinstance(sizes[0], int) else tuple(sizes)
        if self._is_torch:
            return self._wrap(self.base.new_empty(shape))
        return self._wrap(np.empty(shape, dtype=self.base.dtype))

    def clone(self) -> "TensorWrapper":
        """A wrapper of the same dtype around a copy of the storage."""
        return self._wrap(self.base.clone() if self._is_torch else self.base.copy())

    def copy_(self, other) -> "TensorWrapper":
        """Copy `other` (a wrapper, a tensor or an array) into this storage, as torch's copy_ does;
        returns this wrapper."""
        src = other.base if isinstance(other, TensorWrapper) else other
        if self._is_torch:
            self.base.copy_(src)
        else:
            np.copyto(self.base, host_array(src), casting="unsafe")
        return self

    def cpu(self) -> "TensorWrapper":
        return self._wrap(self.base.cpu()) if self._is_torch else self._wrap(self.base)

    def to(self, *args, **kwargs) -> "TensorWrapper":
        """The wrapper moved to a device, keeping its dtype. A numpy base lives on the host: only "cpu"."""
        if self._is_torch:
            return self._wrap(self.base.to(*args, **kwargs))
        device = args[0] if args else kwargs.get("device", "cpu")
        if len(args) > 1 or set(kwargs) - {"device"} or str(device) != "cpu":
            raise TypeError(f"a reinterpreted numpy array stays on the host: to({_call_args(args, kwargs)}) "
                            f"asks for more than to('cpu')")
        return self._wrap(self.base)

    def __str__(self) -> str:
        return f"TensorWrapper[{self.dtype}]({self.base})"

    def __repr__(self) -> str:
        return f"TensorWrapper(dtype={self.dtype!r}, base={self.base!r})"


def _call_args(args, kwargs) -> str:
    return ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])


def _is_torch(v) -> bool:
    return type(v).__module__.split(".")[0] == "torch" and hasattr(v, "untyped_storage")


def reinterpret(tensor, dtype: T.ScalarType):
    """Triton's triton.reinterpret: the same memory, seen by kernels as elements of `dtype`. Rewrapping
    a wrapper as its base's own dtype gives the base back, as in Triton. `dtype` may be a torch dtype
    (upstream's tests pass one): the Triton type of that torch dtype."""
    if type(dtype).__module__ == "torch":
        dtype = T.from_numpy(host_array(sys.modules["torch"].empty(0, dtype=dtype)).dtype)
    if isinstance(tensor, TensorWrapper):
        tensor = tensor.base
        try:
            if T.from_numpy(host_array(tensor).dtype) == dtype:
                return tensor
        except TypeError:
            pass
    size = host_array(tensor).dtype.itemsize
    if not isinstance(dtype, T.ScalarType) or dtype.itemsize != size:
        raise TypeError(f"reinterpret: {dtype} does not have the {size}-byte elements of the tensor")
    return TensorWrapper(tensor, dtype)


def host_array(v):
    """A numpy view of a CPU torch tensor, sharing its memory (its strides and storage offset too), so a
    launch reads the tensor's bytes in place and writes results back into it; a reinterpreted one viewed
    as its new dtype; anything else as it is.
    torch is never imported here: a tensor's own module is used, only when the user passed one."""
    if isinstance(v, TensorWrapper):
        return host_array(v.base).view(v.dtype.np_dtype)
    if not _is_torch(v):
        return v
    torch = sys.modules["torch"]
    if v.device.type != "cpu":
        raise TypeError(f"a torch tensor on {v.device} cannot be passed: the simulator reads host memory "
                        f"(pass a CPU tensor, e.g. t.cpu())")
    t = v.detach()
    name = str(t.dtype).removeprefix("torch.")
    if name in ML_DTYPES:
        import ml_dtypes
        bits = {1: torch.uint8, 2: torch.int16}[t.element_size()]
        return t.view(bits).numpy().view(getattr(ml_dtypes, name))
    return t.numpy()


def _byte_bounds(a: np.ndarray) -> tuple[int, int]:
    try:
        from numpy.lib.array_utils import byte_bounds
    except ImportError:  # numpy < 2
        byte_bounds = np.byte_bounds
    lo, hi = byte_bounds(a)
    return int(lo), int(hi)


def _first_element(a: np.ndarray) -> int:
    """The host address of element [0, 0, ...]: with a negative stride it lies above the lowest byte."""
    return int(a.__array_interface__["data"][0])


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
    # no bytes: a device array of a timing-only run (`device.lazy_device_array`) whose `data` is all zero
    # pages never touched; launches place it empty and never copy it, so it costs no host memory
    lazy: bool = False

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
    """Where each array will live: group index and the byte offset of its element [0, 0, ...] inside its
    group, per argument name."""
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
            placement[n] = (gi, _first_element(arrays[n]) - lo)
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
    if cursor["dram"] > DEVICE_BASE:
        raise ValueError(f"the launch's arrays need {cursor['dram'] - DRAM_BASE:,} bytes of simulated DRAM with their "
                         f"guard zones; at most {DEVICE_BASE - DRAM_BASE:,} are kept for them (device arrays sit above)")
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
