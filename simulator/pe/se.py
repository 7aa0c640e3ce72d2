"""SIMD Engine timing: `elems_per_cycle` output elements per cycle, any dtype and function (the
lookup tables for exp, erf, ... are pipelined at the same rate)."""
from __future__ import annotations

from isa import se, sync

from .engine import Engine, cdiv


class SE(Engine):
    kind = "se"

    def __init__(self, pe):
        c = pe.cfg.pe.se
        super().__init__(pe, c.latency_cycles, c.command_cycles)
        self.rate = c.elems_per_cycle

    def occupancy(self, cmd) -> float:
        cost = cmd.plan.cost
        if cost is None:                    # the instruction alone decides it: work it out once
            if type(cmd.ins) is sync.DbgPrint:  # hands its tile to the host: a cycle, no arithmetic
                cost = cmd.plan.cost = (1, 0)
                return 1
            n = cmd.ins.out.size
            cost = cmd.plan.cost = (cdiv(n, self.rate), n * (2 if type(cmd.ins) is se.SeFma else 1))
        self.ops += cost[1]
        return cost[0]
