"""A tensor descriptor built on the host and passed to a kernel, as Triton's
`triton.tools.tensor_descriptor.TensorDescriptor` (the persistent-matmul tutorial, Inductor's TMA
templates): `desc = TensorDescriptor.from_tensor(a, [BM, BK])`, then `kernel[grid](desc, ...)` and
`desc.load([m, k])` inside.

At launch the descriptor is split like a tuple argument (frontend/aggregate_params.py): its base array,
each extent and each stride become runtime parameters, its block shape and padding are compile-time,
and the kernel sees the descriptor `tl.make_tensor_descriptor` would have built from them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

MAX_RANK = 5           # as Triton's descriptors (the TMA's five dimensions)


@dataclass
class TensorDescriptor:
    base: Any                       # the array: numpy, CPU torch or a device array
    shape: Sequence[int]            # in elements
    strides: Sequence[int]          # in elements; the last is 1
    block_shape: Sequence[int]      # the tile one load or store moves; powers of 2
    padding: str = "zero"           # what a load reads outside the shape

    def __post_init__(self):
        self.shape, self.strides, self.block_shape = tuple(self.shape), tuple(self.strides), tuple(self.block_shape)
        rank = len(self.shape)
        if not 0 < rank <= MAX_RANK:
            raise ValueError(f"a tensor descriptor has 1 to {MAX_RANK} dimensions, not {rank} (shape {self.shape})")
        if len(self.strides) != rank or len(self.block_shape) != rank:
            raise ValueError(f"shape {self.shape}, strides {self.strides} and block_shape {self.block_shape} "
                             f"must have the same length")
        for b in self.block_shape:
            if not isinstance(b, (int, np.integer)) or b < 1 or b & (b - 1):
                raise ValueError(f"block_shape {self.block_shape}: each size must be a power of 2")
        if self.strides[-1] != 1:
            raise ValueError(f"strides {self.strides}: the last dimension must be contiguous (stride 1)")
        size = np.dtype(_dtype(self.base)).itemsize
        for s in self.strides[:-1]:
            if (int(s) * size) % 16:
                raise ValueError(f"strides {self.strides}: each stride but the last must be a multiple of 16 "
                                 f"bytes ({s} elements of {size} bytes is not)")
        if self.padding not in ("zero", "nan"):
            raise ValueError(f"padding must be 'zero' or 'nan', not {self.padding!r}")

    @staticmethod
    def from_tensor(tensor: Any, block_shape: Sequence[int], padding: str = "zero") -> "TensorDescriptor":
        """The descriptor of a whole array: its shape and strides (in elements)."""
        return TensorDescriptor(tensor, tuple(tensor.shape), _strides(tensor), block_shape, padding)


def _dtype(base):
    dt = base.dtype
    if hasattr(dt, "itemsize") and not isinstance(dt, np.dtype) and hasattr(base, "element_size"):
        return np.dtype(f"V{base.element_size()}")          # a torch dtype: only its size matters here
    return dt


def _strides(tensor) -> tuple:
    stride = getattr(tensor, "stride", None)
    if callable(stride):                                      # torch (or a wrapper): in elements
        return tuple(stride())
    if hasattr(tensor, "strides"):                            # numpy: in bytes
        return tuple(s // tensor.itemsize for s in tensor.strides)
    out, step = [], 1                                         # a device array: contiguous
    for n in reversed(tuple(tensor.shape)):
        out.append(step)
        step *= n
    return tuple(reversed(out))
