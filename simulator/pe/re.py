"""Reduction Engine timing: reductions and scans read `elems_per_cycle` input elements per cycle;
sends cross the reduction network over this PE's outgoing link, one hop per grid step."""
from __future__ import annotations

from isa import re as re_isa

from ..chip.link import Link
from ..errors import ProgramError
from .engine import Engine, cdiv


class RE(Engine):
    kind = "re"

    def __init__(self, pe):
        c = pe.cfg.pe.re
        super().__init__(pe, c.latency_cycles, c.command_cycles)
        self.rate = c.elems_per_cycle
        self.link = Link(f"pe{pe.index}.re", pe.cfg.gbps_to_bpc(c.network_gbps))
        self.hop = c.network_hop_cycles

    def occupancy(self, cmd) -> float:
        ins = cmd.ins
        if type(ins) is re_isa.ReSend:
            end = self.link.reserve(self.env.now, ins.a.nbytes)
            dst = cmd.vals["target"]
            hops = abs(dst.row - self.pe.row) + abs(dst.col - self.pe.col)
            return end - self.env.now + hops * self.hop
        cost = cmd.plan.cost
        if cost is None:                    # the instruction alone decides it: work it out once
            cost = cmd.plan.cost = (cdiv(ins.a.size, self.rate), ins.a.size)
        self.ops += cost[1]
        return cost[0]


def resolve_send(pe, cmd) -> None:
    """At issue: claim the next write slot of the receiving CB (it fills in arrival order)."""
    ins = cmd.ins
    target = cmd.vals["pe"]
    machine = pe.machine
    if not 0 <= target < len(machine.pes):
        raise ProgramError(f"{cmd.where()}: re.send to PE {target}, but the grid has {len(machine.pes)} PEs")
    dst = machine.pes[target]
    cb = dst.cbs.get(ins.cb)
    if cb is None:
        raise ProgramError(f"{cmd.where()}: re.send into CB {ins.cb}, which PE {target} does not declare")
    if ins.a.nbytes > cb.slot_bytes:
        raise ProgramError(f"{cmd.where()}: re.send of {ins.a.nbytes} bytes into CB {ins.cb} "
                           f"whose slots hold {cb.slot_bytes}")
    slot = cb.wr
    cb.wr += 1
    if slot >= cb.slots:
        cmd.deps.append((cb.released(slot - cb.slots), ("space", cb.id, slot - cb.slots)))
    cmd.writes.append((cb, cb.claim_write(slot, None), "push"))
    cmd.vals["target"] = dst
    cmd.vals["remote"] = (dst.ls, cb.address(slot))
