"""Program identity, ordering and debugging: what a kernel asks of the PE it runs on."""
from __future__ import annotations

import math

import numpy as np

from .fields import Dtype, Imm, OptSrc, Text, XList, XReg
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


@instruction("dbg.print", "se")
class DbgPrint(Instr):
    """tl.device_print of one operand, printed on the host: a line for each element of value (a tile, in
    row-major order) or one for a scalar (a register or an immediate), of `dtype`, as `print_lines`
    writes them: `pid (x, y, z) idx (i, ...)<prefix>(operand k) <value>`, with `(operand k) ` only when
    the print has more than one (`operands`), values in hexadecimal when `hex`. With value none
    (operands=0) one line, `pid (x, y, z)<prefix>`. A command of the SE, so that a program's prints
    come in its program order, each once the values it prints are computed."""
    prefix: Text
    value: OptSrc
    dtype: Dtype
    operand: Imm = 0
    operands: Imm = 1
    hex: Imm = 0


def print_lines(pid, prefix: str, value, dtype: str, hex: bool = False, operand: int = 0, operands: int = 1,
                scalar: bool = False) -> list[str]:
    """The lines of a device print of one operand (Triton's device_print format, on both executors):
    `value` a numpy array of element type `dtype` (its shape gives the indices, each padded to the digits
    of its dimension's size; `scalar`: a 0-d value, `idx ()`), or None for a print of the prefix alone."""
    head = f"pid ({pid[0]}, {pid[1]}, {pid[2]})"
    if value is None:
        return [head + prefix]
    a = np.asarray(value)
    if scalar:
        a = a.reshape(())
    if dtype == "i1":
        a = a.astype(np.bool_)
    which = f"(operand {operand}) " if operands > 1 else ""
    widths = [math.ceil(math.log10(n)) if n > 0 else 0 for n in a.shape]
    lines = []
    for idx in np.ndindex(*a.shape):
        where = ", ".join(f"{i:>{w}}" if w else str(i) for i, w in zip(idx, widths))
        lines.append(f"{head} idx ({where}){prefix}{which}{_element(a[idx], dtype, hex)}")
    return lines


def _element(v, dtype: str, hex: bool) -> str:
    """One value as C's printf writes it in Triton's device print: floats %f, integers %i or %u (bool 0/1),
    addresses (dtype "ptr", the interpreter's) %p, and under hex the element's bits, 0x and two digits a byte."""
    if dtype == "ptr":                       # %p
        return f"0x{int(v):x}"
    if hex:
        bits = np.asarray(v).view(f"u{np.asarray(v).dtype.itemsize}")
        return f"0x{int(bits):0{2 * np.asarray(v).dtype.itemsize}x}"
    if dtype[0] in "fb":
        return f"{float(v):f}"
    return str(int(v))


@instruction("dbg.assert", "sync")
class DbgAssert(Instr):
    """If register rs1 is zero, stop the launch with a device-assertion failure carrying `msg`
    (tl.device_assert); otherwise do nothing."""
    rs1: XReg
    msg: Text
