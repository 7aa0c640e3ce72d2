"""What a timing-only run (`numerics=False`) may leave uncomputed.

A run's cycles depend on its tile data only where the data decides an address or the control flow:
a gather's or a scatter's indices, an atomic's operands, a tile the control core loads into its
registers and branches or computes an address on; and a device print, which shows the user its values.
A program with none of these is *blind*: the
values in its tiles never reach its timing, so a timing-only run skips the data of every bulk-engine
command (DPE, SE, RE, MLU) and of every dma.in, and takes the same cycles (tests/simulator/test_determinism.py
checks every library kernel). A program that can see its data computes all of it, timing-only or
not: skipping only the float commands, as this once did, gave a gather whose indices come from
float arithmetic garbage indices, and other cycles than the numeric run
(tests/compiler/runtime/test_timing_only.py).
"""
from __future__ import annotations

from isa import dma

# control-core loads of integers from the local store: their values may become addresses or branches
INT_LOADS = frozenset({"lb", "lbu", "lh", "lhu", "lw", "lwu", "ld"})
FLOAT_LOADS = frozenset({"flw", "fld"})
# control-core instructions that turn a float into an integer or a branch condition
FLOAT_TO_INT = frozenset({"fcvt.l.s", "fcvt.lu.s", "fcvt.l.d", "fcvt.lu.d", "fmv.x.w", "feq.s", "flt.s",
                          "fle.s", "feq.d", "flt.d", "fle.d"})
# the tile a plain DMA only moves (its data, never an address)
MOVED = {dma.DmaIn: "dst", dma.DmaOut: "src"}


def is_blind(program) -> bool:
    """Whether no tile value of `program` can reach an address or a branch (module docstring)."""
    mnemonics = {ins.mnemonic for ins in program.instrs}
    if mnemonics & INT_LOADS or any(ins.unit == "vector" for ins in program.instrs):
        return False
    if "dbg.print" in mnemonics:              # tl.device_print shows its values: they must be computed
        return False
    if mnemonics & FLOAT_LOADS and mnemonics & FLOAT_TO_INT:
        return False
    for ins in program.instrs:
        if ins.unit != "dma":
            continue
        moved = MOVED.get(type(ins))
        if any(name != moved for name, _ in ins.tiles()):      # indices, atomic operands
            return False
    return True
