"""Value types shared by every instruction: dtypes, register references and tile operands.

A `Tile` names a slot of a circular buffer in the local store together with the logical dtype and
shape the instruction sees there. Its `mode` says what the command does to the CB pointers:

- ``pop``     read the slot at the read pointer (+offset), release it when the command completes
- ``keep``    read the slot at the read pointer (+offset) and leave it for later readers
- ``push``    write a fresh slot at the write pointer, publish it when the command completes
- ``acc``     read-modify-write the slot at the read pointer (+offset) in place (accumulators)

Slots are resolved when the command is issued, in program order, so the data a command sees never
depends on timing; the command then starts once its inputs are written and its outputs are free.
"""
from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

# Assembly name -> numpy dtype. i1 (Triton's bool) is stored one byte per element.
DTYPES: dict[str, np.dtype] = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8), "i16": np.dtype(np.int16), "i32": np.dtype(np.int32), "i64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8), "u16": np.dtype(np.uint16), "u32": np.dtype(np.uint32), "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16), "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
    "f8e4m3": np.dtype(ml_dtypes.float8_e4m3fn), "f8e5m2": np.dtype(ml_dtypes.float8_e5m2),
}
DTYPE_NAMES: dict[np.dtype, str] = {v: k for k, v in DTYPES.items()}
# fp8 formats only stored and moved (the compiler converts them with integer and f16/f32 ops, see
# compiler/language/fp8_storage.py): their tiles are bytes to every engine
STORAGE_DTYPES = ("f8e4b15", "f8e4m3fnuz", "f8e5m2fnuz")
DTYPES.update({name: np.dtype(np.uint8) for name in STORAGE_DTYPES})

FLOAT_DTYPES = frozenset({"f16", "bf16", "f32", "f64", "f8e4m3", "f8e5m2"})
INT_DTYPES = frozenset({"i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"})

TILE_MODES = ("pop", "keep", "push", "acc")
READ_MODES = frozenset({"pop", "keep", "acc"})
WRITE_MODES = frozenset({"push", "acc"})


def np_dtype(name: str) -> np.dtype:
    """The numpy dtype of an assembly dtype name ('f16', 'bf16', 'i32', ...)."""
    try:
        return DTYPES[name]
    except KeyError:
        raise ValueError(f"unknown dtype {name!r}; expected one of {', '.join(DTYPES)}") from None


def itemsize(name: str) -> int:
    return np_dtype(name).itemsize


@dataclass(frozen=True, slots=True)
class X:
    """A reference to integer register x<n> (x0 reads as zero)."""
    n: int

    def __str__(self) -> str:
        return f"x{self.n}"


@dataclass(frozen=True, slots=True)
class F:
    """A reference to float register f<n> (holds an f32 value)."""
    n: int

    def __str__(self) -> str:
        return f"f{self.n}"


@dataclass(frozen=True, slots=True)
class V:
    """A reference to vector register v<n> (64 bytes; LMUL groups consecutive registers)."""
    n: int

    def __str__(self) -> str:
        return f"v{self.n}"


@dataclass(frozen=True, slots=True)
class Tile:
    """A CB slot seen as a tile: `cb3.pop:f16[128x32]`, `cb0.acc+1:f32[64x64]`."""
    cb: int
    mode: str
    dtype: str
    shape: tuple[int, ...]
    offset: int = 0

    def __post_init__(self) -> None:
        if self.mode not in TILE_MODES:
            raise ValueError(f"tile mode {self.mode!r} is not one of {', '.join(TILE_MODES)}")
        np_dtype(self.dtype)
        if any((not isinstance(d, int)) or d < 1 for d in self.shape):
            raise ValueError(f"tile shape {self.shape} must be positive integers")
        if self.offset < 0 or (self.offset and self.mode == "push"):
            raise ValueError("a tile offset is a non-negative distance from the read pointer (not for push)")

    @property
    def nbytes(self) -> int:
        n = itemsize(self.dtype)
        for d in self.shape:
            n *= d
        return n

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __str__(self) -> str:
        off = f"+{self.offset}" if self.offset else ""
        return f"cb{self.cb}.{self.mode}{off}:{self.dtype}[{'x'.join(map(str, self.shape))}]"


# Address map of the simulated machine, seen by scalar loads/stores and DMA descriptors.
LS_BASE = 0x0000_0000          # the PE's own local store: [0, local store size)
SRAM_BASE = 0x4000_0000        # the software-managed part of on-chip SRAM (LLS)
DRAM_BASE = 0x1_0000_0000      # LPDDR; cached by the LLC part of SRAM


def host_address_hint(addr: int, dram_end: int) -> str:
    """What an error about an access at `addr` adds when the address lies beyond the device's DRAM
    (`dram_end`): most likely a host pointer (a `tensor.data_ptr()` of host memory, 0x55... or 0x7f...
    on Linux) that a kernel read from a pointer table, as GPU code written for CUDA tensors does."""
    if addr < dram_end:
        return ""
    return (f"; {addr:#x} is beyond the device's memory (which ends at {dram_end:#x}): if it came from a "
            f"pointer table, the table holds host addresses; keep the arrays it points to in device memory "
            f"with compiler.runtime.device_array(...) and store their .data_ptr()")
