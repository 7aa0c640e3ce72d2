"""DMA commands: box transfers (masks as valid extents, wrapped or clamped rows as remaps), rows picked
by an index block, element-wise gathers, scatters and atomics."""
from __future__ import annotations

from isa import dma

from .. import dialect as mtia


def _where(op) -> str:
    return f"line {op.loc.line}" if op.loc else ""


def _mask(g, op):
    return g.tile(op.mask, op) if op.mask is not None else None


def _remap(g, op) -> dict:
    """The DMA's wrap=[dim, start, bound] / clamp=[dim, start, bound, fill] field from a box op's remap."""
    kind = op.attrs.get("remap")
    return {kind: (op.attrs["remap_dim"], *g.xlist(op.remap))} if kind else {}


def _skip(g, op) -> dict:
    """The DMA's skip field (a block starting before its tensor) from a box op's skip operands."""
    return {"skip": g.xlist(op.skip)} if op.attrs.get("skip_args") else {}


def _bcast(op) -> dict:
    """A broadcast read's fields (compiler/backend/launch/broadcast.py chose its group at launch)."""
    return {k: op.attrs[k] for k in ("bcast", "bcast_col") if op.attrs.get(k)}


def _load_box(g, op) -> None:
    out = g.out_tile(op)
    pad = g.scalar_src(op.other) if op.other is not None else float(op.attrs.get("pad", 0))
    g.e.emit(dma.DmaIn, _where(op), dst=out, base=g.reg(op.ptr), strides=g.xlist(op.strides),
             valid=g.valid(op.valid, out.shape), pad=pad, unaligned=int(bool(op.attrs.get("unaligned"))),
             **_remap(g, op), **_skip(g, op), **_bcast(op))


def _store_box(g, op) -> None:
    src = g.tile(op.value, op)
    g.e.emit(dma.DmaOut, _where(op), src=src, base=g.reg(op.ptr), strides=g.xlist(op.strides),
             valid=g.valid(op.valid, src.shape), unaligned=int(bool(op.attrs.get("unaligned"))),
             **_remap(g, op), **_skip(g, op))


def _gather(g, op) -> None:
    g.e.emit(dma.DmaGather, dst=g.out_tile(op), base=g.reg(op.ptr), offsets=g.tile(op.offsets, op),
             mask=_mask(g, op), pad=float(op.attrs.get("pad", 0) or 0))


def _load_rows(g, op) -> None:
    row_stride, valid_cols = g.xlist([op.row_stride, op.valid_cols])
    wrap = {"wrap": g.xlist(op.wrap)} if op.attrs.get("wrap_args") else {}
    g.e.emit(dma.DmaRows, _where(op), dst=g.out_tile(op), base=g.reg(op.ptr), index=g.tile(op.index, op),
             row_stride=row_stride, valid_cols=valid_cols, pad=float(op.attrs.get("pad", 0) or 0), mask=_mask(g, op),
             **wrap)


def _scatter(g, op) -> None:
    g.e.emit(dma.DmaScatter, src=g.tile(op.value, op), base=g.reg(op.ptr), offsets=g.tile(op.offsets, op),
             mask=_mask(g, op))


def _atomic(g, op) -> None:
    g.e.emit(dma.DmaAtomic, op=op.attrs["kind"], dst=g.out_tile(op) if op.results else None, base=g.reg(op.ptr),
             offsets=g.tile(op.offsets, op), val=g.tile(op.value, op), mask=_mask(g, op))


def _atomic_box(g, op) -> None:
    val = g.tile(op.value, op)
    g.e.emit(dma.DmaAtomic, _where(op), op=op.attrs["kind"], dst=g.out_tile(op) if op.results else None,
             base=g.reg(op.ptr), offsets=None, val=val, strides=g.xlist(op.strides),
             valid=g.valid(op.valid, val.shape), unaligned=int(bool(op.attrs.get("unaligned"))))


def _cas(g, op) -> None:
    g.e.emit(dma.DmaCas, dst=g.out_tile(op), base=g.reg(op.ptr), offsets=g.tile(op.offsets, op),
             cmp=g.tile(op.cmp, op), val=g.tile(op.value, op))


LOWER = {mtia.LOAD_BOX: _load_box, mtia.STORE_BOX: _store_box, mtia.GATHER: _gather, mtia.LOAD_ROWS: _load_rows,
         mtia.SCATTER: _scatter, mtia.ATOMIC: _atomic,
         mtia.ATOMIC_BOX: _atomic_box, mtia.CAS: _cas}
