"""The command forms (auto-increment `inc=`, multi-context `ctx=`): the same results as the plain
commands, on both executors and in hand-written ISA, and less of the control core's time, as the
simulator charges each command's operand words."""
import math

import numpy as np
import pytest

from compiler.backend.options import BackendOptions
from compiler.backend.program.command_forms import apply_command_forms
from compiler.kernels.matmul import matmul, reference
from compiler.runtime.jit import LAUNCH_OBSERVERS
from compiler.runtime.mtia_executor import mtia_program
from isa import Program
from simulator import get_config, load_config
from simulator.errors import ProgramError
from simulator.machine import Machine

OFF = ({}, {"auto_increment": False}, {"command_contexts": False},
       {"auto_increment": False, "command_contexts": False})


@pytest.mark.parametrize("options", OFF, ids=["both", "no-auto-increment", "no-contexts", "neither"])
def test_matmul_matches_numpy_with_and_without_the_forms(options):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((100, 70)) / 4).astype(np.float16)      # partial tiles: the K extent shrinks
    b = (rng.standard_normal((70, 130)) / 4).astype(np.float16)
    compiled = []
    LAUNCH_OBSERVERS.append(lambda c, grid, record: compiled.append(c))
    try:
        (c,), _ = matmul(a, b, mtia_options=options)                 # c starts as NaN (matmul poisons it)
    finally:
        LAUNCH_OBSERVERS.pop()
    np.testing.assert_allclose(c.astype(np.float32), reference(a, b)[0].astype(np.float32), rtol=2e-2, atol=2e-2)
    asm = mtia_program(compiled[0], get_config(), 3, BackendOptions.of(options))[0].to_asm()
    assert ("inc=" in asm) == options.get("auto_increment", True)
    assert ("ctx=" in asm) == options.get("command_contexts", True)


def test_matmul_on_the_interpreter_matches_the_simulator_with_the_forms():
    rng = np.random.default_rng(4)
    a = (rng.standard_normal((64, 96)) / 4).astype(np.float16)
    b = (rng.standard_normal((96, 64)) / 4).astype(np.float16)
    (c_sim,), _ = matmul(a, b)
    (c_int,), _ = matmul(a, b, executor="interpreter")
    assert not np.isnan(c_sim).any() and not np.isnan(c_int).any()
    np.testing.assert_allclose(c_sim.astype(np.float32), c_int.astype(np.float32), rtol=2e-2, atol=2e-2)


def test_forms_cut_the_control_cores_time_on_a_256_gemm():
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((256, 256)) / 4).astype(np.float16)
    b = (rng.standard_normal((256, 256)) / 4).astype(np.float16)
    busy = {}
    for name, options in (("on", {}), ("off", OFF[3])):
        (c,), runs = matmul(a, b, sram_resident=True, mtia_options=options)
        np.testing.assert_allclose(c.astype(np.float32), reference(a, b)[0].astype(np.float32), rtol=2e-2, atol=2e-2)
        rep = runs[0].report
        busy[name] = max(p["core"] for p in rep.per_pe) * rep.cycles
    # per K step: the two loads send one word each (their K extent) instead of 7, the DPE none instead
    # of 3, and the two pointer updates (3 instructions) are gone
    assert busy["on"] < 0.85 * busy["off"], busy


def _copy(ctx: int, rows: int = 4) -> Program:
    """Copy `rows` tiles of 32x32 f16 from src to dst, each command auto-incrementing its address."""
    c = f", ctx={ctx}" if ctx else ""
    return Program.from_asm(f"""
.kernel copy
.arg src ptr f16 x10
.arg dst ptr f16 x11
.cb 0 buf base=0 slot=2048 slots=2
    li x8, {rows}
loop:
    dma.in cb0.push:f16[32x32], x10, [32, 1]{c}, inc=1024
    dma.out cb0.pop:f16[32x32], x11, [32, 1]{c and f", ctx={ctx + 1}"}, inc=1024
    addi x8, x8, -1
    bne x8, x0, loop
    halt
""")


def test_auto_increment_and_contexts_in_isa_copy_the_data_and_save_operand_words():
    cfg = load_config("mtia-small")
    src = np.random.default_rng(1).standard_normal(4 * 1024).astype(np.float16)
    busy = {}
    for ctx in (0, 1):
        m = Machine(cfg)
        a = m.gmem.alloc_array(src, "src")
        d = m.gmem.alloc_array(np.full_like(src, np.nan), "dst")
        m.run(_copy(ctx), grid=(1,), args={"src": a, "dst": d})
        np.testing.assert_array_equal(d.data.view(np.float16), src)
        busy[ctx] = m.pes[0].core.busy
    # each command sends 5 words (tile, base, two strides, the literal fields) on its first issue and
    # none on the three after it, through its context
    s = cfg.pe.scalar
    saved = 2 * 3 * math.ceil(5 / s.operand_words_per_write) * s.operand_write_cycles
    assert busy[0] - busy[1] == pytest.approx(saved)


def test_a_context_past_the_engines_count_is_refused():
    cfg = load_config("mtia-small")
    m = Machine(cfg)
    a = m.gmem.alloc(8192, "src")
    d = m.gmem.alloc(8192, "dst")
    with pytest.raises(ProgramError, match=r"ctx=8: the dma engine has command contexts 1 to 4 \(pe.command_contexts\)"):
        m.run(_copy(8), grid=(1,), args={"src": a, "dst": d})


LOOP = """
.kernel k
.arg src ptr f16 x10
.cb 0 buf base=0 slot=2048 slots=2
    li x8, 4
loop:
    dma.in cb0.push:f16[32x32], x10, [32, 1]
    cb.pop 0
{between}    addi x10, x10, 2048
    addi x8, x8, -1
    bne x8, x0, loop
    halt
"""


def test_the_address_update_folds_into_the_load_only_when_nothing_reads_it_between():
    prog = Program.from_asm(LOOP.format(between=""))
    apply_command_forms(prog, auto_increment=True, contexts=4)
    asm = prog.to_asm()
    assert "dma.in cb0.push:f16[32x32], x10, [32, 1], ctx=1, inc=1024" in asm
    assert "addi x10" not in asm and prog.labels["loop"] == 1
    for between in ("    add x12, x10, x0\n", "    li x10, 0\n"):      # a read or a write of the base
        prog = Program.from_asm(LOOP.format(between=between))
        apply_command_forms(prog, auto_increment=True, contexts=0)
        assert "inc=" not in prog.to_asm() and "addi x10, x10, 2048" in prog.to_asm()
