"""Map every block op onto the unit that runs it, and say so in the IR (`engine = "se"`).

DPE: tl.dot. SE: element-wise arithmetic, comparisons, casts, math functions, fills and iotas.
RVV: the integer long tail (division, remainder, high-half multiply; see codegen/rvv_ops.py).
RE: reductions and scans. MLU: transposes, joins, splits, concatenations, slices, materialised
broadcasts. DMA: the mtia load/store/gather/scatter/atomic ops. Views (reshape, expand_dims) move
no data. Scalar ops run on the control core and are not annotated.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..codegen.rvv_ops import rvv_eligible
from ..codegen.tile_ops import ENGINE


@dataclass(frozen=True)
class MapEngines:
    name: str = "map-engines"

    def run(self, module) -> None:
        for op in module.walk():
            if not op.results or not any(r.type.is_block() for r in op.results):
                if op.name not in ("mtia.store_box", "mtia.scatter"):
                    continue
            engine = "rvv" if rvv_eligible(op) else ENGINE.get(op.name)
            if engine is not None:
                op.attrs["engine"] = engine
