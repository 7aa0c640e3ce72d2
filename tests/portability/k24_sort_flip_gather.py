import triton
import triton.language as tl
import numpy as np

# Functions of triton.language's standard library: per-row tl.sort (ascending and descending),
# tl.flip, tl.gather along a row by loaded indices, and tl.histogram of a block of bin ids.


@triton.jit
def sort_flip_gather_kernel(x_ptr, idx_ptr, bins_ptr, asc_ptr, desc_ptr, flip_ptr, gath_ptr, hist_ptr,
                            stride, NUM_BINS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols)
    tl.store(asc_ptr + row * stride + cols, tl.sort(x))
    tl.store(desc_ptr + row * stride + cols, tl.sort(x, descending=True))
    tl.store(flip_ptr + row * stride + cols, tl.flip(x, 0))
    idx = tl.load(idx_ptr + row * stride + cols)
    tl.store(gath_ptr + row * stride + cols, tl.gather(x, idx, axis=0))
    bins = tl.load(bins_ptr + row * stride + cols)
    tl.store(hist_ptr + row * NUM_BINS + tl.arange(0, NUM_BINS), tl.histogram(bins, NUM_BINS))


CASES = [dict(rows=4, block=64, num_bins=8), dict(rows=2, block=128, num_bins=16)]


def make_inputs(rng, rows, block, num_bins):
    return dict(x=rng.standard_normal((rows, block)).astype(np.float32),
                idx=rng.integers(0, block, (rows, block)).astype(np.int32),
                bins=rng.integers(0, num_bins, (rows, block)).astype(np.int32), num_bins=num_bins)


def host(lib, x, idx, bins, num_bins):
    rows, block = x.shape
    outs = {k: lib.output((rows, block), lib.float32) for k in ("asc", "desc", "flip", "gath")}
    outs["hist"] = lib.output((rows, num_bins), lib.int32)
    h = sort_flip_gather_kernel[(rows,)](x, idx, bins, outs["asc"], outs["desc"], outs["flip"], outs["gath"],
                                         outs["hist"], lib.stride(x, 0), NUM_BINS=num_bins, BLOCK=block)
    return outs, [h]


def reference(x, idx, bins, num_bins):
    hist = np.stack([np.bincount(r, minlength=num_bins) for r in bins]).astype(np.int32)
    return dict(asc=np.sort(x, axis=1), desc=-np.sort(-x, axis=1), flip=x[:, ::-1].copy(),
                gath=np.take_along_axis(x, idx, axis=1), hist=hist)
