"""DMA semantics: boxes, gathers, scatters and atomics between global memory and the local store.

Reads of global memory happen when the transfer starts and writes when it completes (see the DMA
engine); both are checked against the array they touch.
"""
from __future__ import annotations

import numpy as np

from isa import dma
from isa import float_minmax as minmax
from isa.types import DRAM_BASE, np_dtype

from ..errors import SanitizerError
from . import semantics
from .tiles import source, view


def _clip(shape, valid) -> tuple[int, ...]:
    if not valid:
        return tuple(shape)
    if len(valid) != len(shape):
        raise SanitizerError(f"valid extents {list(valid)} do not match the tile's {len(shape)} dimensions")
    return tuple(max(0, min(int(v), n)) for v, n in zip(valid, shape))


def _elements(ctx, base: int, offsets: np.ndarray, dtype: np.dtype, cmd, kind: str):
    """(typed view of the allocation, element indices) for base + offsets * itemsize."""
    a, byte_offs = ctx.gmem.element_addresses(base, offsets, dtype.itemsize, cmd.oob(kind))
    if a is None:
        return None, None
    rel = base - a.base
    if rel % dtype.itemsize:
        raise SanitizerError(f"{cmd.where()}: misaligned {kind}: address {base:#x} is not aligned to its "
                             f"{dtype.itemsize}-byte elements")
    typed = np.ndarray((a.data.size // dtype.itemsize,), dtype, buffer=a.data)
    return typed, byte_offs // dtype.itemsize


def _mask(ctx, cmd, shape) -> np.ndarray | None:
    if cmd.ins.mask is None:
        return None
    return np.broadcast_to(view(ctx.ls, cmd.addr["mask"], cmd.ins.mask).astype(np.bool_), shape)


def _offsets(ctx, cmd, shape) -> np.ndarray:
    return np.broadcast_to(view(ctx.ls, cmd.addr["offsets"], cmd.ins.offsets).astype(np.int64), shape)


def boxes(vals, box: tuple[int, ...], isz: int, where) -> list:
    """The plain boxes a box descriptor covers: (byte base, tile slices, shape, element strides) each.
    One box, unless a dimension is wrapped or clamped (`wrap=[d, s, m]`, `clamp=[d, s, b, f]`): then one
    per contiguous part of that dimension (a wrapped part steps by 1, a clamped tail repeats row f)."""
    base, strides = vals["base"], tuple(vals["strides"])
    full = tuple(slice(0, n) for n in box)
    wrap, clamp = vals.get("wrap", ()), vals.get("clamp", ())
    if not wrap and not clamp:
        return [(base, full, box, strides)]
    if len(wrap) == 3 and not clamp:       # the common wrap: the box does not reach the bound, one part
        d, start, bound = int(wrap[0]), int(wrap[1]), int(wrap[2])
        if 0 <= d < len(box) and start >= 0 and bound > 0 and start % bound + box[d] <= bound:
            return [(base + start % bound * strides[d] * isz, full, box, strides)]
    spec = wrap or clamp
    if wrap and clamp or len(spec) != (3 if wrap else 4) or not 0 <= spec[0] < len(box):
        raise SanitizerError(f"{where()}: wrap=[dim, start, bound] or clamp=[dim, start, bound, fill] (one of "
                             f"them, dim < {len(box)}), got wrap={list(wrap)}, clamp={list(clamp)}")
    d, start, bound = (int(x) for x in spec[:3])
    n = box[d]
    if wrap:
        parts = wrap_parts(start, bound, n, where)
    else:
        k = min(max(bound - start, 0), n)
        parts = [p for p in ((0, k, start, 1), (k, n - k, int(spec[3]), 0)) if p[1]]
    out = []
    for i0, count, j0, step in parts:
        sl = list(full)
        sl[d] = slice(i0, i0 + count)
        shape = list(box)
        shape[d] = count
        st = list(strides)
        st[d] = strides[d] * step
        out.append((base + j0 * strides[d] * isz, tuple(sl), tuple(shape), tuple(st)))
    return out


def wrap_parts(start: int, bound: int, n: int, where) -> list:
    """(first index, count, first j, step 1) of each contiguous part of j = (start + i) rem bound, i < n."""
    if bound <= 0:
        raise SanitizerError(f"{where()}: wraps a dimension by {bound}: the bound of `%` must be positive")
    if start < 0:                     # C's remainder keeps the dividend's sign: cut where j does not step by 1
        j = np.fmod(start + np.arange(n, dtype=np.int64), bound)
        cuts = [0, *(np.flatnonzero(np.diff(j) != 1) + 1).tolist(), n]
        return [(i0, i1 - i0, int(j[i0]), 1) for i0, i1 in zip(cuts, cuts[1:])]
    parts, i, j = [], 0, start % bound
    while i < n:
        count = min(n - i, bound - j)
        parts.append((i, count, j, 1))
        i, j = i + count, 0
    return parts


def skipped(vals, box: tuple[int, ...], isz: int, where) -> tuple[dict, tuple[int, ...], tuple]:
    """A box whose first `skip[k]` indices of each dimension k are clipped off (dma.in/dma.out's `skip`),
    as the box that is left: (its fields, with the base moved to its first element; its shape; the
    slices of the tile it covers). The fields as they are when nothing is skipped."""
    skip = vals.get("skip") or ()
    if not any(skip):
        return vals, box, tuple(slice(0, n) for n in box)
    if len(skip) != len(box):
        raise SanitizerError(f"{where()}: skip counts {list(skip)} do not match the tile's {len(box)} dimensions")
    if vals.get("wrap") or vals.get("clamp"):
        raise SanitizerError(f"{where()}: a box that skips its first elements cannot also wrap or clamp a dimension")
    lo = tuple(max(0, min(int(k), n)) for k, n in zip(skip, box))
    base = vals["base"] + sum(k * int(s) for k, s in zip(lo, vals["strides"])) * isz
    return dict(vals, base=base), tuple(n - k for k, n in zip(lo, box)), tuple(slice(k, n) for k, n in zip(lo, box))


def _within(outer: tuple, inner: tuple) -> tuple:
    """Slices `inner` of a sub-tile taken at `outer` of the tile: the same elements, as slices of the tile."""
    return tuple(slice(o.start + i.start, o.start + i.stop) for o, i in zip(outer, inner))


@semantics(dma.DmaIn)
def dma_in(ctx, cmd):
    ins, v = cmd.ins, cmd.vals
    dst = view(ctx.ls, cmd.addr["dst"], ins.dst)
    v, box, at = skipped(v, _clip(ins.dst.shape, v["valid"]), dst.dtype.itemsize, cmd.where)
    if box != ins.dst.shape:
        dst[...] = source(ctx, cmd, "pad", dst.dtype)
    if 0 in box:
        return
    for base, sl, shape, strides in boxes(v, box, dst.dtype.itemsize, cmd.where):
        src = ctx.gmem.box_view(base, dst.dtype, shape, strides, cmd.oob("load"))
        ctx.gmem.track(base, dst.dtype.itemsize, shape, strides, False, cmd.where)
        dst[_within(at, sl)] = src


@semantics(dma.DmaOut)
def dma_out(ctx, cmd):
    ins, v = cmd.ins, cmd.vals
    src = view(ctx.ls, cmd.addr["src"], ins.src)
    v, box, at = skipped(v, _clip(ins.src.shape, v["valid"]), src.dtype.itemsize, cmd.where)
    if 0 in box:
        return
    for base, sl, shape, strides in boxes(v, box, src.dtype.itemsize, cmd.where):
        dst = ctx.gmem.box_view(base, src.dtype, shape, strides, cmd.oob("store"))
        part = src[_within(at, sl)]
        if 0 in strides:             # a clamped tail: several elements to one address, the last lands
            dst[...] = part[tuple(slice(-1, None) if s == 0 else slice(None) for s in strides)]
        else:
            dst[...] = part
        ctx.gmem.track(base, src.dtype.itemsize, shape, strides, True, cmd.where)


@semantics(dma.DmaGather)
def gather(ctx, cmd):
    ins = cmd.ins
    dst = view(ctx.ls, cmd.addr["dst"], ins.dst)
    offs = _offsets(ctx, cmd, dst.shape)
    mask = _mask(ctx, cmd, dst.shape)
    sel = offs if mask is None else offs[mask]
    typed, idx = _elements(ctx, cmd.vals["base"], sel, dst.dtype, cmd, "load")
    if mask is None:
        if typed is not None:
            dst[...] = typed[idx].reshape(dst.shape)
        return
    dst[...] = source(ctx, cmd, "pad", dst.dtype)
    if typed is not None and idx.size:
        dst[mask] = typed[idx]


@semantics(dma.DmaScatter)
def scatter(ctx, cmd):
    ins = cmd.ins
    src = view(ctx.ls, cmd.addr["src"], ins.src)
    offs = _offsets(ctx, cmd, src.shape)
    mask = _mask(ctx, cmd, src.shape)
    vals = src if mask is None else src[mask]
    sel = offs if mask is None else offs[mask]
    typed, idx = _elements(ctx, cmd.vals["base"], sel.reshape(-1), src.dtype, cmd, "store")
    if typed is not None and idx.size:
        typed[idx] = np.asarray(vals).reshape(-1)


def _row_mask(ctx, cmd, nrows: int) -> np.ndarray:
    return view(ctx.ls, cmd.addr["mask"], cmd.ins.mask).reshape(-1)[:nrows].astype(np.bool_)


@semantics(dma.DmaRows)
def rows(ctx, cmd):
    ins, v = cmd.ins, cmd.vals
    dst = view(ctx.ls, cmd.addr["dst"], ins.dst)
    index = view(ctx.ls, cmd.addr["index"], ins.index).reshape(-1).astype(np.int64)
    nrows, ncols = dst.shape[0], int(np.prod(dst.shape[1:]))
    cols = ncols if not v["valid_cols"] else min(int(v["valid_cols"]), ncols)
    flat = dst.reshape(nrows, ncols)
    flat[...] = source(ctx, cmd, "pad", dst.dtype)
    live = np.arange(nrows) if ins.mask is None else np.flatnonzero(_row_mask(ctx, cmd, nrows))
    if live.size == 0 or cols == 0:
        return
    offs = index[live][:, None] * int(v["row_stride"]) + row_columns(v.get("wrap", ()), cols, cmd.where)[None, :]
    typed, idx = _elements(ctx, v["base"], offs, dst.dtype, cmd, "load")
    flat[live, :cols] = typed[idx]


def row_columns(wrap, cols: int, where) -> np.ndarray:
    """The element offsets of a dma.rows row's columns: 0..cols-1, or (start + c) rem bound."""
    if not wrap:
        return np.arange(cols)
    if len(wrap) != 2:
        raise SanitizerError(f"{where()}: wrap=[start, bound] for dma.rows, got {list(wrap)}")
    parts = wrap_parts(int(wrap[0]), int(wrap[1]), cols, where)
    return np.concatenate([np.arange(j0, j0 + n) for _, n, j0, _ in parts])


_RMW = {
    "add": lambda old, x: old + x, "max": minmax.maximum, "min": minmax.minimum, "xchg": lambda old, x: x,
    "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
}


def _box_offsets(cmd, shape) -> tuple[np.ndarray, np.ndarray | None]:
    """A box atomic's element offsets (row-major) and which elements are inside its valid extents."""
    strides, valid = cmd.vals["strides"], cmd.vals["valid"]
    if len(strides) != len(shape) or (valid and len(valid) != len(shape)):
        raise SanitizerError(f"{cmd.where()}: {len(strides)} strides and {len(valid)} valid extents for a "
                             f"{len(shape)}-dimensional tile")
    idx = np.indices(shape, np.int64).reshape(len(shape), -1)
    offs = (idx * np.array(strides, np.int64)[:, None]).sum(axis=0)
    if not valid:
        return offs, None
    return offs, (idx < np.array(valid, np.int64)[:, None]).all(axis=0)


@semantics(dma.DmaAtomic)
def atomic(ctx, cmd):
    ins = cmd.ins
    val = view(ctx.ls, cmd.addr["val"], ins.val)
    shape = ins.dst.shape if ins.dst is not None else val.shape
    if ins.offsets is None:
        offs, mask = _box_offsets(cmd, shape)
    else:
        offs, mask = _offsets(ctx, cmd, shape).reshape(-1), _mask(ctx, cmd, shape)
    vals = np.broadcast_to(val, shape).reshape(-1)
    live = np.arange(offs.size) if mask is None else np.flatnonzero(mask.reshape(-1))
    dtype = np_dtype(ins.val.dtype)
    old = np.zeros(offs.size, dtype)
    if live.size:
        typed, idx = _elements(ctx, cmd.vals["base"], offs[live], dtype, cmd, "atomic")
        fn = _RMW[ins.op]
        with np.errstate(all="ignore"):
            if np.unique(idx).size == idx.size:
                old[live] = typed[idx]
                typed[idx] = fn(typed[idx], vals[live].astype(dtype))
            else:   # repeated addresses: one element at a time, in row-major order
                for k, i in zip(live, idx):
                    old[k] = typed[i]
                    typed[i] = fn(typed[i], vals[k].astype(dtype))
    if ins.dst is not None:
        view(ctx.ls, cmd.addr["dst"], ins.dst)[...] = old.reshape(shape)


@semantics(dma.DmaCas)
def cas(ctx, cmd):
    ins = cmd.ins
    shape = ins.dst.shape
    offs = _offsets(ctx, cmd, shape).reshape(-1)
    cmpv = np.broadcast_to(view(ctx.ls, cmd.addr["cmp"], ins.cmp), shape).reshape(-1)
    val = np.broadcast_to(view(ctx.ls, cmd.addr["val"], ins.val), shape).reshape(-1)
    dtype = np_dtype(ins.dst.dtype)
    typed, idx = _elements(ctx, cmd.vals["base"], offs, dtype, cmd, "atomic")
    old = np.zeros(offs.size, dtype)
    for k, i in enumerate(idx):
        old[k] = typed[i]
        if typed[i] == cmpv[k]:
            typed[i] = val[k]
    view(ctx.ls, cmd.addr["dst"], ins.dst)[...] = old.reshape(shape)


@semantics(dma.DmaPrefetch)
def prefetch(ctx, cmd):
    """No data moves: only the LLC's state changes (in the timing model)."""


@semantics(dma.DmaDiscard)
def discard(ctx, cmd):
    """A dead tensor's bytes become undefined: filled with 0xff (NaN for floats), so a kernel that
    reads what it declared dead sees garbage here as it would on the chip."""
    base, n = int(cmd.vals["base"]), int(cmd.vals["nbytes"])
    if n <= 0 or base < DRAM_BASE:
        return
    a, off = ctx.gmem.locate(base, base + n, cmd.oob("discard"))
    a.data[off: off + n] = 0xFF
