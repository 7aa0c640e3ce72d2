"""Semantics of the instructions the control core runs that touch timing: CB pointer operations,
program identity, fences, barriers and debug assertions (blocking ones are generators the core drives);
and of the debug print, a command of the SE."""
from __future__ import annotations

from isa import cb as cbi
from isa import sync
from isa.types import DTYPES, X

from ..errors import DeviceAssertionError, SanitizerError
from . import semantics
from .tiles import source


def _cb(core, ins):
    cb = core.pe.cbs.get(ins.cb)
    if cb is None:
        raise SanitizerError(f"{core.where(ins)}: CB {ins.cb} is not declared")
    return cb


def _set(core, rd: int, value: int) -> None:
    if rd:
        core.x[rd] = value


@semantics(cbi.CbReserve)
def reserve(core, ins):
    cb = _cb(core, ins)
    slot = cb.wr
    cb.wr += 1
    if slot >= cb.slots:
        yield from core.wait(cb.released(slot - cb.slots), ("space", cb.id, slot - cb.slots))
    cb.core_reserved.append((slot, cb.claim_write(slot, None)))
    _set(core, ins.rd, cb.address(slot))


@semantics(cbi.CbPush)
def push(core, ins):
    cb = _cb(core, ins)
    if not cb.core_reserved:
        raise SanitizerError(f"{core.where(ins)}: cb.push of CB {cb.id} ({cb.name}) with no slot reserved by "
                             f"cb.reserve")
    _, ev = cb.core_reserved.pop(0)
    cb.pushed_done += 1
    ev.succeed()
    return
    yield


@semantics(cbi.CbWait)
def wait(core, ins):
    cb = _cb(core, ins)
    slot = cb.rd + ins.offset
    if slot >= cb.wr and not cb.remote_fed:
        raise SanitizerError(f"{core.where(ins)}: cb.wait on CB {cb.id} ({cb.name}) slot {slot}, which nothing "
                             f"was issued to write (write pointer {cb.wr})")
    yield from core.wait(cb.version(slot).event, ("data", cb.id, slot))
    _set(core, ins.rd, cb.address(slot))


@semantics(cbi.CbPop)
def pop(core, ins):
    cb = _cb(core, ins)
    cb.check_pop(core.where(ins))
    cb.pop_issued(cb.rd)
    cb.rd += 1
    return
    yield


@semantics(cbi.CbRdptr)
def rdptr(core, ins):
    _set(core, ins.rd, _cb(core, ins).rd)


@semantics(cbi.CbWrptr)
def wrptr(core, ins):
    _set(core, ins.rd, _cb(core, ins).wr)


@semantics(sync.Pid)
def pid(core, ins):
    _set(core, ins.rd, core.pid[ins.axis])


@semantics(sync.NextPid)
def next_pid(core, ins):
    if any(not isinstance(e, X) for e in ins.keep):
        raise SanitizerError(f"{core.where(ins)}: keep lists x registers only, got {list(ins.keep)}")
    keep = [(e.n, core.x[e.n]) for e in ins.keep]
    more = core.next_program()
    for n, v in keep:
        core.x[n] = v
    _set(core, ins.rd, int(more))


@semantics(sync.Nprog)
def nprog(core, ins):
    _set(core, ins.rd, core.pe.machine.grid[ins.axis])


@semantics(sync.PeId)
def peid(core, ins):
    _set(core, ins.rd, core.pe.index)


@semantics(sync.NPe)
def npe(core, ins):
    _set(core, ins.rd, len(core.pe.machine.pes))


@semantics(sync.Fence)
def fence(core, ins):
    yield from core.fence()


@semantics(sync.Barrier)
def barrier(core, ins):
    yield from core.fence()
    yield from core.wait(core.pe.machine.arrive_barrier(core.pe), ("barrier", None, None))


@semantics(sync.DbgPrint)
def dbg_print(pe, cmd):
    """A command of the SE (its place in the SE's queue keeps a program's prints in order): print the
    lines on the host as they come, and keep them in the run's log."""
    ins = cmd.ins
    if ins.value is None:
        value, scalar = None, False
    else:
        scalar = cmd.addr.get("value") is None            # a register or an immediate: a 0-d value
        value = source(pe, cmd, "value", DTYPES[ins.dtype])
    for line in sync.print_lines(cmd.pid, ins.prefix, value, ins.dtype, bool(ins.hex), ins.operand,
                                 ins.operands, scalar):
        print(line)
        pe.machine.log.append((pe.env.now, pe.index, cmd.pid, line))


@semantics(sync.DbgAssert)
def dbg_assert(core, ins):
    if core.x[ins.rs1] == 0:
        raise DeviceAssertionError(f"{core.where(ins)}: device assertion failed: {ins.msg}")
