"""Runs of pure integer instructions, run as one generated function each (simulator/pe/scalar_blocks.py),
compute what the instructions' own semantics compute one at a time, and a kernel's cycles, results
and instruction count do not change with them."""
import numpy as np
import pytest

import compiler
import compiler.language as tl
from isa import scalar as riscv
from simulator import load_config, use_config
from simulator.pe import scalar_blocks
from simulator.semantics import SEMANTICS

REGS = range(0, 9)          # x0 included: writes to it are dropped, reads give 0
EDGES = [0, 1, -1, 2 ** 31 - 1, -2 ** 31, 2 ** 32 - 1, 2 ** 63 - 1, -2 ** 63, 0x5555_5555_5555_5555]


class _Core:
    """What the semantics functions touch of a control core, for pure integer code."""
    def __init__(self, x):
        self.x = list(x)


def _random_instruction(rng):
    classes = sorted(scalar_blocks.PURE, key=lambda c: c.__name__)
    cls = classes[rng.integers(len(classes))]
    rd, rs1, rs2 = (int(r) for r in rng.choice(REGS, 3))
    if issubclass(cls, riscv.RType):
        return cls(rd, rs1, rs2)
    imm = int(rng.choice(EDGES)) if rng.random() < 0.3 else int(rng.integers(-5000, 5000))
    if issubclass(cls, riscv.IType):
        return cls(rd, rs1, imm)
    if cls is riscv.Li:
        return cls(rd, int(rng.choice(EDGES)) * int(rng.integers(1, 3)))    # also a constant beyond 64 bits
    return cls(rd, rs1)                                                     # mv and the extensions


def _random_registers(rng):
    x = [0] + [int(rng.choice(EDGES)) if rng.random() < 0.4 else int(rng.integers(-2 ** 40, 2 ** 40))
               for _ in REGS[1:]]
    return x + [0] * (32 - len(x))


def test_each_pure_instruction_alone_computes_what_its_semantics_compute():
    rng = np.random.default_rng(1)
    for cls in scalar_blocks.PURE:
        for _ in range(40):
            ins = _random_instruction(rng)
            while type(ins) is not cls:
                ins = _random_instruction(rng)
            x = _random_registers(rng)
            want = _Core(x)
            SEMANTICS[cls](want, ins)
            got = list(x)
            scalar_blocks.compile_run((ins,))(got)
            assert got == want.x, (ins, x)


def test_random_runs_compute_what_the_instructions_compute_one_at_a_time():
    rng = np.random.default_rng(2)
    for _ in range(300):
        run = tuple(_random_instruction(rng) for _ in range(int(rng.integers(2, 30))))
        x = _random_registers(rng)
        want = _Core(x)
        for ins in run:
            SEMANTICS[type(ins)](want, ins)
        got = list(x)
        scalar_blocks.compile_run(run)(got)
        assert got == want.x, "\n".join(map(str, run))
        assert got[0] == 0
        assert all(-2 ** 63 <= v < 2 ** 63 for v in got)


def test_runs_stop_at_labels_and_at_anything_impure():
    from isa import Program
    prog = Program.from_asm("""
.kernel k
    li x1, 1
    addi x2, x1, 3
    lw x3, 0(x2)
    add x4, x1, x2
top:
    sub x5, x4, x1
    slli x6, x5, 2
    bne x6, x0, top
    halt
""")
    found = {i: n for i, (_, n) in scalar_blocks.runs(prog).items()}
    assert found == {0: 2, 4: 2}      # the add alone before `top` is no run; `top` starts one


@compiler.jit
def _wrapped_rows(x_ptr, y_ptr, M, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    rows = (pid * BLOCK + tl.arange(0, BLOCK)) % M
    acc = tl.zeros((BLOCK,), tl.float32)
    for j in range(0, N, 16):
        cols = j + tl.arange(0, 16)
        v = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=cols[None, :] < N, other=0.0)
        acc += tl.sum(v, axis=1)
    tl.store(y_ptr + pid * BLOCK + tl.arange(0, BLOCK), acc)


@pytest.mark.parametrize("cpi", [1.0, 1.3])
def test_a_kernel_runs_to_the_same_cycles_and_results_with_and_without_runs(monkeypatch, cpi):
    rng = np.random.default_rng(3)
    m, n, block = 96, 72, 32
    x = rng.standard_normal((m, n)).astype(np.float32)
    results = []
    with use_config(load_config("mtia-2i", {"pe.scalar.cpi": cpi})):
        for use_runs in (True, False):
            if not use_runs:
                monkeypatch.setattr(scalar_blocks, "runs", lambda program: {})
            y = np.full(m + block, np.nan, np.float32)
            rec = _wrapped_rows[(m // block + 1,)](x, y, m, n, BLOCK=block)
            results.append((y, rec.cycles, rec.report.instructions))
    (y1, c1, i1), (y2, c2, i2) = results
    want = x.sum(axis=1)
    np.testing.assert_allclose(y1[:m], want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y1[m:], want[: block], rtol=1e-5, atol=1e-5)   # the wrapped program
    np.testing.assert_array_equal(y1, y2)
    assert c1 == c2 and i1 == i2
