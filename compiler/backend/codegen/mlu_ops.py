"""MLU commands: layout changes that move data (copies to another shape, transposes, joins,
concatenations, slices, gathers). A shape change map-engines made a view moves nothing."""
from __future__ import annotations

from isa import mlu
from isa.types import Tile

from ...ir import Op
from ..analysis.plan import tile_shape


def _broadcast(g, op) -> None:
    """A splat of a 0-d tile, or a shape change that is no view: the source broadcast to the
    result's shape (a broadcast) or to its own full shape (a view of a smaller tile made whole)."""
    out = g.out_tile(op)
    full = out.shape if op.name in (Op.BROADCAST, Op.SPLAT) else tile_shape(op.src.type)
    g.e.emit(mlu.MluBcast, out=Tile(out.cb, out.mode, out.dtype, full), a=g.tile(op.src, op))


def _trans(g, op) -> None:
    g.e.emit(mlu.MluTranspose, out=g.out_tile(op), a=g.tile(op.src, op), perm=tuple(op.attrs["order"]))


def _join(g, op) -> None:
    g.e.emit(mlu.MluJoin, out=g.out_tile(op), a=g.tile(op.lhs, op), b=g.tile(op.rhs, op))


def _cat(g, op) -> None:
    g.e.emit(mlu.MluConcat, out=g.out_tile(op), a=g.tile(op.lhs, op), b=g.tile(op.rhs, op), axis=0)


def _split(g, op) -> None:
    rank = len(op.src.type.shape)
    for k, r in enumerate(op.results):
        if r in g.plan.loc:
            out = g.out_tile(op, r)
            g.e.emit(mlu.MluSlice, out=Tile(out.cb, out.mode, out.dtype, out.shape + (1,)), a=g.tile(op.src, op),
                     start=(0,) * (rank - 1) + (k,), step=(1,) * (rank - 1) + (2,))


def _gather(g, op) -> None:                 # tl.gather(src, index, axis)
    g.e.emit(mlu.MluGather, out=g.out_tile(op), a=g.tile(op.src, op), index=g.tile(op.index, op),
             axis=op.attrs["axis"])


def _extract_slice(g, op) -> None:
    g.e.emit(mlu.MluSlice, out=g.out_tile(op), a=g.tile(op.src, op), start=tuple(op.attrs["offsets"]),
             step=tuple(op.attrs["strides"]))


LOWER = {Op.SPLAT: _broadcast, Op.BROADCAST: _broadcast, Op.EXPAND_DIMS: _broadcast, Op.RESHAPE: _broadcast,
         Op.TRANS: _trans, Op.JOIN: _join, Op.CAT: _cat, Op.SPLIT: _split, Op.GATHER: _gather,
         Op.EXTRACT_SLICE: _extract_slice}
