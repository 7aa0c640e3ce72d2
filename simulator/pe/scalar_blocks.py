"""Straight-line integer code run as one Python function per block.

The control core interprets one instruction at a time: a tuple unpacked, a semantics function
called, the instruction's fields read, its operation looked up by class. Address arithmetic between
commands is runs of pure register operations (add, shift, min, sign-extend: 20-35 per K step of a
wrapped-row matmul), so here each maximal run of them that no label splits becomes one function,
generated once per program, that does the run's register updates with the operations written out.
The core runs the function where the run starts and charges the run's instructions their `cpi`
each, in the same order of additions as one at a time, so cycles and results are exactly the
interpreter's (tests/simulator/pe/test_scalar_blocks.py runs both on random code). A jump into the middle of a
run finds the run's own instructions there, interpreted one at a time as before.

Only operations that touch nothing but integer registers and cannot fail join a run: loads and
stores (which check addresses and charge latency), branches, floats and commands end it.
"""
from __future__ import annotations

from functools import lru_cache

from isa import scalar as riscv

from ..semantics.scalar import EXTENSIONS, IMMEDIATE_OPS, REGISTER_OPS, wrap

MIN_RUN = 2          # a single instruction gains nothing from a function of its own

_W = "(({}) + 0x8000000000000000 & 0xFFFFFFFFFFFFFFFF) - 0x8000000000000000"   # wrap() written out
_M64 = "0xFFFFFFFFFFFFFFFF"

# the operation's value from a and b (source text), before wrapping; None: call the semantics' own
_R_TEXT = {
    riscv.Add: "{a} + {b}", riscv.Sub: "{a} - {b}", riscv.Mul: "{a} * {b}",
    riscv.And: "{a} & {b}", riscv.Or: "{a} | {b}", riscv.Xor: "{a} ^ {b}",
    riscv.Sll: "{a} << ({b} & 63)", riscv.Srl: "({a} & " + _M64 + ") >> ({b} & 63)", riscv.Sra: "{a} >> ({b} & 63)",
    riscv.Slt: "int({a} < {b})", riscv.Sltu: "int(({a} & " + _M64 + ") < ({b} & " + _M64 + "))",
    riscv.Min: "min({a}, {b})", riscv.Max: "max({a}, {b})",
}
_I_TEXT = {
    riscv.Addi: "{a} + {i}", riscv.Andi: "{a} & {i}", riscv.Ori: "{a} | {i}", riscv.Xori: "{a} ^ {i}",
    riscv.Slli: "{a} << {s}", riscv.Srli: "({a} & " + _M64 + ") >> {s}", riscv.Srai: "{a} >> {s}",
    riscv.Slti: "int({a} < {i})", riscv.Sltiu: "int(({a} & " + _M64 + ") < {u})",
}
_EXT_TEXT = {
    riscv.SextB: "(({a} + 0x80) & 0xFF) - 0x80", riscv.SextH: "(({a} + 0x8000) & 0xFFFF) - 0x8000",
    riscv.SextW: "(({a} + 0x80000000) & 0xFFFFFFFF) - 0x80000000",
    riscv.ZextB: "{a} & 0xFF", riscv.ZextH: "{a} & 0xFFFF", riscv.ZextW: "{a} & 0xFFFFFFFF",
}

PURE = frozenset((*REGISTER_OPS, *IMMEDIATE_OPS, *EXTENSIONS, riscv.Li, riscv.Mv))


def _line(ins, ops: dict) -> str | None:
    """One instruction as a statement on the register list `x` (None when it writes x0: nothing)."""
    if not ins.rd:
        return None
    cls = type(ins)
    if cls is riscv.Li:
        return f"x[{ins.rd}] = {wrap(ins.imm)}"
    a = f"x[{ins.rs1}]"
    if cls is riscv.Mv:
        return f"x[{ins.rd}] = {a}"
    if cls in EXTENSIONS:
        return f"x[{ins.rd}] = {_EXT_TEXT[cls].format(a=a)}"
    if cls in IMMEDIATE_OPS:
        text = _I_TEXT[cls].format(a=a, i=ins.imm, s=ins.imm & 63, u=ins.imm & ((1 << 64) - 1))
        return f"x[{ins.rd}] = {_W.format(text)}"
    b = f"x[{ins.rs2}]"
    text = _R_TEXT.get(cls)
    if text is None:                                  # div, rem, mulh: the semantics' own function
        name = f"op_{cls.__name__}"
        ops[name] = REGISTER_OPS[cls]
        text = f"{name}({a}, {b})"
    else:
        text = text.format(a=a, b=b)
    return f"x[{ins.rd}] = {_W.format(text)}"


@lru_cache(maxsize=4096)
def compile_run(instrs: tuple) -> object:
    """The function `f(x)` that applies `instrs` (pure integer instructions) to register list x.
    Cached: every launch of a program, and every PE, asks for the same runs."""
    ops: dict = {}
    body = [ln for ln in (_line(i, ops) for i in instrs) if ln is not None] or ["pass"]
    src = "def run(x):\n" + "".join(f"    {ln}\n" for ln in body)
    scope = dict(ops)
    exec(compile(src, "<scalar run>", "exec"), scope)
    fn = scope["run"]
    fn.source = src
    return fn


def runs(program) -> dict[int, tuple[object, int]]:
    """{index of a run's first instruction: (its function, its length)} for the program's runs of
    at least MIN_RUN pure integer instructions that no label target splits."""
    targets = set(program.labels.values())
    out: dict[int, tuple[object, int]] = {}
    instrs = program.instrs
    i = 0
    while i < len(instrs):
        if type(instrs[i]) not in PURE:
            i += 1
            continue
        j = i + 1
        while j < len(instrs) and type(instrs[j]) in PURE and j not in targets:
            j += 1
        if j - i >= MIN_RUN:
            out[i] = (compile_run(tuple(instrs[i:j])), j - i)
        i = j
    return out
