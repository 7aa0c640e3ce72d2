"""Runtime: @jit kernels, launching, the compile cache, executors, autotuning.

    kernel[grid](*args, **kwargs)        launch (numpy arrays are pointers)
    kernel.compile(*args, **meta)        compile only (CompiledKernel with .asm stages)
    set_executor(...) / register_executor(...) / use_executor(...)
    register_stage(name, producer)       add a text stage (e.g. "mtia-asm") to every CompiledKernel
    device_array(x) / .to_host()         an array kept in simulated DRAM across launches (device.py)
    driver.active                        what GPU host code asks of its driver: the torch device (CPU), the
                                         target, the device's properties (driver.py)

A timing-only launch identical to an earlier one reuses its record (launch_memo.py); compiled MTIA
programs and timing-only records also go to the disk cache, $MTIASIM_CACHE_DIR (disk_cache.py).
"""
from .autotune import Autotuner, Config, Heuristics, autotune, heuristics
from .compile import compile
from .compiled import CompiledKernel, Stages, register_stage, unregister_stage
from .device import DeviceArray, device_array
from .driver import driver
from .executor import (
                       Executor,
                       KernelArgs,
                       LaunchOptions,
                       RunRecord,
                       get_executor,
                       register_executor,
                       registered_executors,
                       set_executor,
                       use_executor,
)
from .jit import JITFunction, jit, register_launch_keyword
from .memory import DeviceBuffer, PointerArg, TensorWrapper, reinterpret

__all__ = ["Autotuner", "Config", "Heuristics", "autotune", "heuristics", "compile", "CompiledKernel", "Stages",
           "register_stage", "unregister_stage", "Executor", "KernelArgs", "LaunchOptions", "RunRecord",
           "get_executor", "register_executor", "registered_executors", "set_executor", "use_executor",
           "JITFunction", "jit", "register_launch_keyword", "DeviceBuffer", "PointerArg", "DeviceArray",
           "device_array", "driver", "TensorWrapper", "reinterpret"]
