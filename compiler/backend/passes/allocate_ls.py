"""Size the circular buffers and place them in the local store (greedy CB sizing).

Every storage (an `mtia.cb` declaration) wants enough slots to keep its engines busy: tiles a DMA
fills inside a loop want `num_stages` slots, the launch's or the loop's own (`tl.range(...,
num_stages=n)`, the declaration's `stages`), so that loads run up to n - 1 iterations ahead of
their consumer; `num_stages=1` gives one slot, the loop unpipelined (each load waits until the
previous tile is consumed), as Triton's num_stages=1 is. The others want two (so the next
iteration, or the next program on the PE, can start while this one drains). When the local store
cannot hold that, the deepest wishes shrink first, down to one slot each (a declaration's
`min_slots`: two for a loop's rotating carried tile, which holds the old value and the new); if even
that does not fit, storages never live at once share a CB (share_ls.py); if that does not fit either,
compilation stops naming the buffers, their sizes and their lines. Each declaration gets its slot size rounded up (`bytes`), `slots` and `base`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...errors import OutOfResources
from .. import dialect as mtia
from ..target import RUNS_AHEAD
from .share_ls import share_storages
from .util import error_at

SPILL_BYTES = 1024         # bytes at the top of the local store for register spills (tiles that fit only over
                           # them take them: then what is left holds the spills, `mtia.spill_bytes`)


@dataclass(frozen=True)
class AllocateLocalStore:
    ls_bytes: int
    num_stages: int = 3
    config: str = "?"
    slot_align: int = 64       # bytes; the target's (Target.slot_align: DMA alignment and vector register size)
    name: ClassVar[str] = "allocate-ls"

    def run(self, module) -> None:
        for func in module.functions:
            budget = self.ls_bytes - SPILL_BYTES
            decls = [op for op in func.body.ops if op.name == mtia.CB]
            for d in decls:
                d.attrs["bytes"] = -(-d.attrs["bytes"] // self.slot_align) * self.slot_align
            if sum(d.attrs["bytes"] * d.attrs.get("min_slots", 1) for d in decls) > budget:
                share_storages(func)
                decls = [op for op in func.body.ops if op.name == mtia.CB]
            cbs = [d.attrs for d in decls]
            for cb in cbs:
                cb["slots"] = self.wished_slots(cb)
            total = sum(cb["slots"] * cb["bytes"] for cb in cbs)
            while total > budget:
                cands = [cb for cb in cbs if cb["slots"] > cb.get("min_slots", 1)]
                if not cands:
                    break
                # shrink the storage whose extra slots cost most, outside loops first
                cb = max(cands, key=lambda c: (c["depth"] == 0, c["slots"], c["bytes"]))
                cb["slots"] -= 1
                total -= cb["bytes"]
            if total > self.ls_bytes:
                raise _too_big(func, decls, self.ls_bytes, self.config)
            if total > budget:          # the tiles fit only over the spill area: what is left of it holds spills
                func.attrs["mtia.spill_bytes"] = self.ls_bytes - total
            base = 0
            for cb in cbs:
                cb["base"] = base
                base += cb["slots"] * cb["bytes"]
            func.attrs["mtia.ls_used"] = base

    def wished_slots(self, cb: dict) -> int:
        """The slots a storage wants before the local store's size is considered."""
        ahead = cb["producer"] in RUNS_AHEAD and cb["depth"] > 0
        return max(max(1, cb.get("stages", self.num_stages)) if ahead else 2, cb.get("min_slots", 1))

    def fits_at_full_depth(self, module) -> bool:
        """Whether every storage of the bufferized module gets the slots it wishes (nothing shrunk or
        shared): the K coalescing's condition (pipeline.py)."""
        budget = self.ls_bytes - SPILL_BYTES
        for func in module.functions:
            decls = [op.attrs for op in func.body.ops if op.name == mtia.CB]
            align = self.slot_align
            if sum(-(-cb["bytes"] // align) * align * self.wished_slots(cb) for cb in decls) > budget:
                return False
        return True


def _too_big(func, decls, budget: int, config: str):
    biggest = sorted(decls, key=lambda d: -d.attrs["bytes"])
    need = sum(d.attrs["bytes"] * d.attrs.get("min_slots", 1) for d in decls)
    rows = ", ".join(_row(d.attrs) for d in biggest[:6])
    more = f" and {len(decls) - 6} more" if len(decls) > 6 else ""
    anchor = biggest[0] if biggest else func
    slots = "one slot each" + ("" if all("min_slots" not in d.attrs for d in decls) else
                               " (two for a rotating loop-carried tile)")
    return error_at(anchor, f"the kernel's tiles need {need} bytes of local store with {slots}, but "
                            f"{config} has {budget} bytes for them: {rows}{more}. Use smaller block sizes.",
                    cls=OutOfResources, required=need, limit=budget)


def _row(cb: dict) -> str:
    n = cb["bytes"]
    size = f"{n // 1024} KiB" if n >= 1024 else f"{n} B"
    line = f", line {cb['line']}" if cb.get("line") else ""
    return f"{cb['name']} ({size}{line})"
