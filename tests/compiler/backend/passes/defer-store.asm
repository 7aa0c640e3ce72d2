// RUN: opt --pass defer-store
// The matmul after its command forms: the program becomes persistent over its PE's program ids, and
// each program's final store (with its f32 -> f16 conversion, into a CB of its own) is issued by the
// next program after its first loads, or after the loop by the PE's last program.
.kernel mm
.arg a_ptr ptr f16 x1
.arg b_ptr ptr f16 x2
.arg c_ptr ptr f16 x3
.arg M int i32 x4
.arg N int i32 x5
.arg K int i32 x6
.arg sam int i32 x7
.arg sbk int i32 x8
.arg scm int i32 x9
.cb 0 acc base=0 slot=16384 slots=2
.cb 1 a base=32768 slot=4096 slots=3
.cb 2 b base=45056 slot=4096 slots=3
    se.fill cb0.push:f32[64x64], 0.0
    addi x4, x6, 32
    sext.w x4, x4
    addi x5, x4, -1
    sext.w x5, x5
    li x4, 32
    div x10, x5, x4
    sext.w x10, x10
    slli x4, x8, 5
    sext.w x4, x4
    li x5, 0
    mv x11, x1
    mv x1, x2
for_1:
    bge x5, x10, endfor_2
    slli x2, x5, 5
    sext.w x2, x2
    sub x12, x6, x2
    sext.w x12, x12
    dma.in cb1.push:f16[64x32], x11, [x7, 1], valid=[64, x12], unaligned=1, ctx=1, inc=32
    dma.in cb2.push:f16[32x64], x1, [x8, 1], valid=[x12, 64], unaligned=1, ctx=2, inc=x4
    dpe.mm cb0.acc:f32[64x64], cb1.pop:f16[64x32], cb2.pop:f16[32x64], ctx=1
    addi x5, x5, 1
    sext.w x5, x5
    j for_1
endfor_2:
    se.mov cb0.acc:f16[64x64], cb0.keep:f32[64x64]
    dma.out cb0.pop:f16[64x64], x3, [x9, 1]
end:
    halt
// CHECK: .cb 3 deferred base=57344 slot=8192 slots=1
// CHECK-NEXT: .meta {{.*}}"persistent": true
// CHECK-NEXT: li [[PENDING:x\d+]], 0
// CHECK-NEXT: persistent_1:
// CHECK: for_1:
// CHECK: dma.in cb2.push
// CHECK-NEXT: bne [[PENDING]], x0, pending_1
// CHECK-NEXT: stored_1:
// CHECK-NEXT: dpe.mm
// CHECK: endfor_2:
// CHECK-NOT: dma.out cb0.pop
// CHECK: mv [[BASE:x\d+]], x3
// CHECK-NEXT: mv [[STRIDE:x\d+]], x9
// CHECK-NEXT: li [[PENDING]], 2
// CHECK-NEXT: end:
// CHECK-NEXT: mtia.next_pid [[NEXT:x\d+]], keep=[[[PENDING]], [[BASE]], [[STRIDE]]]
// CHECK-NEXT: bne [[NEXT]], x0, persistent_1
// CHECK: se.mov cb3.push:f16[64x64], cb0.pop:f32[64x64]
// CHECK: dma.out cb3.pop:f16[64x64], [[BASE]], [[[STRIDE]], 1]
// CHECK: halt
// CHECK: pending_1:
// CHECK: j stored_1
