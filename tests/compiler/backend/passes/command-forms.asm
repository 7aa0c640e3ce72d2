// RUN: opt --pass command-forms
// A matmul K loop as register allocation leaves it (its .meta line left out): each box DMA whose base
// the loop then advances takes the step as inc= and the update goes; each command in the loop gets
// a command context of its own (ctx=).
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
    dma.in cb1.push:f16[64x32], x11, [x7, 1], valid=[64, x12], unaligned=1
    dma.in cb2.push:f16[32x64], x1, [x8, 1], valid=[x12, 64], unaligned=1
    dpe.mm cb0.acc:f32[64x64], cb1.pop:f16[64x32], cb2.pop:f16[32x64]
    addi x11, x11, 64
    slli x2, x4, 1
    add x1, x1, x2
    addi x5, x5, 1
    sext.w x5, x5
    j for_1
endfor_2:
    se.mov cb0.acc:f16[64x64], cb0.keep:f32[64x64]
    dma.out cb0.pop:f16[64x64], x3, [x9, 1]
end:
    halt
// CHECK-LABEL: for_1:
// CHECK: dma.in cb1.push:f16[64x32], [[A:x\d+]], [x7, 1], valid=[64, [[KV:x\d+]]], unaligned=1, ctx=1, inc=32
// CHECK-NEXT: dma.in cb2.push:f16[32x64], [[B:x\d+]], [x8, 1], valid=[[[KV]], 64], unaligned=1, ctx=2, inc=[[STEP:x\d+]]
// CHECK-NEXT: dpe.mm cb0.acc:f32[64x64], cb1.pop:f16[64x32], cb2.pop:f16[32x64], ctx=1
// CHECK-NOT: addi [[A]], [[A]],
// CHECK-NOT: add [[B]], [[B]],
// CHECK: j for_1
// CHECK-NEXT: endfor_2:
// CHECK-NEXT: se.mov
// CHECK-NEXT: dma.out cb0.pop:f16[64x64], x3, [x9, 1]
// -----
// RUN: opt --pass command-forms --mtia-option command_contexts=false
// The same loop with the command_contexts switch off: the auto-increments only.
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
    dma.in cb1.push:f16[64x32], x11, [x7, 1], valid=[64, x12], unaligned=1
    dma.in cb2.push:f16[32x64], x1, [x8, 1], valid=[x12, 64], unaligned=1
    dpe.mm cb0.acc:f32[64x64], cb1.pop:f16[64x32], cb2.pop:f16[32x64]
    addi x11, x11, 64
    slli x2, x4, 1
    add x1, x1, x2
    addi x5, x5, 1
    sext.w x5, x5
    j for_1
endfor_2:
    se.mov cb0.acc:f16[64x64], cb0.keep:f32[64x64]
    dma.out cb0.pop:f16[64x64], x3, [x9, 1]
end:
    halt
// CHECK-LABEL: for_1:
// CHECK-NOT: ctx=
// CHECK: dma.in cb1.push:f16[64x32], {{x\d+}}, [x7, 1], valid=[64, {{x\d+}}], unaligned=1, inc=32
// CHECK-NEXT: dma.in cb2.push:f16[32x64], {{x\d+}}, [x8, 1], valid=[{{x\d+}}, 64], unaligned=1, inc={{x\d+}}
// CHECK-NEXT: dpe.mm cb0.acc:f32[64x64], cb1.pop:f16[64x32], cb2.pop:f16[32x64]
// CHECK-NOT: ctx=
