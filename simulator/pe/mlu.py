"""Memory Layout Unit timing: `bytes_per_cycle` of output moved per cycle."""
from __future__ import annotations

from .engine import Engine, cdiv


class MLU(Engine):
    kind = "mlu"

    def __init__(self, pe):
        c = pe.cfg.pe.mlu
        super().__init__(pe, c.latency_cycles, c.command_cycles)
        self.rate = c.bytes_per_cycle
        self.bytes = 0                      # bytes it wrote and gathered: its work, for the report's floor

    def occupancy(self, cmd) -> float:
        """Bytes written per cycle; a gather also reads its index tile."""
        cost = cmd.plan.cost
        if cost is None:                    # the instruction alone decides it: work it out once
            extra = cmd.ins.index.nbytes if hasattr(cmd.ins, "index") else 0
            cost = cmd.plan.cost = (cdiv(cmd.ins.out.nbytes + extra, self.rate), cmd.ins.out.nbytes + extra)
        self.bytes += cost[1]
        return cost[0]
