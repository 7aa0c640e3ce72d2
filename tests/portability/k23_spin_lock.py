import triton
import triton.language as tl
import numpy as np

# A lock-protected read-modify-write (the pattern of the layer-norm backward tutorial): each program
# reduces its block, takes a spin lock with tl.atomic_cas, updates per-group partial sums with
# ordinary loads and stores, counts its visit, and releases the lock with tl.atomic_xchg.


@triton.jit
def locked_group_sum_kernel(x_ptr, sums_ptr, visits_ptr, locks_ptr, n, GROUPS: tl.constexpr,
                            BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    partial = tl.sum(x, axis=0)
    group = pid % GROUPS
    lock = locks_ptr + group
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    tl.store(sums_ptr + group, tl.load(sums_ptr + group) + partial)
    tl.store(visits_ptr + group, tl.load(visits_ptr + group) + 1)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


CASES = [dict(n=3000, groups=4), dict(n=500, groups=1)]


def make_inputs(rng, n, groups):
    return dict(x=rng.standard_normal(n).astype(np.float32), groups=groups)


def host(lib, x, groups):
    n = lib.numel(x)
    sums = lib.zeros((groups,), lib.float32)
    visits = lib.zeros((groups,), lib.int32)
    locks = lib.zeros((groups,), lib.int32)
    h = locked_group_sum_kernel[(triton.cdiv(n, 128),)](x, sums, visits, locks, n, GROUPS=groups, BLOCK=128)
    return dict(sums=sums, visits=visits, locks=locks), [h]


def reference(x, groups):
    n = x.size
    programs = -(-n // 128)
    sums = np.zeros(groups, np.float64)
    visits = np.zeros(groups, np.int32)
    for p in range(programs):
        sums[p % groups] += x[p * 128:(p + 1) * 128].astype(np.float64).sum()
        visits[p % groups] += 1
    return dict(sums=sums.astype(np.float32), visits=visits, locks=np.zeros(groups, np.int32))


TOLERANCE = dict(sums=(1e-5, 1e-4))
