"""Standard-library functions written as @jit functions over existing primitives, as in Triton's
`triton/language/standard.py`: tl.sort, tl.topk, tl.flip and tl.swizzle2d. They add no IR ops: a backend that
lowers reshape, expand_dims, broadcast, xor/compare/select and tt.reduce (xor, max, min) runs them.

Both work on a "hypercube" view of the tensor: a dimension of size 2**k is reshaped into k dimensions
of size 2, one per bit of the index along it. Then

- the element whose index differs in one bit is reached without any data movement op:
  along a size-2 axis, `v ^ xor_sum(v, axis, keep_dims=True)` swaps the two halves (done on the
  values' bits, so it is exact for every float, NaN and -0.0 included);
- tl.flip reverses a dimension by swapping along each of its bits (index i -> 2**k - 1 - i);
- tl.sort is a bitonic sorting network along the last dimension (Batcher): stage s = 1..k merges
  runs of 2**s elements with compare-exchanges on bits s-1, ..., 0, the runs alternating between
  ascending and descending by bit s of the index, and the last stage in the requested order;
- tl.topk sorts runs of k elements, then repeatedly halves the dimension by keeping the elementwise
  max (min for the k smallest) of neighbouring (ascending, descending) runs, which holds the top k of
  both, and re-merges.

Like Triton: sort/topk work along the last dimension only; sizes must be powers of two (all block
dimensions are); ties and NaNs are placed as the network places them (NaN compares false).
"""
from __future__ import annotations

from ..runtime.jit import jit
from . import core as tl
from .builtins import arange, minimum, reshape, static_assert, static_range, where
from .reductions import max as _max
from .reductions import min as _min
from .reductions import xor_sum

# --- compile-time helpers ---------------------------------------------------------------------------

@tl.constexpr_function
def _log2(n):
    """log2 of a power of two (None if `n` is not one)."""
    n = int(n)
    if n <= 0 or n & (n - 1):
        return None
    return n.bit_length() - 1


@tl.constexpr_function
def _last_dim(dim, rank):
    """`dim` as a non-negative axis, None meaning the last one; -1 if it is outside the rank."""
    d = rank - 1 if dim is None else int(dim)
    if d < 0:
        d += rank
    return d if 0 <= d < rank else -1


@tl.constexpr_function
def _bits_type(dtype):
    """The signed integer type of `dtype`'s width: the values' bits are swapped through it."""
    return {1: tl.int1, 8: tl.int8, 16: tl.int16, 32: tl.int32, 64: tl.int64}[dtype.primitive_bitwidth]


@tl.constexpr_function
def _bit_axis_shape(rank, bit):
    """Shape [1, ..., 2, ..., 1] of a `rank`-dimensional hypercube with the 2 on the axis of index bit
    `bit` (bit 0 is the last axis)."""
    shape = [1] * rank
    shape[rank - 1 - bit] = 2
    return shape


@tl.constexpr_function
def _split_dim(shape, dim, nbits):
    """`shape` with dimension `dim` replaced by `nbits` dimensions of size 2."""
    shape = [int(s) for s in shape]
    return shape[:dim] + [2] * nbits + shape[dim + 1:]


@tl.constexpr_function
def _with_last(shape, n):
    return [int(s) for s in shape[:-1]] + [int(n)]


# --- the hypercube primitives -----------------------------------------------------------------------

@jit
def _index_bit(rank: tl.constexpr, bit: tl.constexpr):
    """0/1 (i32) per position of a [2] * rank hypercube: bit `bit` of the position's flat index."""
    return reshape(arange(0, 2), _bit_axis_shape(rank, bit))


@jit
def _swap_halves(v, axis: tl.constexpr):
    """v with the two halves of size-2 axis `axis` exchanged (v must hold integers)."""
    return v ^ xor_sum(v, axis, keep_dims=True)


@jit
def _neighbour(h, bit: tl.constexpr):
    """For each position of hypercube `h`, the element whose flat index differs in bit `bit`."""
    bits = h.to(_bits_type(h.dtype), bitcast=True)
    return _swap_halves(bits, len(h.shape) - 1 - bit).to(h.dtype, bitcast=True)


@jit
def _compare_exchange(h, descending, bit: tl.constexpr):
    """One column of the network: pairs (p, p ^ 2**bit) are put in order, ascending where
    `descending` (0/1, a constexpr or a block broadcast over h) is 0."""
    other = _neighbour(h, bit)
    upper = _index_bit(len(h.shape), bit)
    # the lower position keeps the smaller value (ascending), the upper one the larger
    take_other = (h > other) != ((upper ^ descending) != 0)      # i1 against i1: no widened copy of h > other
    return where(take_other, other, h)


@jit
def _bitonic_merge(h, stage: tl.constexpr, descending):
    """Merge runs of 2**stage elements along the last axes of h, each a bitonic sequence."""
    for j in static_range(stage):
        h = _compare_exchange(h, descending, stage - 1 - j)
    return h


@jit
def _merge_stage(h, stage: tl.constexpr, final: tl.constexpr, descending: tl.constexpr):
    """Merge runs of 2**stage elements: in the requested order at the final stage, else alternating
    by index bit `stage` (so that neighbouring runs form the bitonic runs of the next stage)."""
    if final:
        h = _bitonic_merge(h, stage, descending)
    else:
        h = _bitonic_merge(h, stage, _index_bit(len(h.shape), stage))
    return h


@jit
def _sort_last_dim(x, k: tl.constexpr, descending: tl.constexpr):
    """The k smallest (largest if descending) elements along the last dimension, in order."""
    n_bits: tl.constexpr = _log2(x.shape[len(x.shape) - 1])
    k_bits: tl.constexpr = _log2(k)
    if x.numel == 1:
        return x
    h = reshape(x, [2] * _log2(x.numel))
    # sort runs of k elements (the whole dimension when k is its size)
    for s in static_range(1, k_bits + 1):
        h = _merge_stage(h, s, s == n_bits, descending)
    # halve the dimension until k elements remain: keep the larger (smaller) of each pair of runs
    for s in static_range(k_bits + 1, n_bits + 1):
        if descending:
            h = _max(h, len(h.shape) - 1 - k_bits)
        else:
            h = _min(h, len(h.shape) - 1 - k_bits)
        h = _merge_stage(h, k_bits, s == n_bits, descending)
    return reshape(h, _with_last(x.shape, k))


# --- the library functions ----------------------------------------------------------------------

@jit
def sort(x, dim: tl.constexpr = None, descending: tl.constexpr = 0):
    """x sorted along dimension `dim` (None: the last; only the last dimension is supported, as in
    Triton), ascending unless `descending`."""
    _dim: tl.constexpr = _last_dim(dim, len(x.shape))
    static_assert(_dim == len(x.shape) - 1, "only minor dimension is currently supported")
    static_assert(_log2(x.shape[_dim]) is not None, "sort needs a power-of-two dimension")
    return _sort_last_dim(x, x.shape[_dim], descending)


@jit
def topk(x, k: tl.constexpr, dim: tl.constexpr = None, descending: tl.constexpr = True):
    """The k largest elements along dimension `dim` (None: the last; only the last is supported),
    largest first (the k smallest, smallest first, if not `descending`); k must be a power of two. As in Triton, when k is smaller than the dimension the
    halving steps go through tl.max, so sub-32-bit dtypes come back as int32/float32."""
    _dim: tl.constexpr = _last_dim(dim, len(x.shape))
    static_assert(_dim == len(x.shape) - 1, "only minor dimension is currently supported")
    static_assert(_log2(k) is not None, "topk needs a power-of-two k")
    static_assert(k <= x.shape[_dim], "topk needs k <= the size of the dimension")
    return _sort_last_dim(x, k, 1 if descending else 0)


@jit
def flip(x, dim=None):
    """x reversed along dimension `dim` (None: the last; negative counts from the end)."""
    _dim: tl.constexpr = _last_dim(dim, len(x.shape))
    static_assert(_dim >= 0, "flip: dim is out of range")
    n_bits: tl.constexpr = _log2(x.shape[_dim])
    static_assert(n_bits is not None, "flip needs a power-of-two dimension")
    if n_bits == 0:
        return x
    v = reshape(x.to(_bits_type(x.dtype), bitcast=True), _split_dim(x.shape, _dim, n_bits))
    for i in static_range(n_bits):
        v = _swap_halves(v, _dim + i)
    return reshape(v, x.shape).to(x.dtype, bitcast=True)


# --- tile orderings ---------------------------------------------------------------------------------

@jit
def swizzle2d(i, j, size_i, size_j, size_g):
    """Map (i, j) of a size_i x size_j row-major grid to the same cell of the grid numbered in groups
    of `size_g` rows, column by column within each group (the "grouped ordering" matmuls use so that
    consecutive programs share rows of A and columns of B). The last group may have fewer rows."""
    linear = i * size_j + j
    per_group = size_g * size_j
    first_row = (linear // per_group) * size_g
    rows = minimum(size_i - first_row, size_g)
    within = linear % per_group
    return first_row + within % rows, within // rows


# Triton's standard.py also defines these (`from triton.language.standard import zeros_like`); ours are
# elsewhere in `tl`, looked up there on first use
_FROM_TL = frozenset("""argmax argmin cdiv cumprod cumsum interleave max min ravel reduce_or sigmoid softmax squeeze
    sum unsqueeze zeros zeros_like""".split())


def __getattr__(name: str):
    if name in _FROM_TL:
        from .. import language
        return getattr(language, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | _FROM_TL)
