"""The reference-interpreter executor: the default `Executor` of the runtime."""
from __future__ import annotations

import time

import numpy as np

from ..runtime.executor import KernelArgs, LaunchOptions, RunRecord
from ..runtime.memory import PointerArg
from .interpreter import Interpreter
from .memory import FlatMemory

NUM_PES = 64


def pe_for_program(linear_pid: int, num_programs: int, mapping: str, num_pes: int = NUM_PES) -> int:
    """Which PE runs a program under a mapping strategy (used for tl.mtia.get_pe_id).

    linear: consecutive program ids share a PE (balanced contiguous chunks);
    round_robin: program i runs on PE i % 64;
    zigzag: round robin whose direction flips every 64 programs (balances triangular work).
    The simulator owns the real placement; this is the interpreter's stand-in."""
    if mapping == "round_robin":
        return linear_pid % num_pes
    if mapping == "zigzag":
        k, rnd = linear_pid % num_pes, linear_pid // num_pes
        return k if rnd % 2 == 0 else num_pes - 1 - k
    return linear_pid * num_pes // max(num_programs, 1)


class InterpreterExecutor:
    """Runs the IR with numpy, program by program. No clock: `cycles` is None."""
    name = "interpreter"

    def launch(self, compiled, grid: tuple, args: KernelArgs, options: LaunchOptions) -> RunRecord:
        func = compiled.module.function()
        memory = FlatMemory(args.buffers)
        values = []
        for block_arg, v in zip(func.body.args, args.values):
            if isinstance(v, PointerArg):
                values.append(np.asarray(v.address, dtype=np.int64))
            else:
                t = block_arg.type
                values.append(np.asarray(v).astype(t.np_dtype) if not isinstance(v, np.ndarray) else v)
        n = grid[0] * grid[1] * grid[2]
        interp = Interpreter(func, memory, grid,
                             lambda linear: pe_for_program(linear, n, options.pe_mapping))
        start = time.perf_counter()
        programs = interp.run_grid(values)
        return RunRecord(kernel=compiled.name, grid=tuple(grid), executor=self.name, cycles=None, seconds=None,
                         wall_seconds=time.perf_counter() - start, programs=programs)
