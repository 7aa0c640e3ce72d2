"""Deferred result stores, on the register-allocated program: a program whose result leaves in one
final store of a tile that a loop accumulates (a matmul's C tile) runs as a persistent program over
the program ids of its PE, and each program's final store is issued by the next program on the PE,
once that program has issued its first loads.

Why: a PE runs its programs one after another, and its DMA starts transfers in program order. The
final store waits for the epilogue (the SE converting the f32 accumulator to f16), so the next
program's first loads, queued behind it, start only when the conversion is done, and the DPE waits
for the conversion and then for a full refill of its operand buffers (on MTIA 2i at 2048^3 with
128x128 tiles: about 2,200 DPE-idle cycles at each program boundary, all 64 PEs refilling from the
SRAM at once). With the store issued after the next program's first loads, those loads run while
the SE converts; the store still goes in program order after them (the tutorial matmul at 2048^3
on MTIA 2i: 143,568 cycles without, 140,236 with, 91.3% and 93.5% of the DPE peak).

        li x21, 0                     ; no store pending
    persistent_1:                     ; (the program as compiled, from here)
        ...
        dma.in cb1.push:..., ...      ; the K loop's loads
        dma.in cb2.push:..., ...
        beq x21, x0, stored_1         ; before each command that reads the result's CB:
        dma.out cb0.pop:f16[128x128], x24, [x26, 1], valid=[x23, x25]   ; the previous program's store
        li x21, 0
    stored_1:
        dpe.mm cb0.acc:f32[128x128], ...
        ...
        se.mov cb0.acc:f16[128x128], cb0.keep:f32[128x128]   ; (flushed before it as well)
        mv x23, x1 ...                ; the final store's operands kept
        li x21, 1                     ; and its store pending
    end:
        mtia.next_pid x22, keep=[x21, x23, x24, x25, x26]   ; the PE's next program (job replace)
        bne x22, x0, persistent_1
        beq x21, x0, done_1
        dma.out cb0.pop:f16[128x128], x24, [x26, 1], valid=[x23, x25]   ; the PE's last program's store
    done_1:
        halt

The pending store pops the result's CB before any later command reads that CB, so every command
resolves the same slots as before: the next program's pushes into the CB before that point (the
accumulator's zero fill) need a free slot, so the CB needs one more slot than they take.

Where it applies (`_plan`): the final command is a box store (`dma.out`) popping a CB that some
command inside a loop reads, and the program has the free registers; none of barriers, fences,
atomics, cross-PE sends or computed jumps. At launch (`safe`): the kernel's reads and writes of
memory are box and element-wise DMAs whose arrays are known, and no array it reads is one it
writes (a later program's load could otherwise overtake an earlier program's store of the same
bytes), as for broadcast reads.
"""
from __future__ import annotations

import dataclasses

from isa import cb as cbi
from isa import dma, se, sync
from isa import fields as K
from isa import re as rei
from isa import scalar as riscv
from isa.instruction import ENGINES
from isa.program import CBDecl
from isa.types import Tile, X

from ...ir.ops import Op
from .. import dialect as mtia
from ..launch.broadcast import pointer_roots
from .command_forms import JUMPS, reads_writes
from .regalloc import BRANCHES

SYNCHRONISING = (sync.Barrier, sync.Fence, sync.NextPid, dma.DmaAtomic, dma.DmaCas, rei.ReSend, riscv.Jal,
                 riscv.Jalr)
CB_CORE_OPS = (cbi.CbReserve, cbi.CbPush, cbi.CbWait, cbi.CbPop, cbi.CbRdptr, cbi.CbWrptr)
# the memory ops a kernel may have for its stores to be deferred (all others are refused)
_READS = (mtia.LOAD_BOX, mtia.GATHER, mtia.LOAD_ROWS)
_WRITES = (mtia.STORE_BOX, mtia.SCATTER)
_OTHER_MEMORY = frozenset((mtia.ATOMIC, mtia.ATOMIC_BOX, mtia.CAS, Op.LOAD.value, Op.STORE.value, Op.ATOMIC_RMW.value,
                           Op.ATOMIC_CAS.value, Op.DESCRIPTOR_LOAD.value, Op.DESCRIPTOR_STORE.value,
                           Op.RE_REDUCE.value, Op.DEBUG_BARRIER.value))


def safe(func, buffers: list) -> bool:
    """Whether this launch may defer stores: the kernel's memory accesses are box and element-wise
    DMAs through known arguments, and none reads an array (`buffers`: one per argument, None for
    scalars) that one writes."""
    ops = list(func.walk())
    if any(op.name in _OTHER_MEMORY for op in ops):
        return False
    written = [pointer_roots(op.operands[0]) for op in ops if op.name in _WRITES]
    read = [pointer_roots(op.operands[0]) for op in ops if op.name in _READS]
    if any(r is None for r in written + read):
        return False
    out = {id(buffers[a.index]) for roots in written for a in roots}
    return not any(id(buffers[a.index]) in out for roots in read for a in roots)


def _tiles(ins):
    return [getattr(ins, name) for name, _, _ in type(ins).fields if isinstance(getattr(ins, name), Tile)]


def _loops(prog) -> list[tuple[int, int]]:
    """(head, back edge) of each loop: a branch or jump to a label at or before it."""
    out = []
    for j, ins in enumerate(prog.instrs):
        if isinstance(ins, (*JUMPS, *BRANCHES)):
            h = prog.labels[ins.target]
            if h <= j:
                out.append((h, j))
    return out


def _plan(prog):
    """(index of the final store, its CB, indices of the commands that read the CB) where the
    rewrite applies, else None."""
    instrs = prog.instrs
    if not instrs or type(instrs[-1]) is not riscv.Halt or any(type(i) is riscv.Halt for i in instrs[:-1]):
        return None
    if any(isinstance(i, SYNCHRONISING) for i in instrs):
        return None
    s = len(instrs) - 2
    store = instrs[s] if s >= 0 else None
    if type(store) is not dma.DmaOut or store.src.mode != "pop" or store.src.offset or store.ctx or store.inc != 0:
        return None
    if any(i == s for i in prog.labels.values()):       # (a branch straight to the store: keep it simple)
        return None
    cb = store.src.cb
    decl = next((d for d in prog.cbs if d.id == cb), None)
    if decl is None or decl.slots < 2:
        return None
    if any(isinstance(i, CB_CORE_OPS) and i.cb == cb for i in instrs):
        return None
    loops = _loops(prog)

    def in_loop(i):
        return any(h <= i <= j for h, j in loops)
    readers, pushes = [], 0
    for i, ins in enumerate(instrs[:s]):
        if type(ins).unit not in ENGINES:
            continue
        for t in _tiles(ins):
            if t.cb != cb:
                continue
            if t.mode == "push":         # pushed before the pending store pops: once, outside loops
                if readers or in_loop(i):
                    return None
                pushes += 1
            elif i not in readers:
                readers.append(i)
    if not readers or pushes > decl.slots - 1 or not any(in_loop(i) for i in readers):
        return None
    return s, cb, readers


def _free_regs(prog, n: int) -> list[int] | None:
    used = {0}
    for ins in prog.instrs:
        r, w = reads_writes(ins)
        used |= r | w
    for a in prog.args:
        if a.reg.startswith("x"):
            used.add(int(a.reg[1:]))
    free = [r for r in range(1, 32) if r not in used]
    return free[:n] if len(free) >= n else None


def _rename(ins, regs: dict[int, int]):
    """`ins` with the x registers it reads renamed by `regs`."""
    changes = {}
    for name, kind, _ in type(ins).fields:
        v = getattr(ins, name)
        if isinstance(v, X):
            changes[name] = X(regs.get(v.n, v.n))
        elif kind is K.XReg:
            changes[name] = regs.get(v, v)
        elif isinstance(v, tuple):
            changes[name] = tuple(X(regs.get(e.n, e.n)) if isinstance(e, X) else e for e in v)
    return dataclasses.replace(ins, **changes)


def _fresh(prog, stem: str) -> str:
    n = 1
    while f"{stem}_{n}" in prog.labels:
        n += 1
    return f"{stem}_{n}"


def _epilogue(prog, s: int, cb: int, readers: list[int], loops) -> int | None:
    """The index of the epilogue's conversion where it can be deferred with the store: the last reader
    of the result's CB, an SE copy converting the accumulator in place (`se.mov cbC.acc:f16[..],
    cbC.keep:f32[..]`) outside loops, with only scalar code between it and the store."""
    m = readers[-1]
    mov, store = prog.instrs[m], prog.instrs[s]
    if type(mov) is not se.SeMov or any(h <= m <= j for h, j in loops):
        return None
    out, a = mov.out, mov.a
    if not (isinstance(out, Tile) and isinstance(a, Tile) and out.cb == a.cb == cb and out.mode == "acc"
            and a.mode == "keep" and out.offset == a.offset == 0 and out.shape == a.shape == store.src.shape
            and out.dtype == store.src.dtype):
        return None
    between = prog.instrs[m + 1: s]
    if any(type(i).unit != "scalar" or isinstance(i, (*JUMPS, *BRANCHES)) for i in between):
        return None
    if any(m < i <= s for i in prog.labels.values()):
        return None
    return m


def _out_cb(prog, tile: Tile, ls_limit: int, align: int):
    """A one-slot CB for the converted tile above the program's CBs, if it fits below `ls_limit`."""
    end = max((d.base + d.nbytes for d in prog.cbs), default=0)
    base = -(-end // align) * align
    if base + tile.nbytes > ls_limit:
        return None
    return CBDecl(max(d.id for d in prog.cbs) + 1, "deferred", base, tile.nbytes, 1)


def defer_final_store(prog, ls_limit: int = 0, align: int = 64) -> bool:
    """Rewrite `prog` in place (module docstring) where it applies; returns whether it did. With
    `ls_limit` (the local-store bytes the program's CBs may reach), the epilogue's conversion is
    deferred with the store where a CB for the converted tile fits."""
    plan = _plan(prog)
    if plan is None:
        return False
    s, cb, readers = plan
    store = prog.instrs[s]
    operands = sorted(reads_writes(store)[0])
    regs = _free_regs(prog, len(operands) + 2)
    if regs is None:
        return False
    pending, more, kept = regs[0], regs[1], regs[2:]
    saved = dict(zip(operands, kept))
    deferred = _rename(store, saved)
    m = _epilogue(prog, s, cb, readers, _loops(prog)) if ls_limit else None
    decl = _out_cb(prog, store.src, ls_limit, align) if m is not None else None
    if decl is not None:
        mov = prog.instrs[m]
        src = store.src
        actions = [dataclasses.replace(mov, out=Tile(decl.id, "push", src.dtype, src.shape),
                                       a=dataclasses.replace(mov.a, mode="pop")),
                   dataclasses.replace(deferred, src=Tile(decl.id, "pop", src.dtype, src.shape))]
        readers = readers[:-1]
        dropped = {m}
    else:
        actions, dropped = [deferred], set()
    lines = prog.meta.get("lines")
    line_of = (lambda i: lines[i]) if lines is not None else (lambda i: None)
    store_line = line_of(s)
    out: list = []               # (instruction, source line): the program
    stubs: list = []             # the same: the pending actions' steps, out of line after the halt
    labels_at: dict[int, list[str]] = {}
    for name, i in prog.labels.items():
        labels_at.setdefault(i, []).append(name)
    new_labels: dict[str, tuple[list, int]] = {}

    def label(name, where=out):
        new_labels[name] = (where, len(where))

    def fresh(stem):
        name = _fresh(prog, stem)
        prog.labels[name] = -1              # (reserved)
        return name

    def emit(ins, where=out):
        where.append((ins, store_line))

    def step():
        """The next pending action, if any (`pending` counts the actions left): one untaken branch
        when none is, else a jump to a stub after the halt and back."""
        stub, back = fresh("pending"), fresh("stored")
        emit(riscv.Bne(rs1=pending, rs2=0, target=stub))
        label(back)
        label(stub, stubs)
        for j, action in enumerate(actions):
            left = len(actions) - j
            nxt = fresh("stage") if left > 1 else None
            if left > 1:
                emit(riscv.Li(rd=more, imm=left), stubs)
                emit(riscv.Bne(rs1=pending, rs2=more, target=nxt), stubs)
            emit(action, stubs)
            emit(riscv.Li(rd=pending, imm=left - 1), stubs)
            emit(riscv.J(target=back), stubs)
            if nxt is not None:
                label(nxt, stubs)

    def flush():
        """Every pending action, in order."""
        done = fresh("stored")
        emit(riscv.Beq(rs1=pending, rs2=0, target=done))
        for j, action in enumerate(actions):
            left = len(actions) - j
            if left > 1:
                nxt = fresh("stage")
                emit(riscv.Li(rd=more, imm=left))
                emit(riscv.Blt(rs1=pending, rs2=more, target=nxt))
                emit(action)
                label(nxt)
            else:
                emit(action)
        emit(riscv.Li(rd=pending, imm=0))
        label(done)

    emit(riscv.Li(rd=pending, imm=0))
    top_name = fresh("persistent")
    label(top_name)
    readers_set = set(readers)
    for i, ins in enumerate(prog.instrs[:s]):
        for name in labels_at.get(i, []):
            label(name)
        if i in readers_set:
            step()
        if i not in dropped:
            out.append((ins, line_of(i)))
    # the final store (and its conversion): what an earlier program left pending goes first, then
    # this program's store operands are kept and its actions pending
    for name in labels_at.get(s, []):
        label(name)
    flush()
    for r in operands:
        emit(riscv.Mv(rd=saved[r], rs1=r))
    emit(riscv.Li(rd=pending, imm=len(actions)))
    for name in labels_at.get(s + 1, []):
        label(name)
    emit(sync.NextPid(rd=more, keep=tuple(X(r) for r in [pending, *kept])))
    emit(riscv.Bne(rs1=more, rs2=0, target=top_name))
    flush()
    out.append((prog.instrs[-1], line_of(len(prog.instrs) - 1)))
    for name in labels_at.get(len(prog.instrs), []):
        label(name)
    n = len(out)
    new_labels = {name: i + (n if where is stubs else 0) for name, (where, i) in new_labels.items()}
    out += stubs
    prog.instrs = [ins for ins, _ in out]
    prog.labels = new_labels
    if decl is not None:
        prog.cbs.append(decl)
        prog.meta["ls_bytes"] = max(prog.meta.get("ls_bytes", 0), decl.base + decl.nbytes)
    if lines is not None:
        prog.meta["lines"] = [ln for _, ln in out]
    prog.meta["persistent"] = True
    return True
