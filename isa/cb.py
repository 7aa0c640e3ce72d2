"""Circular-buffer operations the control core issues to the Command Processor.

Engine commands move CB pointers themselves through their tile modes (pop/keep/push/acc). These
instructions let the cores take part: a core reserves a slot, fills it with scalar or vector
stores and pushes it; or waits for a slot, reads it and pops it. `reserve` and `wait` block the core
until the slot is free / written; `push` and `pop` are ordered after the commands issued before them
that touch the same slot, and do not block the core.
"""
from __future__ import annotations

from .fields import Imm, XReg
from .instruction import Instr, instruction


@instruction("cb.reserve", "cb")
class CbReserve(Instr):
    """Claim the next write slot of CB `cb`; block until it is free; rd = its LS address."""
    rd: XReg
    cb: Imm


@instruction("cb.push", "cb")
class CbPush(Instr):
    """Publish the oldest slot this core reserved in CB `cb`: readers may now use it."""
    cb: Imm


@instruction("cb.wait", "cb")
class CbWait(Instr):
    """Block until the slot at the read pointer (+offset) of CB `cb` is written; rd = its LS address."""
    rd: XReg
    cb: Imm
    offset: Imm = 0


@instruction("cb.pop", "cb")
class CbPop(Instr):
    """Release the slot at the read pointer of CB `cb` once every command issued before this one
    that reads it has completed, and advance the read pointer."""
    cb: Imm


@instruction("cb.rdptr", "cb")
class CbRdptr(Instr):
    """rd = the read pointer of CB `cb`: the number of slots popped so far (program order)."""
    rd: XReg
    cb: Imm


@instruction("cb.wrptr", "cb")
class CbWrptr(Instr):
    """rd = the write pointer of CB `cb`: the number of slots reserved so far (program order)."""
    rd: XReg
    cb: Imm
