"""Program identity, ordering and debugging: what a kernel asks of the PE it runs on."""
from __future__ import annotations

from .fields import Imm, Text, XReg, choice
from .instruction import Instr, instruction


@instruction("mtia.pid", "sync")
class Pid(Instr):
    """rd = this program instance's id along grid axis `axis` (0, 1 or 2)."""
    rd: XReg
    axis: Imm


@instruction("mtia.nprog", "sync")
class Nprog(Instr):
    """rd = the number of program instances along grid axis `axis`."""
    rd: XReg
    axis: Imm


@instruction("mtia.peid", "sync")
class PeId(Instr):
    """rd = the id of this PE, row * grid columns + column."""
    rd: XReg


@instruction("mtia.npe", "sync")
class NPe(Instr):
    """rd = the number of PEs in the grid."""
    rd: XReg


@instruction("fence", "sync")
class Fence(Instr):
    """Block the core until every command this PE issued before the fence has completed, global
    memory writes included."""


@instruction("barrier", "sync")
class Barrier(Instr):
    """Fence, then block until every PE with work in this launch has reached a barrier (the
    `pe_runtime_barrier` of Triton-MTIA). Barriers match by count: the n-th of each PE."""


@instruction("dbg.print", "sync")
class DbgPrint(Instr):
    """Print `fmt` with the value of register rs1 (x or f per `kind`) to the run's log."""
    fmt: Text
    rs1: Imm = 0
    kind: choice("x", "f", "none") = "none"


@instruction("dbg.assert", "sync")
class DbgAssert(Instr):
    """If register rs1 is zero, stop the launch with a device-assertion failure carrying `msg`
    (tl.device_assert); otherwise do nothing."""
    rs1: XReg
    msg: Text
