"""Tensors in simulated device memory for the run of one compiled graph.

Inductor's wrapper code allocates every buffer as a CPU tensor and hands it to the kernels. While
a graph runs, a tensor's storage moves into a device array (`compiler.runtime.device_array`) the
first time a kernel uses it and stays there: the next kernel reads an intermediate from simulated
DRAM, and an intermediate never goes back to the host. What the host can see comes back when the
graph ends (the graph's inputs, which kernels may update in place, and its outputs), and before an
ATen op on the host touches a storage a kernel wrote. `Transfers` counts the copies each way.

A storage is copied in only when a kernel reads it first (its argument is an `in_ptr`, an
`in_out_ptr` or a template input); one a kernel writes first is allocated on the device. Copies
back are of storages a kernel wrote (`out_ptr`, `in_out_ptr`, Inductor's mutated arguments).
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from ..runtime import device_array
from ..runtime.device import lazy_device_array
from ..runtime.memory import host_array
from .tensors import is_lazy


@dataclass
class Transfers:
    """Copies between host memory and simulated DRAM during a model run."""
    to_device: int = 0           # storages copied in (a kernel read them first)
    to_device_bytes: int = 0
    to_host: int = 0             # storages copied back (a kernel wrote them and the host sees them)
    to_host_bytes: int = 0
    stayed: int = 0              # storages kernels wrote that never went back (intermediates)

    def add(self, other: "Transfers") -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


@dataclass
class _Entry:
    storage: torch.UntypedStorage      # kept alive: its address cannot be reused while it is on the device
    array: object                      # the DeviceArray of its bytes
    dirty: bool = False                # a kernel wrote it: the device copy is the newer one


def _bytes_of(storage: torch.UntypedStorage) -> torch.Tensor:
    return torch.empty(0, dtype=torch.uint8).set_(storage)


def _np_dtype(dtype: torch.dtype) -> np.dtype:
    return host_array(torch.empty(0, dtype=dtype)).dtype


def writes(name: str, mutated: tuple) -> bool:
    """Whether a kernel argument of Inductor's naming is written (out_ptr0, in_out_ptr0, mutated ones)."""
    return not name.startswith(("in_ptr", "arg_")) or name in mutated


class Resident(TorchDispatchMode):
    """The device copies of one graph run's storages; as a dispatch mode (on while the graph's wrapper
    runs), it brings a storage back before a host ATen op touches it."""

    def __init__(self, timing_only: bool = False):
        super().__init__()
        self.entries: dict[int, _Entry] = {}
        self.transfers = Transfers()
        # a timing-only run computes nothing: a storage a kernel writes first, or one standing for a meta
        # tensor, gets an address range with no bytes (`lazy_device_array`); only what the host filled
        # (index tensors) is copied in, and nothing is copied back
        self.timing_only = timing_only
        self.sites: dict[str, list] = {}    # kernel name -> module paths of its calls not launched yet (session)
        self.phase = "forward"              # what of a training step the graph is (session.graph_running)
        self.host_visible: list = []        # more tensors the host sees after the run (saved activations)

    def _place(self, storage: torch.UntypedStorage, name: str, written: bool):
        if self.timing_only and (written or is_lazy(storage)):
            return lazy_device_array((storage.nbytes(),), np.uint8, name)
        return device_array(_bytes_of(storage).numpy(), name)

    def argument(self, t: torch.Tensor, name: str, written: bool):
        """The device view of tensor `t` for kernel argument `name`, placed on first use."""
        storage = t.untyped_storage()
        entry = self.entries.get(storage.data_ptr())
        if entry is None:
            entry = self.entries[storage.data_ptr()] = _Entry(storage, self._place(storage, name, written))
            if not written or name.startswith("in_out_ptr"):
                self.transfers.to_device += 1
                self.transfers.to_device_bytes += storage.nbytes()
        entry.dirty |= written
        return entry.array.view(_np_dtype(t.dtype), t.storage_offset() * t.element_size())

    def _bring_back(self, key: int) -> None:
        entry = self.entries.pop(key)
        if entry.dirty:
            if not self.timing_only:           # (a timing-only run computed nothing to bring back)
                _bytes_of(entry.storage).numpy()[...] = entry.array.to_host()
            self.transfers.to_host += 1
            self.transfers.to_host_bytes += entry.storage.nbytes()

    def finish(self, host_visible) -> Transfers:
        """End of the graph run: bring back what the host sees (tensors in `host_visible`), drop the rest."""
        seen = {t.untyped_storage().data_ptr() for t in tree_leaves((host_visible, self.host_visible))
                if isinstance(t, torch.Tensor)}
        for key in list(self.entries):
            if key in seen:
                self._bring_back(key)
            else:
                self.transfers.stayed += self.entries.pop(key).dirty
        return self.transfers

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        # our custom ops (mtiasim::*) launch kernels on the device copies: nothing comes back for them
        if not func.is_view and self.entries and func.namespace != "mtiasim":
            for t in tree_leaves((args, kwargs)):
                if isinstance(t, torch.Tensor) and t.untyped_storage().data_ptr() in self.entries:
                    self._bring_back(t.untyped_storage().data_ptr())   # the host op may read or write it
        return func(*args, **(kwargs or {}))
