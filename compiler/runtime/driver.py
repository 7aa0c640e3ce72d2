"""`triton.runtime.driver`: what host code written for a GPU asks of the active driver, answered for
the simulated MTIA, so that a script such as Triton's tutorials ports by changing its imports:

    DEVICE = triton.runtime.driver.active.get_active_torch_device()     # CPU torch tensors
    triton.runtime.driver.active.get_current_target().backend             # "mtia"
    triton.runtime.driver.active.utils.get_device_properties(0)           # PEs, local store, clock

Tensors live on the host (torch's "cpu" device): a launch copies them into simulated memory
(compiler/runtime/memory.py). The device is the user's default config (`simulator.use_config`, read by
`device_config`: host code asks it here, as GPU code asks its driver, and passes what it learns on):
`multiprocessor_count` is the number of PEs (a program runs on one PE, as a block on one SM),
`max_shared_mem` a PE's local store, `warpSize` 1 (a PE's control core issues one instruction stream),
`max_num_regs` the control core's 32 integer and 32 float registers. A compiled kernel answers the rest
of a GPU occupancy query (`kernel._init_handles()`, `kernel.n_regs`, `kernel.metadata.shared`:
compiler/runtime/compiled.py) so that Triton's formula gives one program per PE, as MTIA runs them.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

PE_REGISTERS = 64          # a PE's control core: RV64's 32 integer and 32 float registers


@dataclass(frozen=True)
class GPUTarget:
    """Triton's target triple: backend name, architecture (the config's name) and warp size."""
    backend: str
    arch: str
    warp_size: int


def device_config(device=0):
    """The hardware config (`simulator.config.Config`) of the simulated device: the user's default now
    (compiler/runtime/target.py). The one device, 0, is every device a GPU script names."""
    from .target import default_config
    return default_config()


class _Utils:
    @staticmethod
    def get_device_properties(device=0) -> dict:
        cfg = device_config(device)
        return {"multiprocessor_count": cfg.num_pes, "max_shared_mem": cfg.ls_bytes, "warpSize": 1,
                "max_num_regs": PE_REGISTERS,
                "sm_clock_rate": int(cfg.clock_ghz * 1e6),                       # kHz, as CUDA reports it
                "mem_bus_width": _bus_bits(cfg.dram) * cfg.dram.channels, "name": cfg.name}


def _bus_bits(dram) -> int:
    """Data bits per channel: an LPDDR5 channel is 16 bits wide (JESD209-5), an HBM3 pseudo-channel 32
    (JESD238: a 64-bit channel split in two)."""
    return 32 if dram.kind == "hbm3e" else 16


class ActiveDriver:
    utils = _Utils()

    def get_active_torch_device(self):
        torch = sys.modules.get("torch")
        if torch is None:
            import torch  # the caller wants torch tensors: it uses torch
        return torch.device("cpu")

    def get_current_device(self) -> int:
        return 0

    def set_current_device(self, device) -> None:
        if device not in (0, None):
            raise ValueError(f"device {device!r}: the simulator has one device, 0")

    def get_current_stream(self, device=None) -> int:
        return 0

    def get_current_target(self) -> GPUTarget:
        return GPUTarget("mtia", device_config().name, 1)

    def get_benchmarker(self):
        from ..testing import do_bench
        return do_bench

    def is_active(self) -> bool:
        return True


class Driver:
    def __init__(self):
        self.active = ActiveDriver()
        self.default = self.active

    def set_active(self, driver) -> None:
        self.active = driver

    def reset_active(self) -> None:
        self.active = self.default


driver = Driver()
