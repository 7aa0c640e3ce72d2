"""The target description: one place decides which unit runs an op, map-engines records it on the op,
and every later stage reads that attribute."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.backend.codegen.generate import LOWERING
from compiler.backend.passes.map_engines import MapEngines
from compiler.backend.pipeline import backend_passes, emit_program
from compiler.backend.target import POINTER_OPS, RVV_OPS, UNIT_OF, Target
from compiler.ir import OP_DEFS, parse_module, print_module
from simulator.config import load_config

from executors import EXECUTORS, launch
from filecheck import check_ir


def test_every_op_the_target_puts_on_a_unit_has_a_lowering_for_that_unit():
    elementwise = [n for n, d in OP_DEFS.items() if d.elementwise and n not in POINTER_OPS]
    assert [n for n in elementwise if n not in LOWERING["se"]] == []
    assert [n for n in RVV_OPS if n not in LOWERING["rvv"]] == []
    assert [n for n, unit in UNIT_OF.items() if n not in LOWERING[unit]] == []


def test_the_dma_alignment_comes_from_the_config():
    cfg = load_config("mtia-2i", {"pe.dma.align_bytes": 64})
    assert Target.of(cfg).dma_align == 64
    lower_memory = next(p for p in backend_passes(cfg) if p.name == "lower-memory")
    assert lower_memory.align_bytes == 64


LAYOUTS = """module {
  tt.func @k(%x: ptr<f32>, %n: i32) {
    %c1 = arith.constant {value = 1} : i64
    %c8 = arith.constant {value = 8} : i64
    %row = mtia.load_box %x, %c1, %c8 {rank = 1} : tensor<8xf32>
    %r2 = tt.expand_dims %row {axis = 0} : tensor<1x8xf32>
    %wide = tt.broadcast %r2 : tensor<8x8xf32>
    %sum = arith.addf %wide, %wide : tensor<8x8xf32>
    %t = tt.trans %sum {order = [1, 0]} : tensor<8x8xf32>
    %zero = arith.constant {value = 0.0} : tensor<8x8xf32>
    %d = tt.dot %sum, %t, %zero : tensor<8x8xf32>
    %one = arith.constant {value = 1.0} : tensor<8x8xf32>
    %e = arith.addf %d, %one : tensor<8x8xf32>
    %wide2 = tt.broadcast %r2 : tensor<8x8xf32>
    %t2 = tt.trans %wide2 {order = [1, 0]} : tensor<8x8xf32>
    mtia.store_box %x, %t2, %c8, %c1, %c8, %c8 {rank = 2}
    mtia.store_box %x, %e, %c8, %c1, %c8, %c8 {rank = 2}
    tt.return
  }
}
"""


def test_map_engines_decides_views_uniform_scalars_and_copies_from_the_readers():
    m = parse_module(LAYOUTS)
    MapEngines().run(m)
    check_ir(print_module(m), """
        CHECK: %row = mtia.load_box {{.*}}engine = "dma"
        CHECK-NEXT: %r2 = tt.expand_dims %row {axis = 0, engine = "view"}
        CHECK-NEXT: %wide = tt.broadcast %r2 {engine = "view"}
        CHECK-NEXT: %sum = arith.addf %wide, %wide {engine = "se"}
        CHECK-NEXT: %t = tt.trans %sum {order = [1, 0], engine = "view"}
        CHECK-NEXT: %zero = arith.constant {value = 0.0, engine = "uniform"}
        CHECK-NEXT: %d = tt.dot %sum, %t, %zero {engine = "dpe"}
        CHECK-NEXT: %one = arith.constant {value = 1.0, engine = "uniform"}
        CHECK-NEXT: %e = arith.addf %d, %one {engine = "se"}
        CHECK-NEXT: %wide2 = tt.broadcast %r2 {engine = "mlu"}
        CHECK-NEXT: %t2 = tt.trans %wide2 {order = [1, 0], engine = "mlu"}
        CHECK-NEXT: mtia.store_box {{.*}}engine = "dma"
    """)


def test_codegen_follows_the_engine_attribute_it_reads():
    @triton.jit
    def quotient(x_ptr, out_ptr, d, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) // d)

    x = np.arange(64, dtype=np.int32)
    c = quotient.compile(x, x, 3, BLOCK=64)
    assert "vdiv.vx" in c.asm["mtia-asm"] and "se.div" not in c.asm["mtia-asm"]
    cfg = load_config("mtia-2i")
    m = parse_module(c.asm["mtia.map-engines"].replace('engine = "rvv"', 'engine = "se"'))
    for p in backend_passes(cfg):
        if p.name in ("bufferize", "allocate-ls"):
            p.run(m)
    asm = emit_program(m, cfg)[0].to_asm()
    assert "se.div" in asm and "vdiv.vx" not in asm


@pytest.mark.parametrize("executor", EXECUTORS)
def test_an_integer_division_by_a_reduced_scalar_on_the_vector_core_reads_a_copied_tile(executor):
    """x // tl.sum(x): the RVV loop walks every operand element, so the splat of the one-element sum
    is copied out to a whole tile (it once read past the sum's slot)."""
    @triton.jit
    def scaled(x_ptr, out_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
        tl.store(out_ptr + offs, (x * 10000) // tl.sum(x, axis=0))

    x = (np.random.default_rng(3).integers(1, 500, 256)).astype(np.int32)
    out = np.full_like(x, -1)
    launch(scaled, (1,), x, out, executor=executor, BLOCK=256)
    np.testing.assert_array_equal(out, (x.astype(np.int64) * 10000 // x.sum()).astype(np.int32))
    check_ir(scaled.compile(x, x, BLOCK=256).asm["mtia.map-engines"], """
        CHECK: tt.splat {{%\\w+}} {engine = "mlu"}
        CHECK-NEXT: arith.divsi {{.*}}engine = "rvv"
    """)
