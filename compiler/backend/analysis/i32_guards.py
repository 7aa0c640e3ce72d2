"""The i32 crossing guards the launch checks, recorded as the compilation meets them.

The affine analysis takes a narrow integer block with a run-time base or stride as one box
(affine.watch_crossings); whether its elements cross their type's range between them only a launch can
tell (launch/i32_crossings.py). `watch` records each such block's polynomials over what a launch knows
(arguments, program ids, loop variables between their bounds) as JSON-able lists the program carries
in its meta; a block over a scalar a launch cannot bound is not recorded.
"""
from __future__ import annotations

from ...ir import Op
from ...ir.core import BlockArgument
from . import affine
from .affine import Poly, Quotient, Wrapped


class _Unbounded(Exception):
    """A scalar whose range a launch cannot tell."""


def watch(out: list):
    """affine.watch_crossings' record: adds to `out` the JSON-able check of each block, [file, line, col,
    bits, signed, base, strides, shape] (polys as [[coefficient, atom, ...], ...]), once per block and
    line; a block over a scalar a launch cannot bound is left out (module docstring). Encoded as the
    analysis meets it, while the loops and arguments its polys name are those of the module."""
    def record(v, a, bits: int, signed: bool) -> None:
        try:
            base, strides = _poly(a.base), [_poly(s) for s in a.strides]
        except _Unbounded:
            return
        loc = getattr(v.owner, "loc", None)
        g = [loc.file if loc else None, loc.line if loc else 0, loc.col if loc else 0, bits, int(signed), base,
             strides, list(a.shape)]
        if g not in out:
            out.append(g)
    return affine.watch_crossings(record)


def _poly(p: Poly) -> list:
    return [[c, *(_atom(x) for x in mono)] for mono, c in p.terms]


def _atom(x) -> list:
    if isinstance(x, Wrapped):
        return ["w", x.bits, int(x.signed), _poly(x.value)]
    if isinstance(x, Quotient):
        return ["q", x.divisor, int(x.remainder), _poly(x.start)]
    if isinstance(x, BlockArgument):
        owner = x.block.parent_op
        if owner is not None and owner.name == Op.FUNC:
            return ["a", x.index]
        if owner is not None and owner.name == Op.FOR and x.index == 0:     # the induction variable
            return ["for", *(_scalar(v) for v in owner.operands[:3])]
        raise _Unbounded
    op = x.owner
    if op.name in (Op.GET_PROGRAM_ID, Op.GET_NUM_PROGRAMS):
        return ["p" if op.name == Op.GET_PROGRAM_ID else "n", int(op.attrs["axis"])]
    t = x.type
    if op.name == Op.CONSTANT and isinstance(op.attrs.get("value"), int):
        return ["c", int(op.attrs["value"])]
    if op.name in _SCALAR_OPS and t.is_int() and not t.is_block():      # scalar code: `pid * BLOCK`
        return ["op", op.name, t.int_bitwidth, int(t.is_int_signed()), [_atom(v) for v in op.operands]]
    raise _Unbounded


_SCALAR_OPS = {Op.ADDI.value, Op.SUBI.value, Op.MULI.value, Op.SHLI.value, Op.DIVSI.value, Op.REMSI.value,
               Op.MINSI.value, Op.MAXSI.value, Op.EXTSI.value, Op.TRUNCI.value}


def _scalar(v) -> list:
    with affine.watch_crossings(None):          # (a loop bound's own reads are not this block's)
        a = affine.analyze(v)
    if a is None or a.root is not None or a.shape:
        raise _Unbounded
    return _poly(a.base)
