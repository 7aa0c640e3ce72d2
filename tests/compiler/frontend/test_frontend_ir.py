"""FileCheck-style tests of the IR the frontend emits for each Python construct."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from filecheck import check_ir

# launched on the reference interpreter unless MTIASIM_EXECUTOR names another (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("interpreter_by_default")

F32 = np.zeros(64, np.float32)


def frontend_ir(kernel, signature, **constexprs) -> str:
    return triton.compile(kernel, signature=signature, constexprs=constexprs).asm["ir.frontend"]


def final_ir(kernel, signature, **constexprs) -> str:
    return triton.compile(kernel, signature=signature, constexprs=constexprs).asm["ir"]


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def test_vector_add_ir():
    ir = final_ir(add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, BLOCK=64)
    check_ir(ir, """
        CHECK: tt.func @add_kernel(%x_ptr: ptr<f32>, %y_ptr: ptr<f32>, %out_ptr: ptr<f32>, %n: i32)
        CHECK-NEXT: %0 = tt.get_program_id {axis = 0} : i32
        CHECK-NEXT: %1 = arith.constant {value = 64} : i32
        CHECK-NEXT: %2 = arith.muli %0, %1 : i32
        CHECK-NEXT: %3 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
        CHECK-NEXT: %4 = tt.splat %2 : tensor<64xi32>
        CHECK-NEXT: %offs = arith.addi %4, %3 : tensor<64xi32>
        CHECK: %mask = arith.cmpi %offs, %{{[0-9]+}} {predicate = "slt"} : tensor<64xi1>
        CHECK: tt.addptr {{.*}} : tensor<64xptr<f32>>
        CHECK: tt.load %{{[0-9]+}}, %mask : tensor<64xf32>
        CHECK: arith.addf
        CHECK: tt.store {{.*}}, %mask
        CHECK-NEXT: tt.return
    """)


def test_specialization_attributes_from_launch_arguments():
    c = add_kernel.compile(F32, F32, F32, 32, BLOCK=64)     # n % 16 == 0, arrays are aligned
    check_ir(c.asm["ir"], """
        CHECK: tt.func @add_kernel(%x_ptr: ptr<f32> {tt.divisibility = 16}, %y_ptr: ptr<f32> {tt.divisibility = 16}, %out_ptr: ptr<f32> {tt.divisibility = 16}, %n: i32 {tt.divisibility = 16})
    """)
    c1 = add_kernel.compile(F32, F32, F32, 1, BLOCK=64)     # n == 1 is compiled in as a constant
    check_ir(c1.asm["ir"], """
        CHECK: tt.func @add_kernel(%x_ptr: ptr<f32> {tt.divisibility = 16}, %y_ptr: ptr<f32> {tt.divisibility = 16}, %out_ptr: ptr<f32> {tt.divisibility = 16})
        CHECK-NOT: %n
        CHECK: tt.return
    """)
    assert c1.constexprs["n"] == 1 and "n" not in c1.signature


@triton.jit
def loop_kernel(X, Out, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    offs = tl.arange(0, BLOCK)
    for i in tl.range(0, n, 4, num_stages=3, loop_unroll_factor=2):
        acc += tl.load(X + i + offs)
        X += 1                                   # pointer argument carried through the loop
    tl.store(Out + offs, acc)


def test_for_loop_carries_values_as_iter_args():
    check_ir(final_ir(loop_kernel, {"X": "*fp32", "Out": "*fp32", "n": "i32"}, BLOCK=16), """
        CHECK: %acc = arith.constant {value = 0.0} : tensor<16xf32>
        CHECK: %acc_1, %X_1 = scf.for %{{[0-9]+}}, %n, %{{[0-9]+}}, %acc, %X {tt.num_stages = 3, tt.loop_unroll_factor = 2} : tensor<16xf32>, ptr<f32> {
        CHECK-NEXT: ^bb0(%i: i32, %acc_2: tensor<16xf32>, %X_2: ptr<f32>):
        CHECK: tt.load
        CHECK: %acc_3 = arith.addf %acc_2, %{{[0-9]+}} : tensor<16xf32>
        CHECK: %X_3 = tt.addptr %X_2, %{{[0-9]+}} : ptr<f32>
        CHECK-NEXT: scf.yield %acc_3, %X_3
        CHECK-NEXT: }
        CHECK: tt.store %{{[0-9]+}}, %acc_1
    """)


@triton.jit
def unchanged_loop_var_kernel(X, n):
    a = tl.load(X)
    b = tl.load(X + 1)
    for i in range(n):
        if False:
            a = a + 1.0                          # dead branch: `a` is assigned but never changes
        b = b * 2.0
    tl.store(X, a + b)


def test_loop_values_that_never_change_are_not_carried():
    check_ir(frontend_ir(unchanged_loop_var_kernel, {"X": "*fp32", "n": "i32"}), """
        CHECK: %b_1 = scf.for %{{[0-9]+}}, %n, %{{[0-9]+}}, %b : f32 {
        CHECK-NEXT: ^bb0(%i: i32, %b_2: f32):
        CHECK: scf.yield %b_3
        CHECK: arith.addf %a, %b_1
    """)


@triton.jit
def if_kernel(X, FLAG: tl.constexpr):
    x = tl.load(X)
    if FLAG:                                     # compile-time: only one branch exists in the IR
        y = x * 2.0
    else:
        y = tl.exp(x)
    if x > 0:                                    # run time: scf.if yielding the merged value
        z = y + 1.0
    else:
        z = y - 1.0
    tl.store(X, z)


def test_constexpr_if_drops_the_dead_branch_and_runtime_if_yields():
    ir = frontend_ir(if_kernel, {"X": "*fp32"}, FLAG=True)
    check_ir(ir, """
        CHECK: %y = arith.mulf %x, %{{[0-9]+}} : f32
        CHECK-NOT: math.exp
        CHECK: %z = scf.if %{{[0-9]+}} : f32 {
        CHECK: %z_1 = arith.addf %y
        CHECK-NEXT: scf.yield %z_1
        CHECK-NEXT: }, {
        CHECK: %z_2 = arith.subf %y
        CHECK-NEXT: scf.yield %z_2
        CHECK-NEXT: }
        CHECK-NEXT: tt.store %X, %z
    """)
    check_ir(frontend_ir(if_kernel, {"X": "*fp32"}, FLAG=False), "CHECK: math.exp\nCHECK-NOT: arith.mulf %x")


@triton.jit
def while_kernel(X, n):
    i = 0
    total = 0.0
    while i < n:
        total += tl.load(X + i)
        i += 1
    tl.store(X, total)


def test_while_loop_before_and_after_regions():
    check_ir(frontend_ir(while_kernel, {"X": "*fp32", "n": "i32"}), """
        CHECK: %total_1, %i_1 = scf.while %total, %i : f32, i32 {
        CHECK-NEXT: ^bb0(%total_2: f32, %i_2: i32):
        CHECK-NEXT: %{{[0-9]+}} = arith.cmpi %i_2, %n {predicate = "slt"} : i1
        CHECK-NEXT: scf.condition %{{[0-9]+}}, %total_2, %i_2
        CHECK-NEXT: }, {
        CHECK-NEXT: ^bb0(%total_3: f32, %i_3: i32):
        CHECK: scf.yield %total_4, %i_4
        CHECK: tt.store %X, %total_1
    """)


@triton.jit
def sum_and_product(a, b):
    return a + b, a * b


@triton.jit
def scale(x, FACTOR: tl.constexpr):
    return x * FACTOR


@triton.jit
def calls_kernel(X):
    x = tl.load(X)
    s, p = sum_and_product(x, 3.0)
    tl.store(X, scale(s, FACTOR=4.0) + p)


def test_nested_jit_calls_are_inlined_with_tuple_returns():
    check_ir(frontend_ir(calls_kernel, {"X": "*fp32"}), """
        CHECK: %x = tt.load %X : f32
        CHECK: %s = arith.addf %x, %{{[0-9]+}} : f32
        CHECK: %p = arith.mulf %x, %{{[0-9]+}} : f32
        CHECK: arith.constant {value = 4.0} : f32
        CHECK: arith.mulf %s,
        CHECK-NOT: tt.call
        CHECK: tt.store
    """)


@triton.jit
def static_range_kernel(X, N: tl.constexpr):
    acc = tl.load(X)
    for k in tl.static_range(N):
        acc = acc + k
    tl.store(X, acc)


def test_static_range_unrolls():
    ir = final_ir(static_range_kernel, {"X": "*i32"}, N=3)
    check_ir(ir, """
        CHECK-NOT: scf.for
        CHECK: %acc_1 = arith.addi %acc, %{{[0-9]+}} : i32
        CHECK-NEXT: %{{[0-9]+}} = arith.constant {value = 2} : i32
        CHECK-NEXT: %acc_2 = arith.addi %acc_1, %{{[0-9]+}} : i32
    """)   # k = 0 folds away (x + 0), k = 1 and k = 2 remain


@triton.jit
def early_return_kernel(X, n):
    pid = tl.program_id(0)
    if pid >= n:
        return
    tl.store(X + pid, 1.0)


def test_early_return_moves_the_rest_into_the_else_branch():
    check_ir(frontend_ir(early_return_kernel, {"X": "*fp32", "n": "i32"}), """
        CHECK: scf.if %{{[0-9]+}} {
        CHECK-NEXT: scf.yield
        CHECK-NEXT: }, {
        CHECK: tt.store
        CHECK-NEXT: scf.yield
        CHECK-NEXT: }
        CHECK-NEXT: tt.return
    """)


@triton.jit
def misc_kernel(X, n, BLOCK: tl.constexpr):
    HALF: tl.constexpr = BLOCK // 2                       # a constexpr local
    offs = tl.arange(0, HALF)
    m = min(n, 8)                                          # builtin min on a runtime value -> minsi
    k = max(HALF, 4)                                       # builtin max on constexprs -> folded
    x = tl.load(X + offs + m + k)
    tl.store(X + offs, x.to(tl.float16).to(tl.float32) * tl.float32.primitive_bitwidth)


def test_constexpr_locals_and_python_min_max():
    check_ir(frontend_ir(misc_kernel, {"X": "*fp32", "n": "i32"}, BLOCK=32), """
        CHECK: %offs = tt.make_range {start = 0, end = 16} : tensor<16xi32>
        CHECK: %m = arith.minsi %n, %{{[0-9]+}} : i32
        CHECK: arith.constant {value = 16} : tensor<16xi32>
        CHECK: arith.truncf {{.*}} : tensor<16xf16>
        CHECK: arith.extf {{.*}} : tensor<16xf32>
        CHECK: arith.constant {value = 32.0} : tensor<16xf32>
    """)


@triton.jit
def hints_kernel(X, Y, n):
    offs = tl.max_contiguous(tl.multiple_of(tl.arange(0, 16), 16), 16)
    n = tl.multiple_of(n, 8)
    tl.assume(n > 0)
    tl.debug_barrier()
    tl.device_assert(n < 1000, "n too large")
    tl.device_print("n = ", n)
    v = tl.load(X + offs, cache_modifier=".cg", eviction_policy="evict_last", volatile=True)
    tl.store(Y + offs, v, cache_modifier=".wb")
    tl.atomic_add(Y + offs, v, sem="relaxed", scope="cta")


def test_hints_and_debug_ops():
    check_ir(final_ir(hints_kernel, {"X": "*fp32", "Y": "*fp32", "n": "i32"}), """
        CHECK: tt.func @hints_kernel(%X: ptr<f32>, %Y: ptr<f32>, %n: i32 {tt.divisibility = 8})
        CHECK: tt.make_range {start = 0, end = 16, tt.divisibility = 16, tt.contiguity = 16}
        CHECK: tt.assume
        CHECK: tt.debug_barrier
        CHECK: tt.assert %{{[0-9]+}} {message = "n too large"}
        CHECK: tt.print %n {prefix = " n =: ", hex = false}
        CHECK: tt.load {{.*}} {cache = ".cg", evict = "evict_last", is_volatile = true}
        CHECK: tt.store {{.*}} {cache = ".wb"}
        CHECK: tt.atomic_rmw {{.*}} {atomic_rmw_op = "fadd", sem = "relaxed", scope = "cta"}
    """)


@triton.jit
def pointer_cast_kernel(Table, Out):
    addr = tl.load(Table)                                  # an int64 holding an address
    p = addr.to(tl.pointer_type(tl.float16))
    tl.static_assert(p.dtype.element_ty == tl.float16)
    q = Out.to(tl.pointer_type(tl.int32))
    tl.store(q, tl.load(p).to(tl.int32))


def test_pointer_casts():
    check_ir(frontend_ir(pointer_cast_kernel, {"Table": "*i64", "Out": "*fp32"}), """
        CHECK: %p = tt.int_to_ptr %addr : ptr<f16>
        CHECK: %q = tt.bitcast %Out : ptr<i32>
        CHECK: tt.load %p : f16
        CHECK: arith.fptosi
    """)


@triton.jit
def mtia_kernel(X):
    pe = tl.mtia.get_pe_id()
    v = tl.mtia.re_reduce(tl.load(X + pe), "max")
    tl.store(X + pe, v)


def test_mtia_extensions():
    check_ir(frontend_ir(mtia_kernel, {"X": "*fp32"}), """
        CHECK: %pe = mtia.get_pe_id : i32
        CHECK: %v = mtia.re_reduce %{{[0-9]+}} {op = "max"} : f32
    """)


def test_stages_and_pass_dumps():
    c = triton.compile(add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                       constexprs={"BLOCK": 64})
    assert list(c.asm)[:7] == ["source", "ir.frontend", "ir.constant-fold", "ir.fuse-dot-add", "ir.cse", "ir.dce", "ir"]
    assert "def add_kernel" in c.asm["source"]
    assert c.asm["ir"] == c.asm["ir.dce"]
