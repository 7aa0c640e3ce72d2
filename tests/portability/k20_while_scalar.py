import triton
import triton.language as tl
import numpy as np

# Scalar `while` loops with data-dependent trip counts: each program walks its elements one by one
# and counts Collatz steps (a runtime `if` inside the `while`), and finds the first power of two
# not below the element with a second loop on a doubling scalar.


@triton.jit
def collatz_kernel(x_ptr, steps_ptr, pow2_ptr, n, PER_PROGRAM: tl.constexpr):
    pid = tl.program_id(0)
    for i in range(0, PER_PROGRAM):
        idx = pid * PER_PROGRAM + i
        if idx < n:
            v = tl.load(x_ptr + idx)
            steps = 0
            while v != 1:
                if v % 2 == 0:
                    v = v // 2
                else:
                    v = 3 * v + 1
                steps += 1
            tl.store(steps_ptr + idx, steps)
            p = 1
            target = tl.load(x_ptr + idx)
            while p < target:
                p = p * 2
            tl.store(pow2_ptr + idx, p)


CASES = [dict(n=21, per_program=8), dict(n=5, per_program=2)]


def make_inputs(rng, n, per_program):
    x = rng.integers(1, 300, n).astype(np.int32)
    x[0] = 1                                               # zero trips
    return dict(x=x, per_program=per_program)


def host(lib, x, per_program):
    n = lib.numel(x)
    steps = lib.output((n,), lib.int32)
    pow2 = lib.output((n,), lib.int32)
    h = collatz_kernel[(triton.cdiv(n, per_program),)](x, steps, pow2, n, PER_PROGRAM=per_program)
    return dict(steps=steps, pow2=pow2), [h]


def _collatz(v):
    s = 0
    while v != 1:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        s += 1
    return s


def reference(x, per_program):
    steps = np.array([_collatz(int(v)) for v in x], np.int32)
    pow2 = np.array([1 << (int(v) - 1).bit_length() for v in x], np.int32)
    return dict(steps=steps, pow2=pow2)
