"""Programs the hardware cannot run stop with a message that names the cause."""
import numpy as np
import pytest

from isa import Program
from simulator import DeadlockError, ProgramError, SanitizerError, load_config
from simulator.machine import Machine


def _run(asm, grid=(1,), cfg="mtia-small", **arrays):
    m = Machine(load_config(cfg))
    args = {k: m.gmem.alloc_array(v, k) for k, v in arrays.items()}
    return m.run(Program.from_asm(asm), grid=grid, args=args)


def test_cb_larger_than_the_local_store_names_the_cb_and_the_limit():
    asm = ".kernel big\n.cb 0 small base=0 slot=1024 slots=2\n.cb 1 huge base=2048 slot=262144 slots=2\n    halt\n"
    with pytest.raises(ProgramError, match=r"CB 1 \(huge\) needs local store bytes \[2048, 526336\) \(2 slots x 262144 B\) "
                                           r"but the local store of mtia-small holds 393216 bytes \(pe.local_store_kib = 384"):
        _run(asm)


def test_tile_larger_than_its_slot_is_caught():
    asm = """.kernel overflow
.cb 0 t base=0 slot=1024 slots=2
    se.fill cb0.push:f32[512], 1.0
    halt
"""
    with pytest.raises(SanitizerError, match=r"tile out = cb0.push:f32\[512\] is 2048 bytes but the slots of CB 0 \(t\) hold 1024"):
        _run(asm)


def test_out_of_bounds_dma_names_the_array():
    asm = """.kernel oob
.arg x ptr f32 x10
.cb 0 t base=0 slot=4096 slots=2
    dma.in cb0.push:f32[1024], x10, [1]
    cb.pop 0
    halt
"""
    with pytest.raises(SanitizerError, match=r"oob program \(0, 0, 0\) on PE 0 \(0, 0\), instruction 0 `dma.in cb0.push:f32\[1024\], "
                                             r"x10, \[1\]`: out-of-bounds load: bytes .* run 96 bytes past the end of x "):
        _run(asm, x=np.zeros(1000, np.float32))


def test_misaligned_box_dma_is_caught_unless_unaligned_mode():
    asm = """.kernel mis
.arg x ptr f32 x10
.cb 0 t base=0 slot=4096 slots=2
    addi x10, x10, 4
    dma.in cb0.push:f32[16], x10, [1]{}
    cb.pop 0
    halt
"""
    with pytest.raises(SanitizerError, match=r"address 0x1[0-9a-f]{7}4 is not 32-byte aligned, as box DMA requires"):
        _run(asm.format(""), x=np.zeros(64, np.float32))
    _run(asm.format(", unaligned=1"), x=np.zeros(64, np.float32))


def test_deadlock_reports_every_engine_and_cb():
    # the DPE waits for a second B tile that nothing will ever push
    asm = """.kernel stuck
.cb 0 a base=0 slot=2048 slots=1
.cb 1 b base=2048 slot=2048 slots=2
.cb 2 c base=8192 slot=4096 slots=1
    se.fill cb0.push:f16[32x32], 1.0
    se.fill cb1.push:f16[32x32], 1.0
    dpe.mm cb2.push:f32[32x32], cb0.pop:f16[32x32], cb1.keep+1:f16[32x32]
    halt
"""
    with pytest.raises(DeadlockError) as e:
        _run(asm)
    msg = str(e.value)
    assert "deadlock in stuck at cycle" in msg
    assert "PE 0 (0, 0) program (0, 0, 0): core at instruction 3 `halt`, waiting for all issued commands to complete" in msg
    assert "dpe: instruction 2 `dpe.mm cb2.push:f32[32x32], cb0.pop:f16[32x32], cb1.keep+1:f16[32x32]` waits for CB 1 slot 1 to be written" in msg
    assert "CB 1 (b): read ptr 0, write ptr 1, 1/2 slots full" in msg
    assert e.value.report["pes"][0]["engines"]["dpe"]["waits_for"] == "CB 1 slot 1 to be written"


def test_pop_beyond_push_is_caught():
    asm = """.kernel badpop
.cb 0 a base=0 slot=64 slots=2
    cb.pop 0
    halt
"""
    with pytest.raises(SanitizerError, match=r"pops CB 0 \(a\) beyond what was pushed: read pointer 0, write pointer 0"):
        _run(asm)


def test_in_place_update_reads_the_old_version():
    # x = x * 2 + 1 four times, in place on one slot, then stored
    asm = """.kernel inplace
.arg out ptr f32 x10
.cb 0 x base=0 slot=256 slots=1
    se.iota cb0.push:f32[64], start=1
    li x5, 4
loop:
    se.fma cb0.acc:f32[64], cb0.keep:f32[64], 2.0, 1.0
    addi x5, x5, -1
    bne x5, x0, loop
    dma.out cb0.pop:f32[64], x10, [1]
    halt
"""
    m = Machine(load_config("mtia-small"))
    out = m.gmem.alloc_array(np.full(64, np.nan, np.float32), "out")
    m.run(Program.from_asm(asm), args={"out": out})
    x = np.arange(1, 65, dtype=np.float32)
    for _ in range(4):
        x = x * 2 + 1
    np.testing.assert_array_equal(out.data.view(np.float32), x)


def test_reading_a_slot_nothing_wrote_is_caught():
    asm = """.kernel uninit
.arg out ptr f32 x10
.cb 0 t base=0 slot=128 slots=1
    cb.reserve x5, 0
    cb.push 0                      # pushed, but nothing was stored into the slot
    dma.out cb0.pop:f32[32], x10, [1]
    halt
"""
    with pytest.raises(SanitizerError, match=r"instruction 2 `dma.out cb0.pop:f32\[32\], x10, \[1\]`: reads src = "
                                             r"cb0.pop:f32\[32\], but local-store byte 0x0 of that slot was never written"):
        _run(asm, out=np.zeros(32, np.float32))


def test_reduction_network_chain_sums_across_pes():
    # each of 4 PEs adds its partial to what its left neighbour sends and passes it right; the last
    # PE holds the sum of all four and stores it
    asm = """.kernel chain
.arg out ptr f32 x10
.cb 0 mine base=0 slot=256 slots=1
.cb 1 recv base=256 slot=256 slots=2
    mtia.peid x5
    mtia.npe x6
    se.iota cb0.push:f32[64], start=x5
    beq x5, x0, send
    se.add cb0.acc:f32[64], cb0.keep:f32[64], cb1.pop:f32[64]
send:
    addi x7, x6, -1
    beq x5, x7, last
    addi x8, x5, 1
    re.send cb0.pop:f32[64], x8, 1
    halt
last:
    dma.out cb0.pop:f32[64], x10, [1]
    halt
"""
    m = Machine(load_config("mtia-small"))
    out = m.gmem.alloc_array(np.full(64, np.nan, np.float32), "out")
    rep = m.run(Program.from_asm(asm), grid=(4,), args={"out": out})
    expect = sum(np.arange(64, dtype=np.float32) + p for p in range(4))
    np.testing.assert_array_equal(out.data.view(np.float32), expect)
    assert rep.cycles > 3 * load_config("mtia-small").pe.re.network_hop_cycles
