"""Reduction Engine: reductions and scans along one axis of a tile, and the reduction network that
forwards partial results to another PE."""
from __future__ import annotations

from .fields import Imm, OptTile, TileKind, XOrImm, choice
from .instruction import Instr, instruction


@instruction("re.reduce", "re")
class ReReduce(Instr):
    """out = op over axis `axis` of a. out's shape is a's with that axis removed or kept as 1.
    Sums of floats accumulate in f32 (f64 for f64). max/min ignore NaNs (IEEE maxNum/minNum: NaN only
    when every element is NaN), as Triton's tl.max/tl.min do; argmax/argmin give the first index of
    that extreme as i32 (0 when every element is NaN)."""
    out: TileKind
    a: TileKind
    op: choice("sum", "max", "min", "prod", "argmax", "argmin", "and", "or", "xor")
    axis: Imm


@instruction("re.scan", "re")
class ReScan(Instr):
    """out = the inclusive prefix op of a along `axis` (reverse=1 scans from the end); max/min ignore
    NaNs as re.reduce's do."""
    out: TileKind
    a: TileKind
    op: choice("sum", "prod", "max", "min")
    axis: Imm
    reverse: Imm = 0


@instruction("re.send", "re")
class ReSend(Instr):
    """Send tile a over the reduction network into CB `cb` of PE `pe`, as a push there. The
    receiving CB's slots are claimed in the order sends arrive."""
    a: TileKind
    pe: XOrImm
    cb: Imm


@instruction("re.histogram", "re")
class ReHistogram(Instr):
    """out[b] = how many elements of a equal b, for 0 <= b < out's length (tl.histogram); elements
    outside that range, and those where mask is 0, are not counted. out is i32."""
    out: TileKind
    a: TileKind
    mask: OptTile = None
