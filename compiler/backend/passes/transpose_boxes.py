"""A 2-D box load whose first axis is the contiguous one -> the box read the other way, then tt.trans.

`tl.load(B + k[:, None] * 1 + n[None, :] * K)` (a [BLOCK_K, BLOCK_N] tile of W.T, what every
`nn.Linear` hands a matmul) walks memory with a stride of K along its rows: the DMA reads one element
per 32-byte burst, 16x the f16 tile's bytes through SRAM and the NoC. Read as [BLOCK_N, BLOCK_K] with
unit stride along its rows, each row is one run of BLOCK_K elements; the transpose after it is a view
when only tl.dot reads it (the DPE takes a transposed operand: map-engines), else an MLU copy in
the local store. A wrapped or clamped axis (Inductor's `rn % N`) keeps its remap, on its new axis.
A load whose innermost stride is the constant 1 already, or that is not a plain rank-2 box (skips,
an `other` operand, a broadcast axis of 1), is left as it is.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...ir import Builder, Op
from .. import dialect as mtia
from .util import constant_value


@dataclass(frozen=True)
class TransposeBoxes:
    name: ClassVar[str] = "transpose-boxes"

    def run(self, module) -> None:
        for func in module.functions:
            for op in [o for o in func.walk() if o.name == mtia.LOAD_BOX]:
                _rewrite(op)


def _rewrite(op) -> None:
    attrs = dict(op.attrs)
    remap_args = attrs.get("remap_args", 0)
    if attrs.get("rank") != 2 or "skip_args" in attrs or len(op.operands) != 5 + remap_args:
        return                          # not a plain 2-D box, or one with an `other` operand
    shape = tuple(op.result.type.shape)
    if min(shape) <= 1:
        return
    ptr, s0, s1, v0, v1, *remap = op.operands
    if constant_value(s1) == 1 or constant_value(s0) != 1:
        return
    if "remap" in attrs:                # Inductor's `rn % N` wraps the tile's columns: now its rows
        attrs["remap_dim"] = 1 - attrs["remap_dim"]
    b = Builder()
    b.set_insertion_point_before(op)
    b.loc = op.loc
    t = op.result.type
    flipped = b.create1(mtia.LOAD_BOX, [ptr, s1, s0, v1, v0, *remap], t.with_shape((shape[1], shape[0])), attrs)
    val = b.create1(Op.TRANS, [flipped], t, {"order": [1, 0]})
    val.name_hint = op.result.name_hint
    op.result.replace_all_uses_with(val)
    op.erase()
