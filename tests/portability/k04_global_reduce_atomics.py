import triton
import triton.language as tl
import numpy as np

# Global sum, maximum and minimum over all programs with scalar float atomics: each program
# reduces its block, then one atomic per statistic combines the partial results.


@triton.jit
def global_stats_kernel(x_ptr, sum_ptr, max_ptr, min_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.atomic_add(sum_ptr, tl.sum(x, axis=0))
    tl.atomic_max(max_ptr, tl.max(tl.where(mask, x, float("-inf")), axis=0))
    tl.atomic_min(min_ptr, tl.min(tl.where(mask, x, float("inf")), axis=0))


CASES = [dict(n=5000), dict(n=129)]


def make_inputs(rng, n):
    return dict(x=(rng.standard_normal(n) * 10).astype(np.float32))


def host(lib, x):
    n = lib.numel(x)
    total = lib.zeros((1,), lib.float32)
    big = lib.full((1,), float("-inf"), lib.float32)
    small = lib.full((1,), float("inf"), lib.float32)
    h = global_stats_kernel[(triton.cdiv(n, 256),)](x, total, big, small, n, BLOCK=256)
    return dict(total=total, big=big, small=small), [h]


def reference(x):
    return dict(total=np.array([x.astype(np.float64).sum()], np.float32),
                big=np.array([x.max()], np.float32), small=np.array([x.min()], np.float32))


TOLERANCE = dict(total=(1e-5, 1e-3))
