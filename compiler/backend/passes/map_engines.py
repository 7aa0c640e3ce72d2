"""Map every op that touches tiles onto the unit that runs it, and say so in the IR (`engine = "se"`).

The rules live in `target.py`; this pass applies them once, and bufferize, allocate-ls and codegen
read the attribute. Most ops run on one unit whatever reads them (`target.unit_of`). Constants,
splats and shape changes are decided from their source and their readers, in program order:
- a constant or a splat of a scalar is "uniform" (no tile: the SE and RVV readers take the scalar)
  unless some reader needs the whole tile, then the SE fills one (and the readers that take scalars
  read a uniform copy, so the tile lives no longer than its tile readers); a zero read only as
  tl.dot's accumulator is uniform too (the DPE writes a @ b fresh);
- a splat of a 0-d tile is a "view" of it when only the SE reads it (it broadcasts), else the MLU
  copies it out;
- expand_dims / reshape of a whole tile are views (same bytes); a broadcast read only by the SE is a
  view with the smaller shape; a transpose read only as a tl.dot operand is a view the DPE reads
  transposed; any other shape change is an MLU copy;
- with `fold_casts`, a widening cast (f16 -> f32, i32 -> f32) read only by SE arithmetic that
  converts its sources anyway (target.CONVERTS_SOURCES) is a view of the narrow tile, and a
  narrowing one (f32 -> f16) of such arithmetic's result, read by nothing else, is a view of that
  result written narrow (`mtia.writes` names the type): no command either way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...ir import Op
from ...ir.core import Operation, Value
from ..target import (
    BROADCASTS,
    CONVERTS_FLOAT_SOURCES,
    CONVERTS_SOURCES,
    LAYOUT_OPS,
    NARROWED_BY_WRITER,
    TAKES_SCALARS,
    VIEW_OPS,
    WIDENED_BY_READERS,
    unit_of,
)


@dataclass(frozen=True)
class MapEngines:
    fold_casts: bool = True
    dpe_dtypes: tuple[str, ...] = ()      # what the config's DPE multiplies (a tl.dot on another type: RVV)
    name: ClassVar[str] = "map-engines"

    def run(self, module) -> None:
        ops = list(_walk(module))
        engines = {op: e for op in ops if (e := unit_of(op, self.dpe_dtypes)) is not None}
        views: dict[Value, tuple] = {}          # view result -> (tile shape, transposed) of the bytes it shows
        ops = _split_mixed_constants(ops, engines)
        for op in ops:
            if op.name in LAYOUT_OPS and op.results and op.results[0].type.is_block():
                engines[op] = _layout_engine(op, engines, views)
        if self.fold_casts:
            for op in ops:
                if _widened_by_readers(op, engines, views):
                    engines[op] = "view"
                elif _narrowed_by_writer(op, engines):
                    engines[op] = "view"
                    op.x.owner.attrs["mtia.writes"] = op.results[0].type.scalar.ir
        for op, engine in engines.items():
            op.attrs["engine"] = engine


def _split_mixed_constants(ops: list, engines: dict) -> list:
    """A constant (or a splat of a scalar) read both by units that take scalars and by one that needs
    the whole tile (a loop's zero accumulator that CSE merged with the `0` of a later `x >= 0`) becomes
    two ops: the scalar readers read a uniform copy, so the tile's life ends with its tile readers
    (the loop can accumulate in place) instead of with the last comparison."""
    out = []
    for op in ops:
        out.append(op)
        if not (op.name == Op.CONSTANT or (op.name == Op.SPLAT and not _stored(op.src, engines))) or \
                not op.results or not op.results[0].type.is_block():
            continue
        uses = list(op.results[0].uses)
        scalar = [u for u in uses if _reader(u, engines) in TAKES_SCALARS]
        if not scalar or len(scalar) == len(uses):
            continue
        copy = op.clone()
        op.parent.insert(op.parent.ops.index(op) + 1, copy)
        for u in scalar:
            u.op.set_operand(u.index, copy.results[0])
        out.append(copy)
    return out


def _walk(op: Operation):
    """Every op in program order, except inside tt.reduce / tt.scan combine regions (the engine
    runs the whole combine)."""
    yield op
    if op.name in (Op.REDUCE, Op.SCAN):
        return
    for region in op.regions:
        for inner in region.block.ops:
            yield from _walk(inner)


def _reader(use, engines) -> str | None:
    """The engine of the op reading a value (shape changes read whole tiles, whatever they become).
    A tl.dot reads its a and b as tiles whichever unit runs it (the vector core's dot too)."""
    if use.op.name in LAYOUT_OPS:
        return None
    if use.op.name == Op.DOT and use.index < 2:
        return "dpe"
    if use.op.name == Op.PRINT:
        return "print"          # the SE's print reads every element: a whole tile, no uniform or broadcast view
    return engines.get(use.op)


def _stored(v: Value, engines) -> bool:
    """Whether v lives in a tile: engine results, views of them, and block values carried by control flow."""
    owner = v.owner
    if not isinstance(owner, Operation):
        return v.type.is_block()
    e = engines.get(owner)
    if e in ("uniform", "core"):
        return False
    return e is not None or v.type.is_block()


# Integer sources the SE converts to its f32 compute type as it reads them (one rounding to nearest
# even). That equals the cast when the cast is to f32, or when every value of the integer type is
# exact in the cast's type (i8 in f16); i16 -> f16 rounds 12101 to 12104 first, so it stays a cast.
_SIGNED_MAGNITUDE_BITS = {"i8": 7, "i16": 15, "i32": 31}
_SIGNIFICANT_BITS = {"f16": 11, "bf16": 8, "f32": 24, "f64": 53}


def _int_to_float_is_the_ses(src: str, dst: str) -> bool:
    bits = _SIGNED_MAGNITUDE_BITS.get(src)
    return bits is not None and (dst == "f32" or bits <= _SIGNIFICANT_BITS.get(dst, 0))


def _widened_by_readers(op: Operation, engines: dict, views: dict) -> bool:
    """A widening cast on the SE whose every reader is SE arithmetic that converts its sources to
    the cast's type as it reads them: the readers can read the cast's (untransposed) source tile."""
    if op.name not in WIDENED_BY_READERS or engines.get(op) != "se" or not op.results[0].type.is_block():
        return False
    src = op.x
    if not _stored(src, engines) or _tile(src, views)[1]:
        return False
    if op.name == Op.SITOFP and not _int_to_float_is_the_ses(src.type.scalar.ir, op.results[0].type.scalar.ir):
        return False
    readers = CONVERTS_FLOAT_SOURCES if op.name == Op.EXTF else CONVERTS_SOURCES
    uses = list(op.results[0].uses)
    return bool(uses) and all(engines.get(u.op) == "se" and u.op.name in readers for u in uses)


def _narrowed_by_writer(op: Operation, engines: dict) -> bool:
    """f32 -> f16/bf16 of SE arithmetic's result that nothing else reads: the SE computes in f32 and
    rounds once to the output tile's type, so it can write the narrow tile itself (the same bits;
    not FMA, which computes in f64 and would round once instead of twice)."""
    if op.name not in NARROWED_BY_WRITER or engines.get(op) != "se" or not op.results[0].type.is_block():
        return False
    src = op.x
    writer = src.owner
    return isinstance(writer, Operation) and engines.get(writer) == "se" and writer.name in CONVERTS_SOURCES and \
        len(writer.results) == 1 and src.type.scalar.ir == "f32" and len(list(src.uses)) == 1 and \
        op.results[0].type.scalar.ir in ("f16", "bf16")


def _zero_accumulator(op: Operation) -> bool:
    """A zero constant read only as tl.dot's accumulator (tl.dot(a, b) without acc): no tile, the
    DPE writes a @ b fresh."""
    uses = list(op.results[0].uses)
    return op.name == Op.CONSTANT and bool(uses) and all(u.op.name == Op.DOT and u.index == 2 for u in uses) and \
        float(op.attrs["value"]) == 0.0


def _tile(v: Value, views) -> tuple:
    return views.get(v, (tuple(v.type.shape) or (1,), False))


def _layout_engine(op: Operation, engines: dict, views: dict) -> str:
    r = op.results[0]
    readers = [_reader(u, engines) for u in r.uses]
    scalar_readers_only = all(e in TAKES_SCALARS for e in readers)
    if op.name == Op.CONSTANT or (op.name == Op.SPLAT and not _stored(op.src, engines)):
        return "uniform" if scalar_readers_only or _zero_accumulator(op) else "se"
    src = op.src
    if not _stored(src, engines):
        return "mlu"
    shape, trans = _tile(src, views)
    whole = shape == (tuple(src.type.shape) or (1,)) and not trans
    if op.name == Op.SPLAT:
        view = all(e in BROADCASTS for e in readers)
    elif op.name in VIEW_OPS:
        view, shape = whole, tuple(r.type.shape) or (1,)
    elif op.name == Op.BROADCAST:
        view = all(e in BROADCASTS for e in readers) and not trans
    else:                                                   # tt.trans
        view = whole and len(src.type.shape) == 2 and bool(r.uses) and \
            all(u.op.name == Op.DOT and u.index < 2 for u in r.uses)
        trans = True
    if not view:
        return "mlu"
    views[r] = (shape, trans)
    return "view"
