"""Register allocation: virtual registers onto x1..x28 and f0..f28 by linear scan over live
intervals, spilling to the top of the local store when a program needs more.

Liveness is computed on the control-flow graph of the instruction list (branches and labels), so a
value live around a loop keeps its register through the whole loop. x29..x31 and f29..f31 are kept
free to reload spilled values next to the instruction that reads them.
"""
from __future__ import annotations

from isa import fields as isa_fields
from isa import scalar as riscv
from isa.instruction import make
from isa.types import F, X

from ..codegen.emitter import Label, Proto, VReg

POOL = {"x": list(range(1, 29)), "f": list(range(0, 29))}
SCRATCH = {"x": [29, 30, 31], "f": [29, 30, 31]}
BRANCHES = (riscv.Beq, riscv.Bne, riscv.Blt, riscv.Bge, riscv.Bltu, riscv.Bgeu)
DEF_FIELDS = ("rd", "fd")


class RegAllocError(Exception):
    """The registers do not fit: `spill_bytes` is the spill room a kernel would need (0 when unknown)."""

    def __init__(self, message: str, spill_bytes: int = 0):
        super().__init__(message)
        self.spill_bytes = spill_bytes


def _vregs(value):
    if isinstance(value, VReg):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            if isinstance(v, VReg):
                yield v


def defs_uses(p: Proto):
    d, u = [], []
    for name, v in p.fields.items():
        (d if name in DEF_FIELDS else u).extend(_vregs(v))
    return d, u


def coalesce_copies(code: list) -> list:
    """Drop `mv dst, src` where `src` is a temporary written once, a few instructions earlier in the
    same straight-line stretch, and read only by this copy: that instruction writes `dst` instead.
    This removes the copies loops make on their back edge (`ptr' = ptr + step; ptr = ptr'`)."""
    defs: dict = {}
    uses: dict = {}
    for item in code:
        if isinstance(item, Proto):
            d, u = defs_uses(item)
            for v in d:
                defs[v] = defs.get(v, 0) + 1
            for v in u:
                uses[v] = uses.get(v, 0) + 1
    out = list(code)
    for k, item in enumerate(out):
        if not (isinstance(item, Proto) and item.cls is riscv.Mv):
            continue
        dst, src = item.fields["rd"], item.fields["rs1"]
        if not (isinstance(dst, VReg) and isinstance(src, VReg)) or defs.get(src) != 1 or uses.get(src) != 1:
            continue
        for j in range(k - 1, -1, -1):          # back to src's definition, through straight-line code
            prev = out[j]
            if prev is None:
                continue
            if isinstance(prev, Label) or prev.cls in BRANCHES or prev.cls in (riscv.J, riscv.Halt):
                break
            d, u = defs_uses(prev)
            if src in d:
                name = next(n for n, v in prev.fields.items() if n in DEF_FIELDS and v is src)
                prev.fields[name] = dst     # reads of dst in this instruction happen before its write
                out[k] = None
                break
            if dst in d or dst in u:            # dst is read or written in between: keep the copy
                break
    return [item for item in out if item is not None]


def allocate(code: list, args: list[VReg], spill_base: int, spill_bytes: int):
    """Returns (instructions, labels, physical register of each arg, spill count, source line of each
    instruction)."""
    code = coalesce_copies(code)
    protos, labels = [], {}
    for item in code:
        if isinstance(item, Label):
            labels[item.name] = len(protos)
        else:
            protos.append(item)
    n = len(protos)
    succ = []
    for i, p in enumerate(protos):
        if p.cls in BRANCHES:
            succ.append([labels[p.fields["target"]], i + 1])
        elif p.cls is riscv.J:
            succ.append([labels[p.fields["target"]]])
        elif p.cls is riscv.Halt:
            succ.append([])
        else:
            succ.append([i + 1])
    du = [defs_uses(p) for p in protos]
    live_in = [set() for _ in range(n + 1)]
    changed = True
    while changed:
        changed = False
        for i in range(n - 1, -1, -1):
            out = set()
            for j in succ[i]:
                if j <= n:
                    out |= live_in[j]
            d, u = du[i]
            new = (out - set(d)) | set(u)
            if new != live_in[i]:
                live_in[i] = new
                changed = True
    start, end = {}, {}

    def touch(v, i):
        if v not in start or i < start[v]:
            start[v] = i
        if v not in end or i > end[v]:
            end[v] = i
    for v in args:
        touch(v, 0)
    for i in range(n):
        for v in live_in[i]:
            touch(v, i)
        d, u = du[i]
        for v in d + u:
            touch(v, i)
        for j in succ[i]:
            if j < n:
                for v in live_in[j]:
                    touch(v, i)
    assign, spilled = _linear_scan(start, end, set(args))
    out, index = _rewrite(protos, assign, spilled, spill_base, spill_bytes)
    lines = [0] * len(out)
    for i, p in enumerate(protos):                 # spill code shares its instruction's line
        for k in range(index[i], index[i + 1]):
            lines[k] = p.line
    labels = {name: index[i] for name, i in labels.items()}
    return out, labels, {v: assign[v] for v in args if v in assign}, len(spilled), lines


def _linear_scan(start, end, pinned):
    assign, spilled = {}, {}
    free = {c: list(p) for c, p in POOL.items()}
    active = {"x": [], "f": []}
    for v in sorted(start, key=lambda v: (start[v], v.n)):
        c = v.cls
        act = active[c]
        for w in [w for w in act if end[w] < start[v]]:
            act.remove(w)
            free[c].append(assign[w])
        if free[c]:
            free[c].sort()
            assign[v] = free[c].pop(0)
            act.append(v)
            continue
        victim = max((w for w in act if w not in pinned), key=lambda w: end[w], default=None)
        if victim is not None and end[victim] > end[v] and v not in pinned:
            assign[v] = assign.pop(victim)
            act.remove(victim)
            act.append(v)
            spilled[victim] = len(spilled)
        elif v in pinned:
            raise RegAllocError("too many kernel arguments for the registers of the control core")
        else:
            spilled[v] = len(spilled)
    return assign, spilled


def _rewrite(protos, assign, spilled, base, nbytes):
    # A spill slot is 8 bytes; float registers spill as f64 (fld/fsd), which holds an f32 exactly and
    # an f64 scalar whole (fsw would round it to f32).
    if len(spilled) * 8 > nbytes:
        raise RegAllocError(f"the kernel needs {len(spilled)} spilled registers; only {nbytes // 8} fit", 8 * len(spilled))
    out, index = [], []
    for p in protos:
        index.append(len(out))
        before, after = [], []
        scratch = {"x": list(SCRATCH["x"]), "f": list(SCRATCH["f"])}
        local = {}
        reads = set(defs_uses(p)[1])

        def place(v, is_def):
            if v in assign:
                return assign[v]
            if v not in local:
                if not scratch[v.cls]:
                    raise RegAllocError("an instruction reads more spilled registers than there are scratch registers")
                local[v] = scratch[v.cls].pop(0)
                addr = base + 8 * spilled[v]
                # loaded whenever the instruction reads it, also when its write comes first in the fields
                # (`addi g, g, 1` of a spilled loop counter: without the load it adds to a stale scratch)
                if v in reads:
                    before.append(make(riscv.Ld, rd=local[v], rs1=0, imm=addr) if v.cls == "x"
                                  else make(riscv.Fld, fd=local[v], rs1=0, imm=addr))
            if is_def:
                addr = base + 8 * spilled[v]
                after.append(make(riscv.Sd, rs2=local[v], rs1=0, imm=addr) if v.cls == "x"
                             else make(riscv.Fsd, fs2=local[v], rs1=0, imm=addr))
            return local[v]

        fields = {}
        kinds = {name: kind for name, kind, _ in p.cls.fields}
        for name, v in p.fields.items():
            kind = kinds.get(name)
            fields[name] = _convert(v, kind, lambda r: place(r, name in DEF_FIELDS))
        out.extend(before)
        out.append(make(p.cls, **fields))
        out.extend(after)
    index.append(len(out))
    return out, index


def _convert(v, kind, place):
    if isinstance(v, VReg):
        n = place(v)
        if kind in (isa_fields.XReg, isa_fields.FReg, isa_fields.VReg):
            return n
        return X(n) if v.cls == "x" else F(n)
    if isinstance(v, tuple) and kind is not None and issubclass(kind, isa_fields.XList):
        return tuple(X(place(e)) if isinstance(e, VReg) else e for e in v)
    return v
