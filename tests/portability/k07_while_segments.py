import triton
import triton.language as tl
import numpy as np

# Ragged segment sums (CSR rows): program i reads its [start, end) from an offsets array and walks
# it with a `while` loop whose trip count depends on the data; the loop carries a block accumulator.


@triton.jit
def segment_sum_kernel(vals_ptr, seg_ptr, sums_ptr, BLOCK: tl.constexpr):
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


CASES = [dict(num_segments=9, max_len=200), dict(num_segments=4, max_len=40)]


def make_inputs(rng, num_segments, max_len):
    lengths = rng.integers(0, max_len, num_segments)
    lengths[0] = 0                                           # an empty segment: zero trips
    seg = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    return dict(vals=rng.standard_normal(int(seg[-1]) + 5).astype(np.float32), seg=seg)


def host(lib, vals, seg):
    num_segments = lib.numel(seg) - 1
    sums = lib.output((num_segments,), lib.float32)
    h = segment_sum_kernel[(num_segments,)](vals, seg, sums, BLOCK=32)
    return dict(sums=sums), [h]


def reference(vals, seg):
    sums = np.array([vals[a:b].astype(np.float64).sum() for a, b in zip(seg[:-1], seg[1:])], np.float32)
    return dict(sums=sums)


TOLERANCE = dict(sums=(1e-5, 1e-5))
