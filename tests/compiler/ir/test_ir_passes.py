"""FileCheck tests of each pass on parsed IR, and of the pipeline's dumps."""
import dataclasses
import io

import pytest

from compiler.ir import parse_module, print_module, verify
from compiler.ir.passes import PASSES, CommonSubexpressionElimination, ConstantFold, DeadCodeElimination, pipeline

from filecheck import check_ir

# launched on the reference interpreter unless MTIASIM_EXECUTOR names another (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("interpreter_by_default")

SRC = """module {
  tt.func @k(%x: ptr<f32>, %n: i32) {
    %a = arith.constant {value = 6} : i32
    %b = arith.constant {value = 7} : i32
    %c = arith.muli %a, %b : i32
    %neg = arith.constant {value = -7} : i32
    %two = arith.constant {value = 2} : i32
    %q = arith.divsi %neg, %two : i32
    %r = arith.remsi %neg, %two : i32
    %s = tt.splat %c : tensor<16xi32>
    %zero = arith.constant {value = 0} : i32
    %n0 = arith.addi %n, %zero : i32
    %lt = arith.cmpi %a, %b {predicate = "slt"} : i1
    %range = tt.make_range {start = 0, end = 16} : tensor<16xi32>
    %range2 = tt.make_range {start = 0, end = 16} : tensor<16xi32>
    %sum = arith.addi %range, %range2 : tensor<16xi32>
    %t = arith.addi %sum, %s : tensor<16xi32>
    %p = tt.splat %x : tensor<16xptr<f32>>
    %pp = tt.addptr %p, %t : tensor<16xptr<f32>>
    %v1 = tt.load %pp : tensor<16xf32>
    %v2 = tt.load %pp : tensor<16xf32>
    %unused = math.exp %v1 : tensor<16xf32>
    %red = tt.reduce %v2 {axis = 0} : f32 {
    ^bb0(%l: f32, %rr: f32):
      %m = arith.addf %l, %rr : f32
      tt.reduce.return %m
    }
    %w = arith.addf %v1, %v2 : tensor<16xf32>
    tt.store %pp, %w
    %qf = arith.sitofp %q : f32
    %rf = arith.sitofp %r : f32
    %nf = arith.sitofp %n0 : f32
    %o = arith.addf %qf, %rf : f32
    %o2 = arith.addf %o, %nf : f32
    %lf = arith.uitofp %lt : f32
    %o3 = arith.addf %o2, %lf : f32
    tt.store %x, %o3
    tt.return
  }
}
"""


def run(p) -> str:
    m = parse_module(SRC)
    p.run(m)
    verify(m)
    return print_module(m)


def test_constant_fold():
    check_ir(run(ConstantFold()), """
        CHECK: %c = arith.constant {value = 42} : i32
        CHECK: %q = arith.constant {value = -3} : i32
        CHECK: %r = arith.constant {value = -1} : i32
        CHECK: %s = arith.constant {value = 42} : tensor<16xi32>
        CHECK-NOT: %n0 = arith.addi
        CHECK: %lt = arith.constant {value = true} : i1
        CHECK: %sum = arith.addi %range, %range2
        CHECK: %qf = arith.constant {value = -3.0} : f32
        CHECK: %nf = arith.sitofp %n : f32
        CHECK: %lf = arith.constant {value = 1.0} : f32
    """)


def test_cse_merges_pure_ops_but_not_loads():
    check_ir(run(CommonSubexpressionElimination()), """
        CHECK: %range = tt.make_range
        CHECK-NOT: %range2 = tt.make_range
        CHECK: %sum = arith.addi %range, %range : tensor<16xi32>
        CHECK: %v1 = tt.load %pp
        CHECK-NEXT: %v2 = tt.load %pp
    """)


def test_dce_removes_unused_pure_ops_and_keeps_side_effects():
    check_ir(run(DeadCodeElimination()), """
        CHECK-NOT: math.exp
        CHECK-NOT: tt.reduce
        CHECK: tt.store %pp, %w
        CHECK: tt.store %x, %o3
    """)


def test_pipeline_prints_after_each_pass():
    m = parse_module(SRC)
    out = io.StringIO()
    stages = pipeline(m, ["constant-fold", "cse", "dce"], print_after_each=True, stream=out)
    assert list(stages) == ["ir.constant-fold", "ir.cse", "ir.dce"]
    check_ir(out.getvalue(), """
        CHECK: // -----// IR Dump After constant-fold //----- //
        CHECK: %c = arith.constant {value = 42} : i32
        CHECK: // -----// IR Dump After cse //----- //
        CHECK: // -----// IR Dump After dce //----- //
        CHECK-NOT: math.exp
        CHECK: tt.return
    """)
    check_ir(stages["ir.dce"], """
        CHECK: tt.func @k(%x: ptr<f32>, %n: i32) {
        CHECK: %t = arith.addi %sum, %
        CHECK: tt.store %x, %o3
    """)


def test_passes_are_small_frozen_dataclasses():
    for name, p in PASSES.items():
        assert p.name == name
        with pytest.raises(dataclasses.FrozenInstanceError):
            p.name = "other"
