"""Memory Layout Unit: transpose, reshape, concatenation, slicing and broadcasts of tiles in the
local store. Moves bytes only; its throughput is the config's `mlu.bytes_per_cycle`."""
from __future__ import annotations

from .fields import Imm, IntList, TileKind
from .instruction import Instr, instruction


@instruction("mlu.transpose", "mlu")
class MluTranspose(Instr):
    """out = a with its axes permuted: out axis k is a's axis perm[k] (numpy transpose)."""
    out: TileKind
    a: TileKind
    perm: IntList


@instruction("mlu.reshape", "mlu")
class MluReshape(Instr):
    """out = a's elements in row-major order, laid out in out's shape (same element count)."""
    out: TileKind
    a: TileKind


@instruction("mlu.bcast", "mlu")
class MluBcast(Instr):
    """out = a broadcast to out's shape (numpy rules, shapes aligned on the right)."""
    out: TileKind
    a: TileKind


@instruction("mlu.concat", "mlu")
class MluConcat(Instr):
    """out = a followed by b along `axis`."""
    out: TileKind
    a: TileKind
    b: TileKind
    axis: Imm


@instruction("mlu.join", "mlu")
class MluJoin(Instr):
    """out = stack(a, b) along a new last axis of size 2 (tl.join)."""
    out: TileKind
    a: TileKind
    b: TileKind


@instruction("mlu.slice", "mlu")
class MluSlice(Instr):
    """out = the box of a starting at index `start` with out's shape, taking every `step`-th
    element along each axis (step empty = 1s) (tl.split, tl.extract_slice)."""
    out: TileKind
    a: TileKind
    start: IntList
    step: IntList = ()


@instruction("mlu.gather", "mlu")
class MluGather(Instr):
    """out = the elements of a picked along `axis` by index (tl.gather): out and index have one shape,
    and out[..., i, ...] = a[..., index[..., i, ...], ...] with i at position `axis`; every other
    coordinate is the same in out and a. An index outside a's extent along axis is an error."""
    out: TileKind
    a: TileKind
    index: TileKind
    axis: Imm
