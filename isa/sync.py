"""Program identity, ordering and debugging: what a kernel asks of the PE it runs on."""
from __future__ import annotations

from .fields import Imm, Text, XList, XReg, choice
from .instruction import Instr, instruction


@instruction("mtia.pid", "sync")
class Pid(Instr):
    """rd = this program instance's id along grid axis `axis` (0, 1 or 2)."""
    rd: XReg
    axis: Imm


@instruction("mtia.next_pid", "sync")
class NextPid(Instr):
    """Job replace, for a persistent program that runs all the program ids mapped to its PE in one
    pass over its code: take this PE's next program id of the launch. rd = 1, `mtia.pid` reads the
    new id, and the registers start over as at a program's start (the argument registers hold the
    launch's arguments, every other x and f register and the vector state are cleared), except the
    x registers listed in `keep`, which carry values from one program to the next. rd = 0, and
    nothing else changes, when the PE has no program left. The programs of a PE are known at launch
    (the pe mapping); ISCA'25: the work-queue engine replaces a job in under 0.5 us."""
    rd: XReg
    keep: XList = ()


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
