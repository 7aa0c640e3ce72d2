"""Errors a user meets, end to end, with the parts of each message that point at the cause pinned.

A Triton kernel that stores out of bounds (kernel, program id, PE, instruction, array; the user's
arrays unchanged), a deadlocked ISA program (every PE's blocked core or engine with its instruction,
every CB's pointers and occupancy), CB misuse, a misaligned DMA, tiles that do not fit the local
store, a dot the DPE cannot take, bad configs (key and allowed range), an interrupted sweep, and
reads of memory nothing wrote (where the simulator can tell).
"""
from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
import compiler.runtime.mtia_executor  # noqa: F401  (registers the executor)
from compiler.errors import CompilationError, KernelRuntimeError, OutOfBoundsError
from isa import Program
from simulator import ConfigError, DeadlockError, ProgramError, SanitizerError, get_config, load_config, use_config
from simulator.machine import Machine

HERE = Path(__file__).name


def _line_of(fn, text: str) -> int:
    """The file line number of the first line of `fn`'s source containing `text`."""
    lines, first = inspect.getsourcelines(getattr(fn, "fn", fn))
    return first + next(i for i, l in enumerate(lines) if text in l)


def _run(asm: str, grid=(1,), cfg="mtia-small", **arrays):
    m = Machine(load_config(cfg))
    args = {k: m.gmem.alloc_array(v, k) for k, v in arrays.items()}
    return m.run(Program.from_asm(asm), grid=grid, args=args), args


# ---- out-of-bounds stores from a Triton kernel -----------------------------------------------------

@triton.jit
def oob_store_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x * 2)                       # no mask: the last program runs past `out`


def test_out_of_bounds_store_names_kernel_program_pe_instruction_and_array():
    x = np.arange(1000, dtype=np.float32)
    out = np.full(1000, -1.0, np.float32)
    x_before = x.copy()
    line = _line_of(oob_store_kernel, "tl.store(out_ptr")
    with use_config("mtia-small"), pytest.raises(OutOfBoundsError) as e:
        oob_store_kernel[(4,)](x, out, 1000, BLOCK=256, executor="mtia")
    msg = str(e.value)
    assert re.search(
        rf"^oob_store_kernel program \(3, 0, 0\) on PE 3 \(1, 1\), instruction \d+ "     # kernel, program id, PE
        rf"`dma\.out cb\d+\.pop:f32\[256\], x\d+, \[1\]` \(\S*{HERE}:{line}\): "        # the instruction, its line
        rf"out-of-bounds store: bytes \[0x[0-9a-f]+, 0x[0-9a-f]+\) run 96 bytes past the end of "
        rf"out_ptr \[0x[0-9a-f]+, 0x[0-9a-f]+\) in DRAM", msg), msg                     # the array it missed
    assert isinstance(e.value, SanitizerError) and isinstance(e.value, KernelRuntimeError)
    # the user sees the launch, not the simulator's frames
    assert not any("simpy" in str(t.path) or f"{Path('simulator')}/" in str(t.path) for t in e.traceback)
    # programs 0..2 wrote their part of `out` before program 3 failed: none of it reaches the user
    np.testing.assert_array_equal(out, np.full(1000, -1.0, np.float32))
    np.testing.assert_array_equal(x, x_before)


def test_out_of_bounds_load_names_the_array_and_the_overrun():
    @triton.jit
    def shifted_load(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs + 5))
    x, out = np.arange(1024, dtype=np.float32), np.zeros(1024, np.float32)
    with use_config("mtia-small"), pytest.raises(OutOfBoundsError,
                                                 match=r"shifted_load program \(3, 0, 0\) on PE 3 .*`dma\.in .*"
                                                       r"out-of-bounds load: bytes .* run 20 bytes past the end of "
                                                       r"x_ptr \[0x[0-9a-f]+, 0x[0-9a-f]+\) in DRAM"):
        shifted_load[(4,)](x, out, BLOCK=256, executor="mtia")
    assert not out.any()


def test_the_interpreter_reports_the_same_store_as_out_of_bounds():
    out = np.full(1000, -1.0, np.float32)
    with pytest.raises(OutOfBoundsError, match=r"out-of-bounds store .* past the end of array 'out_ptr'.*"
                                               r"kernel 'oob_store_kernel', program id \(3, 0, 0\)"):
        oob_store_kernel[(4,)](np.zeros(1000, np.float32), out, 1000, BLOCK=256, executor="interpreter")
    assert (out == -1).all()


# ---- deadlocks ------------------------------------------------------------------------------------

THREE_WAYS_STUCK = """.kernel three_ways_stuck
.cb 0 a base=0 slot=256 slots=2
.cb 1 b base=512 slot=256 slots=2
.cb 2 c base=1024 slot=256 slots=1
    mtia.pid x5, 0
    li x6, 1
    beq x5, x6, core_waits
    li x6, 2
    beq x5, x6, core_reserves
    li x6, 3
    beq x5, x6, done
    se.fill cb0.push:f32[64], 1.0
    se.add cb1.push:f32[64], cb0.pop:f32[64], cb0.keep+1:f32[64]
    cb.pop 1
    halt
core_waits:
    se.fill cb0.push:f32[64], 2.0
    se.exp cb1.push:f32[64], cb0.keep+1:f32[64]
    cb.wait x7, 1
    halt
core_reserves:
    cb.reserve x7, 2
    cb.push 2
    cb.reserve x8, 2
done:
    halt
"""


def test_deadlock_report_names_every_blocked_pe_engine_instruction_and_cb():
    # program 0: its SE waits for a slot nothing writes; 1: its core waits for what that SE would
    # write; 2: its core reserves a second slot of a one-slot CB it never pops; 3 finishes
    with pytest.raises(DeadlockError) as e:
        _run(THREE_WAYS_STUCK, grid=(4,))
    msg = str(e.value)
    expected = [
        r"deadlock in three_ways_stuck at cycle \d+: no event can proceed and 3 PE\(s\) have work left",
        r"  PE 0 \(0, 0\) program \(0, 0, 0\): core at instruction 10 `halt`, waiting for all issued commands "
        r"to complete \(fence\)",
        r"    se: instruction 8 `se\.add cb1\.push:f32\[64\], cb0\.pop:f32\[64\], cb0\.keep\+1:f32\[64\]` waits "
        r"for CB 0 slot 1 to be written; 0 queued",
        r"    CB 0 \(a\): read ptr 1, write ptr 1, 1/2 slots full",
        r"    CB 1 \(b\): read ptr 1, write ptr 1, 0/2 slots full",
        r"    CB 2 \(c\): read ptr 0, write ptr 0, 0/1 slots full",
        r"  PE 1 \(0, 1\) program \(1, 0, 0\): core at instruction 13 `cb\.wait x7, 1`, waiting for CB 1 slot 0 "
        r"to be written",
        r"    se: instruction 12 `se\.exp cb1\.push:f32\[64\], cb0\.keep\+1:f32\[64\]` waits for CB 0 slot 1 to be "
        r"written; 0 queued",
        r"    CB 0 \(a\): read ptr 0, write ptr 1, 1/2 slots full",
        r"    CB 1 \(b\): read ptr 0, write ptr 1, 0/2 slots full",
        r"    CB 2 \(c\): read ptr 0, write ptr 0, 0/1 slots full",
        r"  PE 2 \(1, 0\) program \(2, 0, 0\): core at instruction 17 `cb\.reserve x8, 2`, waiting for space in "
        r"CB 2",
        r"    CB 0 \(a\): read ptr 0, write ptr 0, 0/2 slots full",
        r"    CB 1 \(b\): read ptr 0, write ptr 0, 0/2 slots full",
        r"    CB 2 \(c\): read ptr 0, write ptr 2, 1/1 slots full",
    ]
    lines = msg.splitlines()
    assert len(lines) == len(expected), msg
    for pattern, line in zip(expected, lines):
        assert re.match(pattern, line), (pattern, line)
    assert "PE 3" not in msg                                   # a finished PE is not part of the story
    rep = e.value.report
    assert [p["pe"] for p in rep["pes"] if not p["finished"]] == [0, 1, 2]
    assert rep["pes"][1]["core"]["waits_for"] == "CB 1 slot 0 to be written"
    assert rep["pes"][1]["engines"]["se"]["head"]["instruction"] == 12
    c = rep["pes"][2]["cbs"][2]
    assert (c["cb"], c["read_ptr"], c["write_ptr"], c["occupancy"], c["slots"]) == (2, 0, 2, 1, 1)


def test_deadlock_report_names_the_slot_that_is_still_in_use():
    with pytest.raises(DeadlockError) as e:
        _run(THREE_WAYS_STUCK, grid=(4,))
    assert "`cb.reserve x8, 2`, waiting for space in CB 2: its slot 0 is still in use" in str(e.value)


def test_one_command_queues_do_not_deadlock_a_correct_kernel():
    @triton.jit
    def fine(x_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)
    # the kernel is fine; a config whose CP queues hold one command still runs it (no false deadlock)
    x = np.zeros(256, np.float32)
    with use_config("mtia-small", {"pe.queue_depth": 1, "pe.dma.max_outstanding": 1}):
        fine[(1,)](x, BLOCK=256, executor="mtia")
    np.testing.assert_array_equal(x, np.ones(256, np.float32))


# ---- circular-buffer misuse -----------------------------------------------------------------------

@pytest.mark.parametrize("body, pattern", [
    ("    cb.pop 0\n",
     r"misuse program \(0, 0, 0\) on PE 0 \(0, 0\), instruction 0 `cb\.pop 0`: pops CB 0 \(a\) beyond what was "
     r"pushed: read pointer 0, write pointer 0"),
    ("    se.exp cb1.push:f32[64], cb0.pop:f32[64]\n",
     r"instruction 0 `se\.exp cb1\.push:f32\[64\], cb0\.pop:f32\[64\]`: pops CB 0 \(a\) beyond what was pushed: "
     r"read pointer 0, write pointer 0"),
    ("    cb.wait x5, 1\n",
     r"instruction 0 `cb\.wait x5, 1`: cb\.wait on CB 1 \(b\) slot 0, which nothing was issued to write "
     r"\(write pointer 0\)"),
    ("    se.fill cb0.push:f32[128], 1.0\n",
     r"instruction 0 `se\.fill cb0\.push:f32\[128\], 1\.0`: tile out = cb0\.push:f32\[128\] is 512 bytes but the "
     r"slots of CB 0 \(a\) hold 256"),
    ("    se.fill cb0.push:f32[64], 1.0\n    se.exp cb1.push:f32[64], cb0.pop:f32[8x16]\n",
     r"instruction 1 `se\.exp cb1\.push:f32\[64\], cb0\.pop:f32\[8x16\]`: tile a = cb0\.pop:f32\[8x16\] is 512 "
     r"bytes but the slots of CB 0 \(a\) hold 256"),
])
def test_cb_misuse_is_named(body, pattern):
    asm = ".kernel misuse\n.cb 0 a base=0 slot=256 slots=2\n.cb 1 b base=512 slot=256 slots=2\n" + body + "    halt\n"
    with pytest.raises(SanitizerError, match=pattern):
        _run(asm)


def test_an_undeclared_cb_is_named():
    with pytest.raises(ProgramError, match=r"instruction 0 `se\.fill cb3\.push:f32\[64\], 1\.0`: CB 3 is not "
                                           r"declared \(declared: 0, 1\)"):
        _run(".kernel misuse\n.cb 0 a base=0 slot=256 slots=2\n.cb 1 b base=512 slot=256 slots=2\n"
             "    se.fill cb3.push:f32[64], 1.0\n    halt\n")


def test_a_tile_offset_beyond_the_slots_is_misuse():
    asm = """.kernel reach
.cb 0 a base=0 slot=256 slots=2
.cb 1 b base=512 slot=256 slots=2
    se.fill cb0.push:f32[64], 1.0
    se.exp cb1.push:f32[64], cb0.keep+2:f32[64]
    cb.pop 0
    cb.pop 1
    halt
"""
    with pytest.raises(SanitizerError, match=r"keep\+2.*CB 0 \(a\).*2 slots"):
        _run(asm)


# ---- alignment ----------------------------------------------------------------------------------

def test_misaligned_box_dma_names_the_address_and_the_alignment():
    asm = """.kernel misaligned
.arg x ptr f32 x10
.arg y ptr f32 x11
.cb 0 t base=0 slot=256 slots=2
    dma.in cb0.push:f32[16], x10, [1]
    addi x11, x11, 8
    dma.out cb0.pop:f32[16], x11, [1]
    halt
"""
    with pytest.raises(SanitizerError, match=r"misaligned program \(0, 0, 0\) on PE 0 \(0, 0\), instruction 2 "
                                             r"`dma\.out cb0\.pop:f32\[16\], x11, \[1\]`: address 0x1[0-9a-f]*08 is "
                                             r"not 32-byte aligned, as box DMA requires; set unaligned=1"):
        _run(asm, x=np.zeros(64, np.float32), y=np.zeros(64, np.float32))


GATHER_MISALIGNED = """.kernel gather_misaligned
.arg x ptr f32 x10
.cb 0 idx base=0 slot=64 slots=1
.cb 1 t base=64 slot=64 slots=1
    se.iota cb0.push:i32[16]
    addi x10, x10, 2
    dma.gather cb1.push:f32[16], x10, cb0.pop:i32[16]
    cb.pop 1
    halt
"""


def test_element_misaligned_gather_is_named():
    asm = GATHER_MISALIGNED
    with pytest.raises(SanitizerError, match=r"instruction 2 `dma\.gather .*`: .*address 0x1[0-9a-f]*02 is not "
                                             r"aligned to its 4-byte elements"):
        _run(asm, x=np.zeros(64, np.float32))


def test_a_misaligned_gather_is_not_called_out_of_bounds():
    with pytest.raises(SanitizerError) as e:
        _run(GATHER_MISALIGNED, x=np.zeros(64, np.float32))
    assert "out-of-bounds" not in str(e.value)


def test_a_kernel_on_misaligned_views_still_runs():
    """Views that start mid-burst reach the kernel as unaligned pointers; the compiler copes."""
    @triton.jit
    def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
    x = np.arange(1001, dtype=np.float32)
    out = np.full(1003, -1.0, np.float32)
    with use_config("mtia-small"):
        double[(4,)](x[1:], out[3:], 1000, BLOCK=256, executor="mtia")
    np.testing.assert_array_equal(out[3:], 2 * x[1:])
    np.testing.assert_array_equal(out[:3], [-1, -1, -1])


# ---- compile errors -------------------------------------------------------------------------------

@triton.jit
def too_big_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = tl.exp(x) * 2.0
    tl.store(out_ptr + offs, y + x, mask=offs < n)


def test_tiles_that_do_not_fit_the_local_store_name_buffers_sizes_and_line():
    x = np.zeros(1 << 18, np.float32)
    out = np.full_like(x, -1.0)
    load_line = _line_of(too_big_kernel, "x = tl.load")
    exp_line = _line_of(too_big_kernel, "y = tl.exp")
    with use_config("mtia-small"), pytest.raises(CompilationError) as e:
        too_big_kernel[(1,)](x, out, x.size, BLOCK=1 << 18, executor="mtia")
    msg = str(e.value)
    head, src, caret = msg.splitlines()
    assert re.fullmatch(rf"\S*{HERE}:{load_line}:9: error: the kernel's tiles need \d+ bytes of local store with "
                        rf"one slot each, but mtia-small has \d+ bytes for them: .*\. Use smaller block sizes\.", head), msg
    assert f"x (1024 KiB, line {load_line})" in head and f"exp (1024 KiB, line {exp_line})" in head
    assert src == "    x = tl.load(x_ptr + offs, mask=offs < n)"
    assert caret == "        ^"
    assert (out == -1).all()
    # the same kernel with a block that fits compiles and runs
    with use_config("mtia-small"):
        too_big_kernel[(64,)](x, out, x.size, BLOCK=1 << 12, executor="mtia")
    np.testing.assert_allclose(out, np.exp(x) * 2 + x)


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, B: tl.constexpr):
    r = tl.arange(0, B)
    a = tl.load(a_ptr + r[:, None] * B + r[None, :])
    b = tl.load(b_ptr + r[:, None] * B + r[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + r[:, None] * B + r[None, :], c)


HALF_ONLY_DPE = {"pe.dpe.macs_per_cycle": {"f16": 1024, "bf16": 1024}}    # a DPE without f32 (f64 dots: RVV)


@pytest.mark.parametrize("dtype, overrides, pattern", [
    (np.float32, HALF_ONLY_DPE, r"tl\.dot on f32 is not supported by the DPE of mtia-small \(it multiplies f16, bf16\)"),
    (np.int32, None, r"tl\.dot does not support int32 operands"),
])
def test_a_dot_the_dpe_cannot_take_points_at_the_dot(dtype, overrides, pattern):
    a = np.ones((32, 32), dtype)
    c = np.full((32, 32), 7, dtype)
    line = _line_of(dot_kernel, "c = tl.dot")
    with use_config("mtia-small", overrides), pytest.raises(CompilationError) as e:
        dot_kernel[(1,)](a, a, c, B=32, executor="mtia")
    head, src, caret = str(e.value).splitlines()
    assert re.fullmatch(rf"\S*{HERE}:{line}:9: error: {pattern}", head), head
    assert (src, caret) == ("    c = tl.dot(a, b)", "        ^")
    assert (c == 7).all()


# ---- configs --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, pattern", [
    ("extends: mtia-small\ndram:\n  bandwidth_gbps: [12.8\n", r"(?s)not valid YAML: .*line 3, column 19:\n *bandwidth_gbps: \[12\.8\n *\^"),
    ("extends: mtia-small\ndram:\n  bandwith_gbps: 12.8\n",
     r"dram\.bandwith_gbps: unknown key \(known keys here: [a-z_, ]*bandwidth_gbps, .*channels, .*latency_ns[a-z_, ]*\)"),
    ("extends: mtia-small\ngrid:\n  rows: two\n",
     r"grid\.rows = 'two': Input should be a valid integer.*\[PE rows of the grid; allowed: int >= 1 and <= 64\]"),
    ("extends: mtia-small\npe:\n  dma:\n    gbps: 0\n",
     r"pe\.dma\.gbps = 0: Input should be greater than 0 \[fabric-interface .*GB/s\); allowed: float > 0\]"),
    ("extends: mtia-small\ngrid:\n  cols: 65\n",
     r"grid\.cols = 65: Input should be less than or equal to 64 \[PE columns of the grid; allowed: int >= 1 "
     r"and <= 64\]"),
    ("extends: mtia-small\nsram:\n  llc_mib: 96\n", r"llc_mib = 96: must be <= size_mib \(64\)"),
    ("extends: mtia-small\ndram:\n  latency_ns: .nan\n", r"dram\.latency_ns = nan: Input should be a finite number"),
    ("extends: mtia-small\nclock_ghz: 1.0\nclock_ghz: 2.0\n",                  # PyYAML would keep the last one
     r"(?s)found the key 'clock_ghz' twice.*line 3, column 1:\n *clock_ghz: 2\.0"),
])
def test_bad_config_files_name_the_key_and_the_allowed_range(tmp_path, text, pattern):
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    before = get_config()
    with pytest.raises(ConfigError, match=pattern) as e:
        with use_config(p):
            pytest.fail("a bad config must not be entered")
    assert str(p) in str(e.value)                       # the message names the file
    assert get_config() is before                       # and the current config did not change


def test_bad_overrides_name_the_key_and_change_nothing():
    cfg = load_config("mtia-small")
    dump = cfg.model_dump()
    with pytest.raises(ConfigError, match=r"dram\.channels = 0: Input should be greater than or equal to 1 "
                                          r"\[.*allowed: int >= 1 and <= 1024\]"):
        load_config(cfg, {"dram.channels": 0})
    with pytest.raises(ConfigError, match=r"override 'pe\.dma\.gigabits': unknown key 'gigabits' \(known: "
                                          r"align_bytes, burst_bytes, gbps, loads_pass_waiting_stores, "
                                          r"max_outstanding, setup_cycles\)"):
        load_config(cfg, {"pe.dma.gigabits": 1})
    with pytest.raises(ConfigError, match=r"override 'dram\.bandwidth_gbps\.peak': dram\.bandwidth_gbps is not a "
                                          r"section of the config"):
        load_config(cfg, {"dram.bandwidth_gbps.peak": 1})
    assert cfg.model_dump() == dump


# ---- sweeps -------------------------------------------------------------------------------------

def test_a_sweep_interrupted_mid_run_keeps_its_finished_points(tmp_path, monkeypatch):
    """Ctrl-C while a point is simulating: the rows that finished are on disk, the interrupted point
    is not recorded as a failure, and running the sweep again runs only what is missing."""
    from mtiasim.sweep import read_table, run_sweep
    spec = {"name": "interrupt", "base": "mtia-small", "grid": {"dram.bandwidth_gbps": [6.4, 12.8, 25.6, 51.2]},
            "workloads": [{"name": "softmax_isa", "shape": {"R": 32, "C": 64}}]}
    out = tmp_path / "rows.csv"
    calls = []
    real_run = Machine.run

    def interrupted_on_the_third(self, *a, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_run(self, *a, **kw)
    monkeypatch.setattr(Machine, "run", interrupted_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(spec, out, workers=1, progress=False)
    rows = read_table(out)
    assert [r["dram.bandwidth_gbps"] for r in rows] == [6.4, 12.8]
    assert all(r["error"] == "" and r["cycles"] > 0 for r in rows)
    monkeypatch.setattr(Machine, "run", real_run)
    res = run_sweep(spec, out, workers=1, progress=False)
    assert (res.ran, res.skipped) == (2, 2)
    assert sorted(r["dram.bandwidth_gbps"] for r in read_table(out)) == [6.4, 12.8, 25.6, 51.2]


# ---- reads of memory nothing wrote ---------------------------------------------------------------

def test_a_tile_read_of_bytes_nothing_wrote_is_caught():
    asm = """.kernel partly_written
.arg out ptr f32 x10
.cb 0 a base=0 slot=256 slots=1
    cb.reserve x5, 0
    li x6, 7
    sw x6, 0(x5)                  # one element of sixteen
    cb.push 0
    dma.out cb0.pop:f32[16], x10, [1]
    halt
"""
    with pytest.raises(SanitizerError, match=r"instruction 4 `dma\.out cb0\.pop:f32\[16\], x10, \[1\]`: reads src = "
                                             r"cb0\.pop:f32\[16\], but local-store byte 0x4 of that slot was never "
                                             r"written"):
        _run(asm, out=np.full(16, -1.0, np.float32))


def test_a_scalar_load_of_bytes_nothing_wrote_is_caught():
    asm = ".kernel scalar_uninit\n.arg out ptr i32 x10\n.cb 0 a base=0 slot=256 slots=1\n" \
          "    lw x5, 64(x0)\n    sw x5, 0(x10)\n    halt\n"
    with pytest.raises(SanitizerError, match=r"`lw x5, 64\(x0\)`.*never written"):
        _run(asm, out=np.full(4, -1, np.int32))


def test_a_vector_load_of_bytes_nothing_wrote_is_caught():
    asm = """.kernel vector_uninit
.arg out ptr f32 x10
.cb 0 a base=0 slot=256 slots=1
    cb.reserve x6, 0
    li x7, 16
    vsetvli x8, x7, e32, m1
    vle32.v v1, (x6)
    vse32.v v1, (x6)
    cb.push 0
    dma.out cb0.pop:f32[16], x10, [1]
    halt
"""
    with pytest.raises(SanitizerError, match=r"`vle32\.v v1, \(x6\)`.*never written"):
        _run(asm, out=np.full(16, -1.0, np.float32))


def test_a_dma_of_global_bytes_nothing_wrote_is_caught():
    m = Machine(load_config("mtia-small"))
    src = m.gmem.alloc(64, "src", track_writes=True)
    out = m.gmem.alloc_array(np.zeros(16, np.float32), "out")
    asm = """.kernel global_uninit
.arg src ptr f32 x10
.arg out ptr f32 x11
.cb 0 a base=0 slot=256 slots=1
    dma.in cb0.push:f32[16], x10, [1]
    dma.out cb0.pop:f32[16], x11, [1]
    halt
"""
    with pytest.raises(SanitizerError, match=r"`dma\.in cb0\.push:f32\[16\], x10, \[1\]`.*src.*never written"):
        m.run(Program.from_asm(asm), args={"src": src, "out": out})


def test_a_read_past_what_the_current_push_wrote_is_caught():
    asm = """.kernel stale
.arg out ptr f32 x10
.cb 0 a base=0 slot=256 slots=1
    se.fill cb0.push:f32[64], 1.0
    cb.pop 0
    se.fill cb0.push:f32[16], 2.0
    dma.out cb0.pop:f32[64], x10, [1]
    halt
"""
    with pytest.raises(SanitizerError, match=r"instruction 3 .*never written"):
        _run(asm, out=np.full(64, -1.0, np.float32))
