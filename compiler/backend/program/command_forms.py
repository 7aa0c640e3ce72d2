"""The command forms of ISCA'25 for tight issue loops, on the register-allocated program.

- Auto-increment (`inc=`): a box DMA followed in its basic block by the update of its base register
  by a constant or loop-invariant step (`addi xB, xB, 64`, or `slli xT, xS, 1; add xB, xB, xT`)
  post-increments the register itself, and the update goes: the core neither computes nor sends
  the next address.
- Multi-context (`ctx=`): each DMA and DPE command inside a loop is issued through a command context
  of its own (innermost loops first, while the engine has contexts left), so that the operands it
  sends again each iteration are only those that changed.

Both keep the program's semantics: a folded update moves earlier only past instructions that
neither read nor write the base register, and a context changes what the command costs to issue,
not what it does. The simulator charges each form (simulator/pe/command_processor.py).
"""
from __future__ import annotations

import dataclasses

from isa import dma, dpe
from isa import fields as K
from isa import scalar as riscv
from isa.instruction import ENGINES
from isa.types import X, itemsize

from .regalloc import BRANCHES

BOX_DMAS = (dma.DmaIn, dma.DmaOut)
CONTEXT_COMMANDS = (dma.DmaIn, dma.DmaOut, dpe.DpeMatmul)
JUMPS = (riscv.J, riscv.Jal)


def apply_command_forms(prog, auto_increment: bool, contexts: int) -> None:
    """Rewrite `prog` in place: auto-increments (if `auto_increment`), then up to `contexts` command
    contexts per engine."""
    if auto_increment:
        _fold_increments(prog)
    if contexts:
        _assign_contexts(prog, contexts)


# ---- registers an instruction reads and writes -------------------------------------------------
def _reg(v) -> int:
    """The number of the register an XReg field names."""
    return v if type(v) is int else v.n


def _regs(kind, v) -> list[int]:
    if kind is K.XReg:
        return [_reg(v)]
    if isinstance(v, X):
        return [v.n]
    if isinstance(v, tuple):
        return [e.n for e in v if isinstance(e, X)]
    return []


def reads_writes(ins) -> tuple[set, set]:
    """The x registers `ins` reads and writes (x0 left out)."""
    r, w = set(), set()
    for name, kind, _ in type(ins).fields:
        regs = _regs(kind, getattr(ins, name))
        (w if name == "rd" and kind is K.XReg else r).update(regs)
    if isinstance(ins, BOX_DMAS) and ins.inc != 0:
        w.add(_reg(ins.base))
    return r - {0}, w - {0}


def _block_ends(prog) -> set[int]:
    """Indices that start a basic block: labelled instructions."""
    return set(prog.labels.values())


def _dead_after(prog, start: int, reg: int) -> bool:
    """Whether `reg` is written before it is read on every path from instruction `start`."""
    seen, todo = set(), [start]
    while todo:
        i = todo.pop()
        if i in seen or i >= len(prog.instrs):
            continue
        seen.add(i)
        ins = prog.instrs[i]
        r, w = reads_writes(ins)
        if reg in r or isinstance(ins, riscv.Jalr):
            return False
        if reg in w or isinstance(ins, riscv.Halt):
            continue
        if isinstance(ins, JUMPS):
            todo.append(prog.labels[ins.target])
            continue
        if isinstance(ins, BRANCHES):
            todo.append(prog.labels[ins.target])
        todo.append(i + 1)
    return True


# ---- auto-increment ------------------------------------------------------------------------------
def _fold_increments(prog) -> None:
    starts = _block_ends(prog)
    drop: set[int] = set()
    instrs = prog.instrs
    for i, ins in enumerate(instrs):
        if not isinstance(ins, BOX_DMAS) or ins.inc != 0 or _reg(ins.base) == 0:
            continue
        base = _reg(ins.base)
        tile = ins.dst if isinstance(ins, dma.DmaIn) else ins.src
        size = itemsize(tile.dtype)
        written_since: set = set()           # registers written between the command and the update
        for j in range(i + 1, len(instrs)):
            if j in starts:
                break
            if j in drop:                    # already folded into an earlier command
                continue
            nxt = instrs[j]
            step = _step(prog, j, base, size, written_since)
            if step is not None:
                inc, used = step
                instrs[i] = dataclasses.replace(ins, inc=inc)
                drop.update(used)
                break
            r, w = reads_writes(nxt)
            if base in r or base in w or isinstance(nxt, (*JUMPS, *BRANCHES, riscv.Jalr, riscv.Halt)):
                break
            written_since |= w
    if drop:
        _remove(prog, drop)


def _step(prog, j: int, base: int, size: int, written: set):
    """(inc, instructions to drop) when instruction j (with the one before it) adds a constant or a
    register's value times `size` to `base`; else None."""
    ins = prog.instrs[j]
    if type(ins) is riscv.Addi and _reg(ins.rd) == base and _reg(ins.rs1) == base:
        return (ins.imm // size, {j}) if ins.imm % size == 0 and ins.imm else None
    if type(ins) is not riscv.Add or _reg(ins.rd) != base or base not in (_reg(ins.rs1), _reg(ins.rs2)):
        return None
    other = _reg(ins.rs2) if _reg(ins.rs1) == base else _reg(ins.rs1)
    if other == base or other == 0:
        return None
    if size == 1 and other not in written:
        return X(other), {j}
    prev = prog.instrs[j - 1] if j else None
    if (type(prev) is riscv.Slli and _reg(prev.rd) == other and (1 << prev.imm) == size
            and _reg(prev.rs1) not in (base, other, 0) and _reg(prev.rs1) not in written):
        used = {j, j - 1} if _dead_after(prog, j + 1, other) else {j}
        return X(_reg(prev.rs1)), used
    return None


def _remove(prog, drop: set[int]) -> None:
    keep = [i for i in range(len(prog.instrs)) if i not in drop]
    new_index = {old: new for new, old in enumerate(keep)}
    new_index[len(prog.instrs)] = len(keep)
    for name, i in prog.labels.items():
        while i not in new_index:            # a label on a dropped instruction marks the next one kept
            i += 1
        prog.labels[name] = new_index[i]
    prog.instrs = [prog.instrs[i] for i in keep]
    lines = prog.meta.get("lines")
    if lines is not None:
        prog.meta["lines"] = [lines[i] for i in keep]


# ---- multi-context -------------------------------------------------------------------------------
def _assign_contexts(prog, contexts: int) -> None:
    """Each command in a loop gets a context of its own, innermost loops first."""
    loops = []                               # (head, back edge) of each loop, by its back edge
    for j, ins in enumerate(prog.instrs):
        if isinstance(ins, (*JUMPS, *BRANCHES)):
            h = prog.labels[ins.target]
            if h <= j:
                loops.append((h, j))
    depth = {}
    for i, ins in enumerate(prog.instrs):
        if isinstance(ins, CONTEXT_COMMANDS) and type(ins).unit in ENGINES:
            d = sum(1 for h, j in loops if h <= i <= j)
            if d:
                depth[i] = d
    used: dict[str, int] = {}
    for i in sorted(depth, key=lambda i: (-depth[i], i)):
        ins = prog.instrs[i]
        n = used.get(ins.unit, 0)
        if n < contexts:
            used[ins.unit] = n + 1
            prog.instrs[i] = dataclasses.replace(ins, ctx=n + 1)
