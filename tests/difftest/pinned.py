"""Disagreements the differential tester found, each pinned as its minimal kernel (the shrunk
source, in the generator's own form) with what was wrong and how it was closed. The test suite
checks every one on both executors (tests/end_to_end/test_difftest.py)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .families import CONVERT_REFERENCE, FLOAT_SPECIALS
from .generate import Array, Case

HEADER = '''import compiler as triton
import compiler.language as tl


@triton.jit(do_not_specialize=["n", "nt", "s0"])
'''
SCALARS = {"n": 0, "nt": 0, "s0": -5, "f0": 0.5}


@dataclass(frozen=True)
class Pinned:
    name: str
    why: str
    case: Case
    waits_for: str = ""     # the fix that closes it, while not merged (the test expects a failure till then)


def _case(body: str, arrays: list, scalars=None, grid: int = 1, tolerances=None) -> Case:
    params = ", ".join(f"{a.name}_ptr" for a in arrays)
    source = HEADER + f"def kernel({params}, n, nt, s0, f0):\n" + body
    return Case(source, arrays, dict(SCALARS, **(scalars or {})), grid, 7, tolerances or {})


def _family_case(source: str, arrays: list, scalars: dict, reference: str = "") -> Case:
    """A special family's minimal kernel (families.py): its own signature, one program, seed 0."""
    return Case('import compiler as triton\nimport compiler.language as tl\n\n\n' + source, arrays, scalars, 1, 0,
                reference=reference)


PINNED = [
    Pinned("scalar_negation_keeps_the_sign_of_zero",
           "-x of a float scalar ran on MTIA as 0 - x, which gives +0.0 for 0.0 where the interpreter (and "
           "Triton 3.8's arith.negf) gives -0.0. Found by the long run (batch seed 8014); closed: fneg.s / fneg.d.",
           _case('''    pid = tl.program_id(0)
    v0 = (-f0)
    tl.static_assert(v0.dtype == tl.float32)
    v1 = -(f0 * 0.0 + pid)
    tl.store(out0_ptr + pid, v0)
    tl.store(out1_ptr + pid, v1)
''', [Array("out0", "f32", 2, True), Array("out1", "f32", 2, True)], grid=2, scalars={"f0": 0.0})),
    Pinned("bf16_cumsum_on_the_re",
           "The RE's semantics picked its accumulator by numpy kind, and numpy calls bf16 kind 'V': bf16 sums "
           "and scans accumulated in uint32 (a cumsum of -2, -1, 0, ... gave 0, 0, 0, 1, 3). Closed on main "
           "by 4427e17 (the RE takes kind 'V' for a float), found there from Triton's language tests. "
           "A cumsum of bf16 is computed in f32, as Triton widens it; tl.sum keeps bf16 (and reaches the RE).",
           _case('''    pid = tl.program_id(0)
    v0 = tl.load(x0_ptr + (pid * 32 + tl.arange(0, 32)))
    tl.static_assert(v0.dtype == tl.bfloat16)
    v1 = tl.cumsum(v0, axis=0)
    tl.static_assert(v1.dtype == tl.float32)
    v2 = tl.sum(v0, axis=0)
    tl.static_assert(v2.dtype == tl.bfloat16)
    tl.store(out1_ptr + (pid * 32 + tl.arange(0, 32)), v1)
    tl.store(out2_ptr + pid, v2)
''', [Array("x0", "bf16", 64), Array("out1", "bf16", 64, True), Array("out2", "bf16", 2, True)], grid=2,
                 tolerances={"out1": 4.0, "out2": 4.0})),
    Pinned("scalar_abs",
           "tl.abs of an integer scalar was refused on MTIA ('math.absi on scalars is not supported'). Closed: "
           "the control core computes max(x, -x), which keeps INT_MIN as Triton does.",
           _case('''    pid = tl.program_id(0)
    v0 = tl.abs(s0 - pid)
    tl.static_assert(v0.dtype == tl.int32)
    tl.store(out0_ptr + pid, v0)
''', [Array("out0", "i32", 3, True)], grid=3)),
    Pinned("f16_sum_to_a_scalar",
           "A f16 reduction to a scalar read by scalar code was refused on MTIA ('reading a f16 result into a "
           "scalar register is not supported'). Closed: the SE widens the element into an f32 slot the control "
           "core loads (bufferize's `widen`).",
           _case('''    pid = tl.program_id(0)
    v0 = tl.load(x0_ptr + (pid * 64 + tl.arange(0, 64)))
    tl.static_assert(v0.dtype == tl.float16)
    v1 = tl.sum(v0, axis=0)
    tl.static_assert(v1.dtype == tl.float16)
    tl.store(out1_ptr + pid, v1)
''', [Array("x0", "f16", 128), Array("out1", "f16", 2, True)], grid=2, tolerances={"out1": 0.25})),
    Pinned("scalar_cast_to_bf16",
           "A scalar f32 -> bf16 cast was refused on MTIA ('arith.truncf on scalars is not supported'). Closed: "
           "scalar float ops with a f16/bf16 result run on the SE, which rounds the result to its type.",
           _case('''    pid = tl.program_id(0)
    v0 = (s0 + f0)
    tl.static_assert(v0.dtype == tl.float32)
    v1 = v0.to(tl.bfloat16)
    tl.static_assert(v1.dtype == tl.bfloat16)
    tl.store(out0_ptr + pid, v1)
''', [Array("out0", "bf16", 1, True)], scalars={"f0": 1.00390625})),
    Pinned("f16_scalar_arithmetic_rounds_each_op",
           "Found reducing the previous one: scalar f16 values lived in f32 registers without rounding, so "
           "int -> f16 (2049 stayed 2049, f16 has 2048) and f16 scalar sums and products kept f32 precision. "
           "Closed with it: those ops run on the SE and round each result.",
           _case('''    pid = tl.program_id(0)
    v0 = s0.to(tl.float16)
    tl.static_assert(v0.dtype == tl.float16)
    v1 = tl.load(x0_ptr + (pid * 16 + tl.arange(0, 16)))
    tl.static_assert(v1.dtype == tl.float16)
    v2 = tl.load(x0_ptr + pid)
    tl.static_assert(v2.dtype == tl.float16)
    v3 = (v2 * v2 + v0)
    tl.static_assert(v3.dtype == tl.float16)
    tl.store(out1_ptr + (pid * 16 + tl.arange(0, 16)), v1 + v0)
    tl.store(out2_ptr + pid, v3)
''', [Array("x0", "f16", 16), Array("out1", "f16", 16, True), Array("out2", "f16", 1, True)],
                 scalars={"s0": 2049})),
    Pinned("f16_python_float_is_rounded_first",
           "Found with the previous one: `x_f16 * 0.1` multiplies by f16(0.1) in Triton (and in the interpreter); "
           "the SE got 0.1 itself, so results differed in the last bit. Closed: the IR builder rounds a float "
           "constant to its element type, for every stage and both executors.",
           _case('''    pid = tl.program_id(0)
    v0 = tl.load(x0_ptr + (pid * 16 + tl.arange(0, 16)))
    tl.static_assert(v0.dtype == tl.float16)
    v1 = (v0 * 0.1)
    tl.static_assert(v1.dtype == tl.float16)
    v2 = v0.to(tl.bfloat16) * 0.1 + 0.3
    tl.static_assert(v2.dtype == tl.bfloat16)
    tl.store(out1_ptr + (pid * 16 + tl.arange(0, 16)), v1)
    tl.store(out2_ptr + (pid * 16 + tl.arange(0, 16)), v2)
''', [Array("x0", "f16", 16), Array("out1", "f16", 16, True), Array("out2", "bf16", 16, True)])),
    Pinned("int16_plus_f16_rounds_the_int_first",
           "An i16 block added to an f16 one is cast to f16 first (Triton's promotion), so 12101 becomes 12104 "
           "before the add. With fold_casts the SE read the i16 tile straight into its f32 arithmetic and "
           "rounded once, one f16 ulp off. Found by the long run (batch seeds 110007, 120005, 180002); closed: "
           "an int -> float cast folds only into f32 or where the type holds every value of the int (i8 in f16).",
           _case('''    pid = tl.program_id(0)
    v0 = tl.load(x0_ptr + (pid * 16 + tl.arange(0, 16)))
    tl.static_assert(v0.dtype == tl.float16)
    v1 = tl.load(x1_ptr + (pid * 16 + tl.arange(0, 16)))
    tl.static_assert(v1.dtype == tl.int16)
    v2 = (v0 + v1)
    tl.static_assert(v2.dtype == tl.float16)
    tl.store(out2_ptr + (pid * 16 + tl.arange(0, 16)), v2)
''', [Array("x0", "f16", 16), Array("x1", "i16", 16), Array("out2", "f16", 16, True)])),
    Pinned("narrowing_cast_of_an_se_result_whose_input_lives_on",
           "tl.maximum of a bf16 block (f32) cast to f16 for a tl.dot, while the bf16 block is stored later: "
           "fold_casts let the SE write the maximum as f16, but bufferize gave it a fresh slot of its f32 type "
           "(in place only when the input dies), so the dot saw f32 operands and MTIA refused the kernel "
           "(\"tl.dot of f32 by f16\"); an SE reader would have read the unrounded f32 values silently. Found by "
           "the long run (batch seed 500016); closed: a fresh slot takes the type the result is written in.",
           _case('''    pid = tl.program_id(0)
    v0 = tl.load(x0_ptr + (pid * 16 + tl.arange(0, 16))[:, None] * 16 + tl.arange(0, 16)[None, :])
    tl.static_assert(v0.dtype == tl.bfloat16)
    v3 = tl.maximum(v0, v0)
    tl.static_assert(v3.dtype == tl.float32)
    v11 = tl.load(x6_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    v12 = tl.dot(v3.to(tl.float16), v11)
    tl.store(out7_ptr + (pid * 16 + tl.arange(0, 16))[:, None] * 16 + tl.arange(0, 16)[None, :], v12)
    tl.store(out8_ptr + (pid * 16 + tl.arange(0, 16))[:, None] * 16 + tl.arange(0, 16)[None, :], v0)
''', [Array("x0", "bf16", 256), Array("x6", "f16", 256), Array("out7", "f32", 256, True),
      Array("out8", "bf16", 256, True)])),
    # the special families' first finds (issue 32), each shrunk by `python -m difftest --families NAME`
    Pinned("scalar_load_after_a_block_store_of_its_element",
           "Family overlap (batch seed 100): the scalar load of buf[0] ran on MTIA before the block store that "
           "wrote it, and read the NaN poison.",
           _family_case('''@triton.jit(do_not_specialize=['nt', 's0'])
def kernel(x0_ptr, buf_ptr, out0_ptr, out1_ptr, nt, s0):
    pid = tl.program_id(0)
    ar = tl.arange(0, 16)
    base = pid * 16
    v = tl.load(x0_ptr + base + ar)
    acc = tl.load(x0_ptr + base)
    tl.store(buf_ptr + base + ar, v)
    s = tl.load(buf_ptr + base + 0)
    acc = acc + s
    v = v + s
    tl.store(out0_ptr + base + ar, v)
    tl.store(out1_ptr + pid, acc)
''', [Array("x0", "f32", 16), Array("buf", "f32", 16, True), Array("out0", "f32", 16, True),
      Array("out1", "f32", 1, True)], {"nt": 0, "s0": 0})),
    Pinned("negative_stride_view_indexed_with_its_strides",
           "Family strides (batch seed 101): a[:, ::-1] passed as an argument; both executors got the address of "
           "its lowest byte instead of its first element, so reading it with its own strides (4, -1) started "
           "before the array (an out-of-bounds error on both).",
           _family_case('''@triton.jit(do_not_specialize=['n'])
def kernel(x0_ptr, out1_ptr, sx0, sx1, n):
    v = tl.load(x0_ptr + tl.arange(0, 1)[:, None] * sx0 + tl.arange(0, 4)[None, :] * sx1)
    tl.store(out1_ptr + tl.arange(0, 1)[:, None] * 4 + tl.arange(0, 4)[None, :], v)
''', [Array("x0", "f32", 4, view="a.reshape(1, 4)[:, ::-1]"), Array("out1", "f32", 4, True)],
               {"sx0": 4, "sx1": -1, "n": 0},
               "def reference(inp, args, scalars):\n    return {'out1': np.array(args['x0']).reshape(-1)}\n")),
    Pinned("block_offsets_that_wrap_in_i32",
           "Family wrap (batch seed 102): a - (pid * 16 + arange) + b with a = -2**31, b = -2**31 + 15 is "
           "15 - arange only after the i32 wrap; MTIA computed the offsets without it and loaded far "
           "outside the array.",
           _family_case('''@triton.jit(do_not_specialize=['a', 'b'])
def kernel(x0_ptr, out1_ptr, a, b):
    pid = tl.program_id(0)
    offs = (a - (pid * 16 + tl.arange(0, 16)))
    idx = offs + b
    v = tl.load(x0_ptr + idx)
    tl.store(out1_ptr + (pid * 16 + tl.arange(0, 16)), v)
''', [Array("x0", "f32", 16), Array("out1", "f32", 16, True)], {"a": -2 ** 31, "b": -2 ** 31 + 15})),
    Pinned("numpy_bool_scalar_argument",
           "Family npscalars (batch seed 103): np.False_ as a scalar argument; MTIA's launch failed with "
           "'int() argument must be ... not NoneType' (the interpreter runs it).",
           _family_case('''@triton.jit
def kernel(x0_ptr, out1_ptr, out2_ptr, a0):
    pid = tl.program_id(0)
    ar = pid * 16 + tl.arange(0, 16)
    acc = tl.load(x0_ptr + ar) + a0.to(tl.float32)
    if a0 != 0:
        acc = acc * 2.0
    tl.store(out1_ptr + ar, acc)
    tl.store(out2_ptr + pid, pid.to(tl.float32) * 0.5 + a0.to(tl.float32))
''', [Array("x0", "f32", 16), Array("out1", "f32", 16, True), Array("out2", "f32", 1, True)],
               {"a0": np.False_})),
    Pinned("float_to_int8_of_specials_saturates",
           "Family convert (batch seed 104): f32 -> int8 of +inf gave 0 on both executors (numpy's rule: 127), "
           "NaN and out-of-range values differed between them.",
           _family_case('''@triton.jit
def kernel(x0_ptr, out1_ptr, out2_ptr):
    pid = tl.program_id(0)
    v = tl.load(x0_ptr + (pid * 16 + tl.arange(0, 16)))
    tl.store(out1_ptr + (pid * 16 + tl.arange(0, 16)), v.to(tl.int8))
    s = tl.load(x0_ptr + pid * 16 + 0)
    tl.store(out2_ptr + pid, s.to(tl.int8))
''', [Array("x0", "f32", 16, special=FLOAT_SPECIALS), Array("out1", "i8", 16, True), Array("out2", "i8", 1, True)],
               {}, CONVERT_REFERENCE + "def reference(inp, args, scalars):\n    x = inp['x0'].astype(np.float64)\n"
               "    return {'out1': convert(x, 'i8'), 'out2': convert(x[:1], 'i8')}\n")),
]
