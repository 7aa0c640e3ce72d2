"""Index tensors for a timing-only run: which meta inputs index what, and values from a declared distribution.

A timing-only run computes nothing, but a gather's DMA addresses are its index values: an embedding
bag's cycles depend on which rows it reads (how many hit the LLC, how they fall on the DRAM channels).
So the integer inputs that index a table are the one kind of data `estimate` makes, from a declared
distribution of rows:

    "uniform"                       every row equally likely
    ("zipf", s)                     row of rank r (0 the hottest) with probability ~ 1 / (r + 1)**s;
                                    ranks are spread over the table by a fixed permutation (hot rows
                                    are not neighbours in a real table)
    fn(shape, high, rng)            any numpy array of ints in [0, high) of `shape`

How many rows an input indexes is read off a dry run of the model on the meta device (shapes only,
no memory): `IndexWatcher` sees every embedding, gather and indexing op and which input's storage its
indices are.
"""
from __future__ import annotations

import math

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

aten = torch.ops.aten
ZIPF_EXACT_ROWS = 1 << 22     # up to this many rows the Zipf CDF is tabulated; past it, its continuous form

# op -> (argument of the indexed tensor, argument of the index tensor(s), the dimension it indexes:
# an int, the argument holding it (a str), or None for a list of indices, one per leading dimension)
_INDEXING = {
    aten.embedding.default: (0, 1, 0),
    aten._embedding_bag.default: (0, 1, 0),
    aten._embedding_bag_forward_only.default: (0, 1, 0),
    aten.embedding_bag.default: (0, 1, 0),
    aten.embedding_bag.padding_idx: (0, 1, 0),
    aten.index_select.default: (0, 2, "1"),
    aten.gather.default: (0, 2, "1"),
    aten.index_add.default: (0, 2, "1"),
    aten.index_copy.default: (0, 2, "1"),
    aten.index.Tensor: (0, 1, None),
    aten.index_put.default: (0, 1, None),
    aten.index_put_.default: (0, 1, None),
    aten._unsafe_index.Tensor: (0, 1, None),
}


class IndexWatcher(TorchDispatchMode):
    """Over a meta-device run: {storage of a watched input: rows it indexes} for each index it is used as."""

    def __init__(self, watched: set):
        super().__init__()
        self.watched = watched
        self.rows: dict[int, int] = {}

    def _see(self, idx, table: torch.Tensor, dim: int) -> None:
        if isinstance(idx, torch.Tensor) and not idx.dtype.is_floating_point:
            key = idx.untyped_storage()._cdata
            if key in self.watched and dim < table.dim():
                high = int(table.shape[dim])
                self.rows[key] = min(self.rows.get(key, high), high)    # valid for every table it indexes

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        spec = _INDEXING.get(func)
        if spec is not None:
            table_arg, idx_arg, dim = spec
            table, idx = args[table_arg], args[idx_arg]
            if dim is None:
                for d, i in enumerate(idx):
                    self._see(i, table, d)
            else:
                self._see(idx, table, int(args[int(dim)]) % table.dim() if isinstance(dim, str) else dim)
        return func(*args, **(kwargs or {}))


def rows_indexed(model, args, kwargs, watched: set) -> dict[int, int]:
    """{meta storage: rows} for the integer meta tensors in `watched` that index a table in model(*args)."""
    watcher = IndexWatcher(watched)
    try:
        with torch.no_grad(), watcher:
            model(*args, **kwargs)
    except (RuntimeError, NotImplementedError) as e:
        raise ValueError(f"estimate: the model's dry run on the meta device, which finds how many rows each "
                         f"integer meta tensor indexes, failed ({str(e).splitlines()[0]}); put the model and its "
                         "float inputs on the meta device, or give the index tensors as CPU tensors") from e
    return watcher.rows


def integer_meta_tensors(tree) -> set:
    return {t.untyped_storage()._cdata for t in tree_leaves(tree)
            if isinstance(t, torch.Tensor) and t.is_meta and not t.dtype.is_floating_point and t.dtype != torch.bool}


class Distribution:
    """A named way to draw index values: `draw(shape, high, rng)` -> int64 array in [0, high)."""

    def __init__(self, name: str, draw):
        self.name, self._draw = name, draw

    def draw(self, shape: tuple, high: int, rng: np.random.Generator) -> np.ndarray:
        values = np.asarray(self._draw(tuple(shape), int(high), rng)).astype(np.int64).reshape(shape)
        if values.size and (values.min() < 0 or values.max() >= high):
            raise ValueError(f"index distribution {self.name} drew values outside [0, {high})")
        return values


def _uniform(shape, high, rng):
    return rng.integers(0, high, size=shape)


def _zipf(s: float):
    def draw(shape, high, rng):
        u = rng.random(size=shape)
        if high <= ZIPF_EXACT_ROWS:
            cdf = np.cumsum(1.0 / np.arange(1, high + 1, dtype=np.float64) ** s)
            rank = np.searchsorted(cdf / cdf[-1], u, side="right")
        else:       # the inverse CDF of density ~ x**-s on [1, high + 1)
            if abs(s - 1) < 1e-9:
                x = np.exp(u * math.log(high + 1))
            else:
                x = (1 + u * ((high + 1) ** (1 - s) - 1)) ** (1 / (1 - s))
            rank = np.floor(x).astype(np.int64) - 1
        return _spread(np.minimum(rank, high - 1), high)
    return draw


def _spread(rank: np.ndarray, high: int) -> np.ndarray:
    """Ranks onto rows by r -> (r * p + high // 3) mod high, a permutation when p and high are coprime:
    the hottest rows land far apart, as in a real table, and the same rows every run."""
    p = 2_654_435_761          # a prime (Knuth's multiplicative hash); if it divides high, the next one
    if high % p == 0:
        p = 2_654_435_789
    return (rank.astype(object) * p + high // 3).astype(object) % high if high > (1 << 31) else \
        (rank.astype(np.int64) * p + high // 3) % high


def distribution(spec) -> Distribution:
    """The Distribution of `estimate(..., index_distribution=spec)` (None: uniform)."""
    if spec is None or spec == "uniform":
        return Distribution("uniform", _uniform)
    if isinstance(spec, tuple) and len(spec) == 2 and spec[0] == "zipf":
        s = float(spec[1])
        if s <= 0:
            raise ValueError(f"a Zipf exponent is positive, got {s}")
        return Distribution(f"zipf(s={s:g})", _zipf(s))
    if callable(spec):
        return Distribution(getattr(spec, "__name__", "custom"), spec)
    raise ValueError(f"index_distribution: 'uniform', ('zipf', s) or a callable(shape, high, rng), got {spec!r}")
