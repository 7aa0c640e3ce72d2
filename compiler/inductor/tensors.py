"""CPU torch tensors as kernel arguments: zero-copy numpy views of their storage.

Inductor passes views with storage offsets (and sometimes sizes smaller than what the kernel
reads) and indexes memory with its own strides, so a kernel argument is the flat array from the
tensor's first element to the end of its storage, sharing memory with it: what the kernel writes
lands in the tensor.
"""
from __future__ import annotations

import numpy as np
import torch

from ..runtime.memory import host_array


def storage_view(t: torch.Tensor) -> np.ndarray:
    """The flat numpy view of `t`'s storage from `t`'s first element on."""
    if t.device.type != "cpu":
        raise ValueError(f"a {t.device.type} tensor was passed to a kernel; the simulator takes CPU tensors")
    count = t.untyped_storage().nbytes() // t.element_size() - t.storage_offset()
    return host_array(torch.as_strided(t.detach(), (count,), (1,), t.storage_offset()))


def kernel_argument(v):
    """A launch argument as our runtime takes it (tensors become storage views)."""
    return storage_view(v) if isinstance(v, torch.Tensor) else v


# storages (by address) of the CPU tensors that stand for meta tensors in a timing-only run: their bytes
# were never written and are never read (`lazy_cpu`); `estimate` adds them and clears them when it ends
LAZY_STORAGES: set[int] = set()


def lazy_cpu(t: torch.Tensor, bases: dict) -> torch.Tensor:
    """A CPU tensor shaped and strided as the meta tensor `t`, over a storage that is allocated, never
    filled (the OS maps its pages only when touched: nothing touches them). Meta tensors that share a
    storage get views of one CPU storage (`bases`: meta storage -> CPU storage, kept by the caller)."""
    key = t.untyped_storage()._cdata
    storage = bases.get(key)
    if storage is None:
        storage = bases[key] = torch.empty(t.untyped_storage().nbytes(), dtype=torch.uint8).untyped_storage()
        LAZY_STORAGES.add(storage.data_ptr())
    out = torch.empty(0, dtype=t.dtype).set_(storage, t.storage_offset(), t.size(), t.stride())
    return torch.nn.Parameter(out, requires_grad=t.requires_grad) if isinstance(t, torch.nn.Parameter) else out


def is_lazy(storage: torch.UntypedStorage) -> bool:
    """Whether `storage` stands for a meta tensor's (`lazy_cpu`): no bytes worth copying."""
    return storage.data_ptr() in LAZY_STORAGES
