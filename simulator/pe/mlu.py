"""Memory Layout Unit timing: `bytes_per_cycle` of output moved per cycle."""
from __future__ import annotations

from .engine import Engine, cdiv


class MLU(Engine):
    kind = "mlu"

    def __init__(self, pe):
        c = pe.cfg.pe.mlu
        super().__init__(pe, c.latency_cycles, c.command_cycles)
        self.rate = c.bytes_per_cycle

    def occupancy(self, cmd) -> float:
        return cdiv(cmd.ins.out.nbytes, self.rate)
