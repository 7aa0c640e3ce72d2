"""Size the circular buffers and place them in the local store (greedy CB sizing).

Every storage wants enough slots to keep its engines busy: tiles a DMA fills inside a loop want
`num_stages` slots (loads run that many iterations ahead of their consumer), the others two (so
the next iteration, or the next program on the PE, can start while this one drains). When the
local store cannot hold that, the deepest wishes shrink first, down to one slot each; if even one
slot each does not fit, compilation stops naming the buffers, their sizes and their lines.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...errors import OutOfResources
from ..target import RUNS_AHEAD
from .util import error_at

SLOT_ALIGN = 64            # bytes; keeps every slot on a DMA burst boundary
SPILL_BYTES = 1024         # bytes at the top of the local store for register spills


def _align(n: int) -> int:
    return (n + SLOT_ALIGN - 1) // SLOT_ALIGN * SLOT_ALIGN


@dataclass(frozen=True)
class AllocateLocalStore:
    ls_bytes: int
    num_stages: int = 3
    config: str = "?"
    name: str = "allocate-ls"

    def run(self, module) -> None:
        for func in module.functions:
            plan = func.mtia_plan
            budget = self.ls_bytes - SPILL_BYTES
            sts = plan.storages
            for st in sts:
                st.nbytes = _align(st.nbytes)
                want = max(2, self.num_stages) if (st.producer in RUNS_AHEAD and st.loop_depth > 0) else 2
                st.slots = want
            total = sum(st.slots * st.nbytes for st in sts)
            while total > budget:
                cands = [st for st in sts if st.slots > 1]
                if not cands:
                    break
                # shrink the storage whose extra slots cost most, outside loops first
                st = max(cands, key=lambda c: (c.loop_depth == 0, c.slots, c.nbytes))
                st.slots -= 1
                total -= st.nbytes
            if total > budget:
                raise _too_big(func, sts, budget, self.config)
            base = 0
            for st in sts:
                st.base = base
                base += st.slots * st.nbytes
            func.attrs["mtia.ls_used"] = base


def _too_big(func, sts, budget: int, config: str):
    biggest = sorted(sts, key=lambda s: -s.nbytes)
    need = sum(s.nbytes for s in sts)
    rows = ", ".join(f"{s.name} ({s.nbytes // 1024 if s.nbytes >= 1024 else s.nbytes}"
                     f"{' KiB' if s.nbytes >= 1024 else ' B'}{f', line {s.line}' if s.line else ''})"
                     for s in biggest[:6])
    more = f" and {len(sts) - 6} more" if len(sts) > 6 else ""
    anchor = biggest[0].defined_by if biggest else func
    return error_at(anchor, f"the kernel's tiles need {need} bytes of local store with one slot each, but "
                            f"{config} has {budget} bytes for them: {rows}{more}. Use smaller block sizes.",
                    cls=OutOfResources, required=need, limit=budget)
