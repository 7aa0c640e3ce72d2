import triton
import triton.language as tl
import numpy as np

# Histogram with vector atomics: each element adds 1 to its bin (tl.atomic_add) and raises the
# bin's running maximum of a payload value (tl.atomic_max on int32).


@triton.jit
def histogram_kernel(keys_ptr, vals_ptr, counts_ptr, binmax_ptr, n, num_bins, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    keys = tl.load(keys_ptr + offs, mask=mask, other=0)
    vals = tl.load(vals_ptr + offs, mask=mask, other=0)
    in_range = mask & (keys >= 0) & (keys < num_bins)        # out-of-range keys are ignored
    tl.atomic_add(counts_ptr + keys, 1, mask=in_range)
    tl.atomic_max(binmax_ptr + keys, vals, mask=in_range)


CASES = [dict(n=1000, num_bins=13), dict(n=300, num_bins=64)]


def make_inputs(rng, n, num_bins):
    return dict(keys=rng.integers(-2, num_bins + 2, n).astype(np.int32),
                vals=rng.integers(-1000, 1000, n).astype(np.int32),
                num_bins=num_bins)


def host(lib, keys, vals, num_bins):
    n = lib.numel(keys)
    counts = lib.zeros((num_bins,), lib.int32)
    binmax = lib.full((num_bins,), -(2 ** 31), lib.int32)
    h = histogram_kernel[(triton.cdiv(n, 128),)](keys, vals, counts, binmax, n, num_bins, BLOCK=128)
    return dict(counts=counts, binmax=binmax), [h]


def reference(keys, vals, num_bins):
    ok = (keys >= 0) & (keys < num_bins)
    counts = np.bincount(keys[ok], minlength=num_bins).astype(np.int32)
    binmax = np.full(num_bins, -(2 ** 31), np.int32)
    np.maximum.at(binmax, keys[ok], vals[ok])
    return dict(counts=counts, binmax=binmax)
