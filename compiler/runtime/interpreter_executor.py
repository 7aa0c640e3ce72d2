"""The reference-interpreter executor: the default `Executor` of the runtime.

It runs the kernel's IR with numpy (`compiler.interpreter`) over the launch's device buffers, at the
addresses the runtime gave them, placing program ids on PEs (`tl.mtia.get_pe_id`) and bounding each
program's steps and the launch's programs exactly as the MTIA executor does (`simulator.launch`), on the
PEs of the launch's target config (`options.config`, compiler/runtime/target.py).
"""
from __future__ import annotations

import time

import numpy as np

from simulator import launch as plan

from ..interpreter import FlatMemory, Interpreter
from .executor import KernelArgs, LaunchOptions, RunRecord
from .memory import PointerArg
from .target import resolve


class InterpreterExecutor:
    """Runs the IR with numpy, program by program. No clock: `cycles` is None."""
    name = "interpreter"

    def launch(self, compiled, grid: tuple, args: KernelArgs, options: LaunchOptions) -> RunRecord:
        options = resolve(options)      # the runtime resolved it already; a direct caller may not have
        cfg = options.config
        func = compiled.module.function()
        memory = FlatMemory(args.buffers, cfg.dram.capacity_gib << 30)
        values = []
        for block_arg, v in zip(func.body.args, args.values):
            if isinstance(v, PointerArg):
                values.append(np.asarray(v.address, dtype=np.int64))
            else:
                t = block_arg.type
                values.append(np.asarray(v).astype(t.np_dtype) if not isinstance(v, np.ndarray) else v)
        n = grid[0] * grid[1] * grid[2]
        num_pes = cfg.num_pes
        plan.check_cooperative_grid(options.launch_cooperative_grid, grid, num_pes)
        plan.check_programs(grid, options.max_programs)
        interp = Interpreter(func, memory, grid, lambda linear: int(plan.pe_of(linear, n, num_pes, options.pe_mapping)),
                             plan.max_steps(options.max_steps))
        start = time.perf_counter()
        bar = plan.progress(n, f"{compiled.name} (interpreter)")
        try:
            programs = interp.run_grid(values, bar.update if bar is not None else None)
        finally:
            if bar is not None:
                bar.close()
        return RunRecord(kernel=compiled.name, grid=tuple(grid), executor=self.name, cycles=None, seconds=None,
                         wall_seconds=time.perf_counter() - start, programs=programs)
