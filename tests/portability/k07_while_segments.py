import triton
import triton.language as tl
import numpy as np

# Ragged segment sums (CSR rows): program i reads its [start, end) from an offsets array and walks
# it with a `while` loop whose trip count depends on the data. A second, scalar `while` counts the
# Collatz steps of the segment's length.


@triton.jit
def segment_sum_kernel(vals_ptr, seg_ptr, sums_ptr, steps_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    start = tl.load(seg_ptr + pid)
    end = tl.load(seg_ptr + pid + 1)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    off = start
    while off < end:
        idx = off + tl.arange(0, BLOCK)
        acc += tl.load(vals_ptr + idx, mask=idx < end, other=0.0)
        off += BLOCK
    tl.store(sums_ptr + pid, tl.sum(acc, axis=0))
    v = end - start + 1
    steps = 0
    while v != 1:
        if v % 2 == 0:
            v = v // 2
        else:
            v = 3 * v + 1
        steps += 1
    tl.store(steps_ptr + pid, steps)


CASES = [dict(num_segments=9, max_len=200), dict(num_segments=4, max_len=40)]


def make_inputs(rng, num_segments, max_len):
    lengths = rng.integers(0, max_len, num_segments)
    lengths[0] = 0                                           # an empty segment: zero trips
    seg = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    return dict(vals=rng.standard_normal(int(seg[-1]) + 5).astype(np.float32), seg=seg)


def host(lib, vals, seg):
    num_segments = lib.numel(seg) - 1
    sums = lib.output((num_segments,), lib.float32)
    steps = lib.output((num_segments,), lib.int32)
    h = segment_sum_kernel[(num_segments,)](vals, seg, sums, steps, BLOCK=32)
    return dict(sums=sums, steps=steps), [h]


def _collatz(v):
    s = 0
    while v != 1:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        s += 1
    return s


def reference(vals, seg):
    sums = np.array([vals[a:b].astype(np.float64).sum() for a, b in zip(seg[:-1], seg[1:])], np.float32)
    steps = np.array([_collatz(int(b - a + 1)) for a, b in zip(seg[:-1], seg[1:])], np.int32)
    return dict(sums=sums, steps=steps)


TOLERANCE = dict(sums=(1e-5, 1e-5))
