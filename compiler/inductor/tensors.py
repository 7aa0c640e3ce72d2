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
