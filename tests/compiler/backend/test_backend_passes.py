"""Each MTIA backend pass, run on IR text, checked on the IR text it prints (FileCheck style)."""
import re
from types import SimpleNamespace

import numpy as np
import pytest

import compiler.runtime.mtia_executor  # noqa: F401  (registers the backend stages)
from compiler.backend.passes.allocate_ls import AllocateLocalStore
from compiler.backend.passes.bufferize import Bufferize
from compiler.backend.passes.expand_combine import ExpandCombine
from compiler.backend.passes.licm import HoistLoopInvariants
from compiler.backend.passes.lower_memory import LowerMemory
from compiler.backend.passes.map_engines import MapEngines
from compiler.backend.passes.materialize_pointers import MaterializePointers
from compiler.backend.passes.scalarize_iter_args import ScalarizeIterArgs
from compiler.backend.pipeline import emit_program
from compiler.errors import CompilationError
from compiler.ir import parse_module, print_module, verify
from compiler.ir.passes import CommonSubexpressionElimination, DeadCodeElimination
from simulator.config import load_config

from filecheck import check_ir


def run(text: str, *passes) -> str:
    m = parse_module(text)
    for p in passes:
        p.run(m)
        verify(m)
    return print_module(m)


ADD = """module {
  tt.func @add(%x_ptr: ptr<f32>, %out_ptr: ptr<f32>, %n: i32) {
    %0 = tt.get_program_id {axis = 0} : i32
    %1 = arith.constant {value = 1024} : i32
    %2 = arith.muli %0, %1 : i32
    %3 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32>
    %4 = tt.splat %2 : tensor<1024xi32>
    %offs = arith.addi %4, %3 : tensor<1024xi32>
    %5 = tt.splat %n : tensor<1024xi32>
    %mask = arith.cmpi %offs, %5 {predicate = "slt"} : tensor<1024xi1>
    %6 = tt.splat %x_ptr : tensor<1024xptr<f32>>
    %7 = tt.addptr %6, %offs : tensor<1024xptr<f32>>
    %x = tt.load %7, %mask : tensor<1024xf32>
    %8 = math.exp %x : tensor<1024xf32>
    %9 = tt.splat %out_ptr : tensor<1024xptr<f32>>
    %10 = tt.addptr %9, %offs : tensor<1024xptr<f32>>
    tt.store %10, %8, %mask
    tt.return
  }
}"""


def test_lower_memory_turns_a_masked_block_into_one_clipped_box():
    out = run(ADD, LowerMemory(32), CommonSubexpressionElimination())
    check_ir(out, """
        CHECK: %[[OFF:.*]] = arith.extsi %2 : i64
        CHECK: tt.addptr %x_ptr, {{%\\w+}} : ptr<f32>
        CHECK: arith.subi {{%\\w+}}, {{%\\w+}} : i64
        CHECK: %x = mtia.load_box {{.*}} {rank = 1, unaligned = false, pad = 0} : tensor<1024xf32>
        CHECK: math.exp %x
        CHECK: mtia.store_box
        CHECK-NOT: tt.load
        CHECK-NOT: tt.store
    """.replace("%[[OFF:.*]]", "{{%\\w+}}"))


GATHER = """module {
  tt.func @g(%tbl: ptr<f32>, %idx_ptr: ptr<i32>, %out: ptr<f32>) {
    %0 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
    %1 = tt.splat %idx_ptr : tensor<64xptr<i32>>
    %2 = tt.addptr %1, %0 : tensor<64xptr<i32>>
    %idx = tt.load %2 : tensor<64xi32>
    %3 = tt.splat %tbl : tensor<64xptr<f32>>
    %4 = tt.addptr %3, %idx : tensor<64xptr<f32>>
    %v = tt.load %4 : tensor<64xf32>
    %5 = tt.splat %out : tensor<64xptr<f32>>
    %6 = tt.addptr %5, %0 : tensor<64xptr<f32>>
    tt.store %6, %v
    tt.return
  }
}"""


def test_lower_memory_falls_back_to_a_gather_for_data_dependent_offsets():
    out = run(GATHER, LowerMemory(32))
    check_ir(out, """
        CHECK: %idx = mtia.load_box %idx_ptr
        CHECK: %v = mtia.gather %tbl, %idx {pad = 0} : tensor<64xf32>
        CHECK: mtia.store_box %out, %v
    """)


BROADCAST_ROW = """module {
  tt.func @b(%w: ptr<f32>) {
    %0 = tt.make_range {start = 0, end = 32} : tensor<32xi32>
    %1 = tt.expand_dims %0 {axis = 0} : tensor<1x32xi32>
    %2 = tt.splat %w : tensor<1x32xptr<f32>>
    %3 = tt.addptr %2, %1 : tensor<1x32xptr<f32>>
    %4 = tt.broadcast %3 : tensor<16x32xptr<f32>>
    %v = tt.load %4 : tensor<16x32xf32>
    %5 = math.exp %v : tensor<16x32xf32>
    tt.return
  }
}"""


def test_lower_memory_loads_a_broadcast_row_once():
    out = run(BROADCAST_ROW, LowerMemory(32))
    check_ir(out, """
        CHECK: mtia.load_box %w, {{.*}} : tensor<1x32xf32>
        CHECK-NOT: tensor<16x32xptr<f32>>
    """)


LOOP = """module {
  tt.func @acc(%a: ptr<f16>, %K: i32, %sa: i32) {
    %0 = tt.make_range {start = 0, end = 32} : tensor<32xi32>
    %1 = tt.expand_dims %0 {axis = 1} : tensor<32x1xi32>
    %2 = tt.splat %sa : tensor<32x1xi32>
    %3 = arith.muli %1, %2 : tensor<32x1xi32>
    %4 = tt.splat %a : tensor<32x1xptr<f16>>
    %5 = tt.addptr %4, %3 : tensor<32x1xptr<f16>>
    %6 = tt.expand_dims %0 {axis = 0} : tensor<1x32xi32>
    %7 = tt.broadcast %5 : tensor<32x32xptr<f16>>
    %8 = tt.broadcast %6 : tensor<32x32xi32>
    %ptrs = tt.addptr %7, %8 : tensor<32x32xptr<f16>>
    %zero = arith.constant {value = 0.0} : tensor<32x32xf32>
    %c0 = arith.constant {value = 0} : i32
    %c32 = arith.constant {value = 32} : i32
    %step = arith.constant {value = 32} : tensor<32x32xi32>
    %acc, %p = scf.for %c0, %K, %c32, %zero, %ptrs : tensor<32x32xf32>, tensor<32x32xptr<f16>> {
    ^bb0(%k: i32, %acc_in: tensor<32x32xf32>, %p_in: tensor<32x32xptr<f16>>):
      %t = tt.load %p_in : tensor<32x32xf16>
      %d = tt.dot %t, %t, %acc_in {input_precision = "ieee"} : tensor<32x32xf32>
      %p_next = tt.addptr %p_in, %step : tensor<32x32xptr<f16>>
      scf.yield %d, %p_next
    }
    %r = math.exp %acc : tensor<32x32xf32>
    tt.return
  }
}"""


def test_scalarize_iter_args_carries_the_pointer_as_a_scalar():
    out = run(LOOP, ScalarizeIterArgs(), DeadCodeElimination())
    check_ir(out, """
        CHECK: scf.for {{.*}} : tensor<32x32xf32>, ptr<f16> {
        CHECK-NEXT: ^bb0(%k: i32, %acc_in: tensor<32x32xf32>, %p_in: ptr<f16>):
        CHECK: tt.splat %p_in : tensor<32x32xptr<f16>>
        CHECK: tt.addptr %p_in, {{%\\w+}} : ptr<f16>
        CHECK: scf.yield %d, {{%\\w+}}
    """)


def test_licm_bufferize_and_engines_on_the_loop():
    out = run(LOOP, ScalarizeIterArgs(), LowerMemory(32), CommonSubexpressionElimination(), HoistLoopInvariants(),
              DeadCodeElimination(), MapEngines(), Bufferize(), AllocateLocalStore(384 * 1024))
    check_ir(out, """
        CHECK: mtia.cb {id = 0, name = "zero", bytes = 4096, producer = "se", depth = 0, slots = 2, base = 0}
        CHECK-NEXT: mtia.cb {id = 1, name = "t", bytes = 2048, producer = "dma", depth = 1, slots = 3, base = 8192}
        CHECK: %zero = arith.constant {value = 0.0, engine = "se", tiles = [{cb = 0, dtype = "f32", shape = [32, 32]}]}
        CHECK: scf.for {{.*}} {pop_after = [0], carried = [0, none]}
        CHECK-NOT: arith.extsi %sa
        CHECK: %t = mtia.load_box %p_in, {{.*}}engine = "dma", tiles = [{cb = 1, dtype = "f16", shape = [32, 32]}]}
        CHECK-NEXT: %d = tt.dot %t, %t, %acc_in {input_precision = "ieee", engine = "dpe", tiles = [{cb = 0, {{.*}}}], inplace = true, pops = [1]}
        CHECK: scf.yield %d
    """)


def test_allocate_ls_names_the_buffers_that_do_not_fit():
    big = LOOP.replace("32x32", "256x256").replace("tensor<32x", "tensor<256x").replace("x32x", "x256x") \
        .replace("end = 32", "end = 256").replace("x32xi32", "x256xi32")
    m = parse_module(big)
    for p in (ScalarizeIterArgs(), LowerMemory(32), DeadCodeElimination(), MapEngines(), Bufferize()):
        p.run(m)
    with pytest.raises(CompilationError, match=r"the kernel's tiles need \d+ bytes of local store with one slot "
                                               r"each, but tiny has \d+ bytes for them: zero \(256 KiB\), t \(128 KiB\)"):
        AllocateLocalStore(200 * 1024, config="tiny").run(m)


def test_matmul_stages_are_readable():
    from compiler.kernels.matmul import matmul_kernel
    a = np.zeros((64, 64), np.float16)
    from compiler.runtime.mtia_executor import mtia_program
    from simulator import get_config
    compiled = matmul_kernel.compile(a, a, a, 64, 64, 64, 64, 1, 64, 1, 64, 1, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32,
                                     GROUP_M=8, ACTIVATION="")
    # the loop as written, one K step per iteration, and the program's own epilogue (tests/compiler/backend/test_coalesce_k.py
    # reads the coalesced loop, tests/compiler/backend/test_defer_stores.py the persistent program)
    c = SimpleNamespace(asm=mtia_program(compiled, get_config(), 3, {"coalesce_k": False, "defer_stores": False})[1])
    check_ir(c.asm["mtia-asm"], """
        CHECK: .kernel matmul_kernel
        CHECK: .cb 0 acc base=0 slot=16384 slots=2
        CHECK: se.fill cb0.push:f32[64x64], 0.0
        CHECK: for_1:
        CHECK: dma.in cb1.push:f16[64x32], {{x\\d+}}, [{{x\\d+}}, 1], valid=[{{x\\d+}}, {{x\\d+}}], unaligned=1
        CHECK-NEXT: dma.in cb2.push:f16[32x64]
        CHECK-NEXT: dpe.mm cb0.acc:f32[64x64], cb1.pop:f16[64x32], cb2.pop:f16[32x64]
        CHECK: j for_1
        CHECK: se.mov cb0.acc:f16[64x64], cb0.keep:f32[64x64]
        CHECK: dma.out cb0.pop:f16[64x64]
        CHECK: halt
    """)
    check_ir(c.asm["cpp"], """
        CHECK: void matmul_kernel(mtia::half* a_ptr, mtia::half* b_ptr, mtia::half* c_ptr, int32_t M
        CHECK: int32_t pid = mtia::program_id(0);
        CHECK: for (int32_t k = 0; k < {{\\w+}}; k += 1) {
        CHECK: mtia::dma_in({.dst = cb1.push, .base = a_ptrs, .strides = {stride_am, 1}
        CHECK: mtia::dpe_mm({.out = cb0.acc, .a = cb1.pop, .b = cb2.pop, .trans_a = 0, .trans_b = 0});
        CHECK: mtia::dma_out({.src = cb0.pop
    """)
    # the K loop's scalar code: k * BLOCK_K is a shift, and the pointers step by the loads' auto-increments
    # (32 elements of A's row, a register holding B's row stride), each command in a context of its own
    loop = c.asm["mtia-asm"].split("for_1:")[1].split("endfor_2:")[0]
    k = re.search(r"bge (x\d+), x\d+, endfor_2\n\s+slli x\d+, \1, 5\n", loop)
    assert k, loop
    assert re.search(r"dma.in cb1.push.*, ctx=1, inc=32\n\s+dma.in cb2.push.*, ctx=2, inc=x\d+\n"
                     r"\s+dpe.mm .*, ctx=1\n", loop), loop
    for base in re.findall(r"dma.in cb\d.push:\S+ (x\d+),", loop):
        assert not re.search(rf"^\s*addi? {base}, ", loop, re.M), loop
    assert re.search(rf"addi {k[1]}, {k[1]}, 1\n\s+sext.w {k[1]}, {k[1]}\n\s+j for_1", loop), loop
    assert not re.search(r"^\s*(mv|li|mul) ", loop, re.M), loop


def test_integer_long_tail_runs_on_the_rvv_core():
    import compiler as triton
    import compiler.language as tl

    @triton.jit
    def divmod_kernel(x_ptr, out_ptr, d, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
        tl.store(out_ptr + offs, x // d + tl.umulhi(x.to(tl.uint32), x.to(tl.uint32)).to(tl.int32))

    x = (np.arange(256, dtype=np.int32) - 100) * 37
    out = np.full(256, -1, np.int32)
    c = divmod_kernel.compile(x, out, 7, BLOCK=256)
    check_ir(c.asm["mtia.map-engines"], """
        CHECK: arith.divsi {{.*}}engine = "rvv"
        CHECK: tt.mulhiui {{.*}}engine = "rvv"
        CHECK: arith.addi {{.*}}engine = "se"
    """)
    check_ir(c.asm["mtia-asm"], """
        CHECK: cb.wait {{x\\d+}}, 0
        CHECK: cb.reserve
        CHECK: vsetvli {{x\\d+}}, {{x\\d+}}, e32, m8
        CHECK-NEXT: vle32.v v8
        CHECK-NEXT: vdiv.vx v24, v8, {{x\\d+}}
        CHECK-NEXT: vse32.v v24
        CHECK: cb.push
        CHECK: vmulhu.vv v24, v8, v16
        CHECK: se.add
    """)
    divmod_kernel[(1,)](x, out, 7, BLOCK=256)
    quotient = np.sign(x) * (np.abs(x) // 7)                       # C division: toward zero
    high = (x.astype(np.uint32).astype(np.uint64) ** 2) >> 32
    want = (quotient.astype(np.int64) + high.astype(np.int64)).astype(np.int32)
    np.testing.assert_array_equal(out, want)


REDUCE_WITH_A_CUSTOM_COMBINE = """module {
  tt.func @red(%x_ptr: ptr<f32>, %out_ptr: ptr<f32>) {
    %offs = tt.make_range {start = 0, end = 16} : tensor<16xi32>
    %0 = tt.splat %x_ptr : tensor<16xptr<f32>>
    %1 = tt.addptr %0, %offs : tensor<16xptr<f32>>
    %x = tt.load %1 : tensor<16xf32>
    %2 = tt.reduce %x {axis = 0} : f32 {
    ^bb0(%3: f32, %4: f32):
      %5 = arith.constant {value = 2.0} : f32
      %6 = arith.mulf %5, %4 : f32
      %7 = arith.addf %3, %6 : f32
      tt.reduce.return %7
    }
    tt.store %out_ptr, %2
    tt.return
  }
}"""


def test_expand_combine_turns_a_combine_the_re_cannot_run_into_halving_steps():
    out = run(REDUCE_WITH_A_CUSTOM_COMBINE, ExpandCombine())
    check_ir(out, """
        CHECK: %x = tt.load
        CHECK-NEXT: %[[L:.*]] = tt.extract_slice %x {offsets = [0], sizes = [8], strides = [2]} : tensor<8xf32>
        CHECK-NEXT: tt.extract_slice %x {offsets = [1], sizes = [8], strides = [2]} : tensor<8xf32>
        CHECK-NEXT: arith.constant {value = 2.0} : tensor<8xf32>
        CHECK-NEXT: arith.mulf
        CHECK-NEXT: arith.addf {{.*}} : tensor<8xf32>
        CHECK: arith.addf {{.*}} : tensor<4xf32>
        CHECK: arith.addf {{.*}} : tensor<2xf32>
        CHECK: %[[ONE:.*]] = arith.addf {{.*}} : tensor<1xf32>
        CHECK-NEXT: mtia.to_scalar {{%\\w+}} : f32
        CHECK-NEXT: tt.store %out_ptr
        CHECK-NOT: tt.reduce
    """.replace("%[[L:.*]]", "{{%\\w+}}").replace("%[[ONE:.*]]", "{{%\\w+}}"))


SELECTED_POINTERS = """module {
  tt.func @pick(%a_ptr: ptr<f32>, %b_ptr: ptr<f32>, %out_ptr: ptr<f32>, %flag: i32) {
    %offs = tt.make_range {start = 0, end = 16} : tensor<16xi32>
    %0 = tt.splat %flag : tensor<16xi32>
    %1 = arith.cmpi %offs, %0 {predicate = "slt"} : tensor<16xi1>
    %2 = tt.splat %a_ptr : tensor<16xptr<f32>>
    %3 = tt.addptr %2, %offs : tensor<16xptr<f32>>
    %4 = tt.splat %b_ptr : tensor<16xptr<f32>>
    %5 = tt.addptr %4, %offs : tensor<16xptr<f32>>
    %p = arith.select %1, %3, %5 : tensor<16xptr<f32>>
    %6 = tt.load %p : tensor<16xf32>
    %7 = arith.constant {value = 1} : i64
    %8 = arith.constant {value = 16} : i64
    mtia.store_box %out_ptr, %6, %7, %8 {rank = 1, unaligned = false}
    tt.return
  }
}"""


def test_materialize_pointers_holds_a_selected_pointer_block_as_byte_addresses_and_gathers():
    out = run(SELECTED_POINTERS, MaterializePointers())
    check_ir(out, """
        CHECK: %[[A:.*]] = tt.ptr_to_int %a_ptr : i64
        CHECK: arith.muli {{%\\w+}}, {{%\\w+}} : tensor<16xi64>
        CHECK: tt.ptr_to_int %b_ptr : i64
        CHECK: %p = arith.select %1, {{%\\w+}}, {{%\\w+}} : tensor<16xi64>
        CHECK-NEXT: arith.constant {value = 4} : tensor<16xi64>
        CHECK-NEXT: %[[I:.*]] = arith.divsi %p, {{%\\w+}} : tensor<16xi64>
        CHECK: tt.int_to_ptr {{%\\w+}} : ptr<f32>
        CHECK-NEXT: mtia.gather {{%\\w+}}, {{%\\w+}} {pad = 0} : tensor<16xf32>
        CHECK-NOT: xptr<
        CHECK-NOT: tt.load
    """.replace("%[[A:.*]]", "{{%\\w+}}").replace("%[[I:.*]]", "{{%\\w+}}"))


INVARIANT_ADDRESSES = """module {
  tt.func @k(%p: ptr<f32>, %n: i32, %s: i32) {
    %c0 = arith.constant {value = 0} : i32
    %c1 = arith.constant {value = 1} : i32
    %q = scf.for %c0, %n, %c1, %p : ptr<f32> {
    ^bb0(%i: i32, %q_in: ptr<f32>):
      %w = arith.extsi %s : i64
      %step = arith.muli %w, %w : i64
      %k = arith.extsi %i : i64
      %q_next = tt.addptr %q_in, %step : ptr<f32>
      %r = tt.addptr %q_next, %k : ptr<f32>
      scf.yield %r
    }
    tt.return
  }
}"""


def test_licm_hoists_the_loop_invariant_scalar_arithmetic_only():
    out = run(INVARIANT_ADDRESSES, HoistLoopInvariants())
    check_ir(out, """
        CHECK: %w = arith.extsi %s : i64
        CHECK-NEXT: %step = arith.muli %w, %w : i64
        CHECK-NEXT: %q = scf.for
        CHECK-NEXT: ^bb0(%i: i32, %q_in: ptr<f32>):
        CHECK-NEXT: %k = arith.extsi %i : i64
        CHECK-NEXT: %q_next = tt.addptr %q_in, %step
        CHECK-NEXT: %r = tt.addptr %q_next, %k
    """)


SOFTMAX_ENGINES = """module {
  tt.func @softmax(%x_ptr: ptr<f32> {tt.divisibility = 16}, %out_ptr: ptr<f32> {tt.divisibility = 16}, %n: i32) {
    %0 = arith.constant {value = 16} : i64
    %1 = arith.constant {value = 1} : i64
    %2 = arith.constant {value = 4} : i64
    %3 = arith.extsi %n : i64
    %x = mtia.load_box %x_ptr, %0, %1, %2, %3 {rank = 2, unaligned = false, pad = -inf, engine = "dma"} : tensor<4x16xf32>
    %4 = tt.reduce %x {axis = 1, engine = "re"} : tensor<4xf32> {
    ^bb0(%5: f32, %6: f32):
      %7 = arith.maxnumf %5, %6 : f32
      tt.reduce.return %7
    }
    %8 = tt.expand_dims %4 {axis = 1, engine = "view"} : tensor<4x1xf32>
    %9 = tt.broadcast %8 {engine = "view"} : tensor<4x16xf32>
    %10 = arith.subf %x, %9 {engine = "se"} : tensor<4x16xf32>
    %e = math.exp %10 {engine = "se"} : tensor<4x16xf32>
    %11 = tt.reduce %e {axis = 1, engine = "re"} : tensor<4xf32> {
    ^bb0(%12: f32, %13: f32):
      %14 = arith.addf %12, %13 : f32
      tt.reduce.return %14
    }
    %15 = tt.expand_dims %11 {axis = 1, engine = "view"} : tensor<4x1xf32>
    %16 = tt.broadcast %15 {engine = "view"} : tensor<4x16xf32>
    %17 = arith.divf %e, %16 {engine = "se"} : tensor<4x16xf32>
    mtia.store_box %out_ptr, %17, %0, %1, %2, %3 {rank = 2, unaligned = false, engine = "dma"}
    tt.return
  }
}"""


def test_bufferize_declares_the_storages_and_marks_tiles_in_place_updates_and_pops():
    out = run(SOFTMAX_ENGINES, Bufferize())
    check_ir(out, """
        CHECK: mtia.cb {id = 0, name = "x", bytes = 256, producer = "dma", depth = 0}
        CHECK-NEXT: mtia.cb {id = 1, name = "reduce", bytes = 16, producer = "re", depth = 0}
        CHECK-NEXT: mtia.cb {id = 2, name = "reduce", bytes = 16, producer = "re", depth = 0}
        CHECK: %x = mtia.load_box {{.*}}tiles = [{cb = 0, dtype = "f32", shape = [4, 16]}]}
        CHECK-NEXT: %4 = tt.reduce %x {axis = 1, engine = "re", tiles = [{cb = 1, dtype = "f32", shape = [4]}]}
        CHECK: %8 = tt.expand_dims %4 {axis = 1, engine = "view", tiles = [{cb = 1, dtype = "f32", shape = [4, 1]}]}
        CHECK-NEXT: %9 = tt.broadcast %8 {engine = "view", tiles = [{cb = 1, dtype = "f32", shape = [4, 1]}]}
        CHECK-NEXT: %10 = arith.subf %x, %9 {engine = "se", tiles = [{cb = 0, {{.*}}}], inplace = true, pops = [1]}
        CHECK-NEXT: %e = math.exp %10 {engine = "se", tiles = [{cb = 0, {{.*}}}], inplace = true}
        CHECK: %17 = arith.divf %e, %16 {{.*}}inplace = true, pops = [2]}
        CHECK-NEXT: mtia.store_box {{.*}}engine = "dma", pops = [0]}
    """)


def test_allocate_ls_sizes_and_places_the_declared_storages_from_text():
    bufferized = run(SOFTMAX_ENGINES, Bufferize())
    out = run(bufferized, AllocateLocalStore(384 * 1024, num_stages=3))
    check_ir(out, """
        CHECK: tt.func @softmax({{.*}}) attributes {mtia.ls_used = 768} {
        CHECK-NEXT: mtia.cb {id = 0, name = "x", bytes = 256, producer = "dma", depth = 0, slots = 2, base = 0}
        CHECK-NEXT: mtia.cb {id = 1, name = "reduce", bytes = 64, producer = "re", depth = 0, slots = 2, base = 512}
        CHECK-NEXT: mtia.cb {id = 2, name = "reduce", bytes = 64, producer = "re", depth = 0, slots = 2, base = 640}
    """)



def test_allocate_ls_rounds_slots_to_the_targets_slot_alignment():
    """A slot starts on the larger of the DMA alignment and the vector register size: a config with
    1024-bit vector registers rounds the 64-byte reduce tiles up to 128 bytes."""
    from compiler.backend.target import Target
    cfg = load_config("mtia-2i")
    assert Target.of(cfg).slot_align == 64                           # 512-bit registers, 32 B DMA alignment
    wide = cfg.model_copy(update={"pe": cfg.pe.model_copy(update={"vector": cfg.pe.vector.model_copy(
        update={"vlen_bits": 1024})})})
    assert Target.of(wide).slot_align == 128
    out = run(run(SOFTMAX_ENGINES, Bufferize()), AllocateLocalStore(384 * 1024, slot_align=128))
    check_ir(out, """
        CHECK: mtia.cb {id = 0, name = "x", bytes = 256, {{.*}}base = 0}
        CHECK-NEXT: mtia.cb {id = 1, name = "reduce", bytes = 128, {{.*}}base = 512}
        CHECK-NEXT: mtia.cb {id = 2, name = "reduce", bytes = 128, {{.*}}base = 768}
    """)

def test_codegen_from_text_emits_what_the_plan_in_the_ir_says():
    allocated = run(SOFTMAX_ENGINES, Bufferize(), AllocateLocalStore(384 * 1024))
    prog, cpp, llvm = emit_program(parse_module(allocated), load_config("mtia-2i"))
    check_ir(prog.to_asm(), """
        CHECK: .cb 0 x base=0 slot=256 slots=2
        CHECK-NEXT: .cb 1 reduce base=512 slot=64 slots=2
        CHECK: dma.in cb0.push:f32[4x16], x1, [16, 1], valid=[4, {{x\\d+}}], pad=-inf
        CHECK-NEXT: re.reduce cb1.push:f32[4], cb0.keep:f32[4x16], max, 1
        CHECK-NEXT: se.sub cb0.acc:f32[4x16], cb0.keep:f32[4x16], cb1.pop:f32[4x1]
        CHECK-NEXT: se.exp cb0.acc:f32[4x16], cb0.keep:f32[4x16]
        CHECK-NEXT: re.reduce cb2.push:f32[4], cb0.keep:f32[4x16], sum, 1
        CHECK-NEXT: se.div cb0.acc:f32[4x16], cb0.keep:f32[4x16], cb2.pop:f32[4x1]
        CHECK-NEXT: dma.out cb0.pop:f32[4x16], x2, [16, 1], valid=[4, {{x\\d+}}]
        CHECK-NEXT: end:
    """)
    check_ir(cpp, """
        CHECK: void softmax(float* x_ptr, float* out_ptr, int32_t n) {
        CHECK: mtia::dma_in({.dst = cb0.push, .base = x_ptr
    """)
    check_ir(llvm, """
        CHECK: declare void @mtia.dma.in(...)
        CHECK: define void @softmax(ptr %x_ptr, ptr %out_ptr, i32 %n) {
        CHECK: call void (...) @mtia.dma.in(i32 0, i32 2, ptr %x_ptr
        CHECK-NEXT: call void (...) @mtia.re.reduce(i32 1, i32 2, i32 0, i32 0, ptr @.str.0
        CHECK: call void (...) @mtia.dma.out(i32 0, i32 1, ptr %out_ptr
        CHECK-NEXT: ret void
    """)


HALF_SUM_ENGINES = """module {
  tt.func @half_sum(%S: ptr<f16> {tt.divisibility = 16}, %Y: ptr<f16> {tt.divisibility = 16}) {
    %0 = arith.constant {value = 1} : i64
    %1 = arith.constant {value = 16} : i64
    %y = mtia.load_box %Y, %0, %1 {rank = 1, unaligned = false, pad = 0, engine = "dma"} : tensor<16xf16>
    %2 = tt.reduce %y {axis = 0, engine = "re"} : f16 {
    ^bb0(%3: f16, %4: f16):
      %5 = arith.addf %3, %4 : f16
      tt.reduce.return %5
    }
    %6 = arith.constant {value = 2.0} : f16
    %7 = arith.mulf %2, %6 {engine = "se"} : f16
    tt.store %S, %7
    tt.return
  }
}"""


def test_bufferize_gives_a_half_result_that_scalar_code_reads_an_f32_widening_slot():
    bufferized = run(HALF_SUM_ENGINES, Bufferize())
    check_ir(bufferized, """
        CHECK: mtia.cb {id = 2, name = "mulf", bytes = 2, producer = "se"
        CHECK-NEXT: mtia.cb {id = 3, name = "widen_tmp", bytes = 4, producer = "se"
        CHECK: %7 = arith.mulf %2, %6 {engine = "se", tiles = [{cb = 2, dtype = "f16", shape = [1]}], {{.*}}widen = [3]}
    """)
    prog, _, _ = emit_program(parse_module(run(bufferized, AllocateLocalStore(384 * 1024))), load_config("mtia-2i"))
    check_ir(prog.to_asm(), """
        CHECK: se.mul cb2.push:f16[1]
        CHECK: se.mov cb3.push:f32[1], cb2.keep:f16[1]
        CHECK-NEXT: cb.wait {{x\\d+}}, 3
        CHECK-NEXT: flw {{f\\d+}}, 0({{x\\d+}})
        CHECK-NEXT: cb.pop 3
    """)
