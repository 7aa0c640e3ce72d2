"""The kernel library as named workloads for `mtiasim run/trace/roofline`, sweeps and notebooks.

Each library kernel becomes a workload of the same name: it makes random inputs of the requested
shape, launches the Triton kernel(s) on the MTIA executor with the requested config, checks the
result against numpy (when numerics are on) and returns the combined report of its launches.
The workloads registry (mtiasim/workloads.py) imports this module when it is first read.
"""
from __future__ import annotations

import numpy as np

from compiler.kernels import LibraryKernel, library
from simulator.config import Config, load_config, use_config
from simulator.report import combine

from .workloads import register_workload, registered


def _config_of(machine_or_config) -> Config:
    if machine_or_config is None:                    # the device's: the user's default config
        from ..runtime.driver import device_config
        return device_config()
    if isinstance(machine_or_config, Config):
        return machine_or_config
    if hasattr(machine_or_config, "cfg"):            # a Machine: use its config
        return machine_or_config.cfg
    return load_config(machine_or_config)


def _runner(k: LibraryKernel):
    def run(machine_or_config, shape: dict, numerics: bool):
        from compiler.runtime import use_executor
        dims = tuple(int(shape[d]) for d in k.dims)
        rng = np.random.default_rng(0)
        inputs = k.make_inputs(dims, rng)
        launch = {"numerics": numerics}
        launch.update({b: int(shape[b]) for b in k.blocks if shape.get(b)})     # 0: the kernel picks for the config
        if hasattr(machine_or_config, "gmem"):           # a Machine: launch on it (its tracer, its LLC)
            launch["machine"] = machine_or_config
        if shape.get("sram_resident"):
            launch["sram_resident"] = True
        with use_config(_config_of(machine_or_config)), use_executor("mtia"):
            outs, runs = k.run(*inputs, **launch)
        report = combine([r.report for r in runs], k.name)
        checks = {}
        if numerics:
            refs = k.reference(*inputs)
            checks["max |out - numpy|"] = max(float(np.max(np.abs(o.astype(np.float64) - r.astype(np.float64))))
                                              for o, r in zip(outs, refs))
        return report, checks
    run.__module__ = __name__
    run.__qualname__ = f"library_{k.name}"
    return run


def register_all() -> None:
    taken = registered()
    for name, k in library().items():
        if name in taken and taken[name].module != __name__:
            continue                          # a hand-written workload already has the name
        shape = dict(zip(k.dims, k.default_shape))
        shape["sram_resident"] = False
        blocks = dict.fromkeys(k.blocks, 0)      # -p BLOCK_M=128; 0: chosen for the config it runs on
        register_workload(name, _runner(k), shape=shape | blocks, dims=k.dims,
                          quick_shape=dict(zip(k.dims, k.test_shapes[-1])) | {"sram_resident": False} | blocks,
                          description=f"{k.description} (Triton, compiled for MTIA)")


register_all()
