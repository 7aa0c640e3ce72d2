"""The MTIA target as the compiler sees it: which unit can run which op, and the config's numbers.

Where an op runs is decided once, by the map-engines pass with the rules below, and recorded on
the op as its `engine` attribute; bufferize, allocate-ls and codegen read that attribute and never
decide again. The values of `engine`:

- a unit that runs commands: "dpe" (tl.dot), "se" (element-wise work, fills, iotas), "re"
  (reductions, scans, histograms, the reduction network), "mlu" (layout changes), "dma" (transfers),
  "rvv" (the integer long tail on the vector core), "core" (the control core reads a tile);
- "view": the result is another look at bytes already in a circular buffer (no command runs);
- "uniform": a block whose elements are all one scalar; its readers take the scalar.
Scalar code has no `engine`: the control core runs it.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir import Op
from ..ir.core import Operation
from ..ir.ops import OP_DEFS
from . import dialect as mtia
from .analysis.re_combine import RE_SCANS, re_combine

UNITS = ("dpe", "se", "re", "mlu", "dma", "rvv", "core")
ENGINES = UNITS + ("view", "uniform")

# block ops by the unit that runs them; the element-wise ops (SE or RVV) and the ops whose engine
# depends on their readers (constants, splats, shape changes: `map_engines.py`) are not listed
UNIT_OF = {
    Op.MAKE_RANGE: "se",
    Op.DOT: "dpe",
    Op.REDUCE: "re", Op.SCAN: "re", Op.HISTOGRAM: "re", Op.RE_REDUCE: "re",
    Op.JOIN: "mlu", Op.SPLIT: "mlu", Op.CAT: "mlu", Op.EXTRACT_SLICE: "mlu", Op.GATHER: "mlu",
    mtia.LOAD_BOX: "dma", mtia.STORE_BOX: "dma", mtia.GATHER: "dma", mtia.LOAD_ROWS: "dma",
    mtia.SCATTER: "dma", mtia.ATOMIC: "dma", mtia.ATOMIC_BOX: "dma", mtia.CAS: "dma",
    mtia.TO_SCALAR: "core",
    Op.PRINT: "se",                  # scalar or block: the SE keeps a program's prints in order
}
# DMA ops that may have no result and still read tiles (atomics whose old values nobody reads)
NO_RESULT_DMA = (mtia.STORE_BOX, mtia.SCATTER, mtia.ATOMIC, mtia.ATOMIC_BOX)
# ops that give a one-element tile even on 0-d values (the control core reads the result back)
TILE_ON_SCALARS = (Op.REDUCE, mtia.ATOMIC, mtia.CAS, mtia.GATHER, Op.SPLIT)   # tl.split of a [2] block
# ops whose engine is decided from their source and readers: a view, a uniform scalar, or a copy
LAYOUT_OPS = (Op.CONSTANT, Op.SPLAT, Op.BROADCAST, Op.EXPAND_DIMS, Op.RESHAPE, Op.TRANS)
VIEW_OPS = (Op.EXPAND_DIMS, Op.RESHAPE)          # same bytes, another shape, whenever the source is whole
# element-wise ops that are address arithmetic, not data: materialize-pointers removes them from blocks
POINTER_OPS = (Op.ADDPTR, Op.PTR_TO_INT, Op.INT_TO_PTR, Op.PTR_BITCAST)
# float math the control core has no instruction for: on 0-d values the SE computes it in a
# one-element tile (read back into a register for scalar users). RISC-V's fmax/fmin ignore NaNs, so
# the NaN-propagating maximum/minimum (propagate_nan=ALL) are the SE's too
SCALAR_ON_SE = frozenset({Op.EXP, Op.EXP2, Op.LOG, Op.LOG2, Op.RSQRT, Op.ABSF, Op.ERF, Op.FLOOR, Op.CEIL, Op.SIN,
                          Op.COS, Op.TANH, Op.ROUNDEVEN, Op.ISNAN, Op.ISINF, Op.POWF, Op.ATAN2, Op.REMF, Op.FMA,
                          Op.MAXIMUMF, Op.MINIMUMF})
# float scalars the control core cannot load or store itself: a DMA moves them through a slot, and
# registers hold them as f32 (which holds every f16, bf16 and fp8 value exactly)
WIDE_ONLY = ("f16", "bf16", "f8e4m3", "f8e5m2", "f8e4b15", "f8e4m3fnuz", "f8e5m2fnuz")
# scalar float ops whose f16/bf16 result must be rounded to that type: the control core computes
# floats in f32 only, so the SE runs these too (rounding each result once)
ROUNDED_ON_SE = frozenset({Op.ADDF, Op.SUBF, Op.MULF, Op.DIVF, Op.PRECISE_DIVF, Op.SQRT, Op.PRECISE_SQRT,
                           Op.SITOFP, Op.UITOFP, Op.TRUNCF, Op.FP_TO_FP})
# the integer long tail the vector core runs (the SE's datapath covers the rest)
RVV_OPS = (Op.MULHIUI, Op.DIVSI, Op.DIVUI, Op.REMSI, Op.REMUI)
# tl.dot element types the vector core multiplies when the config's DPE does not (slow, exact per step)
RVV_DOT_DTYPES = ("f64",)
# engines that read a uniform operand as a scalar, and the one that broadcasts a smaller tile
TAKES_SCALARS = ("se", "rvv")
BROADCASTS = ("se",)
# SE arithmetic that converts every tile source to its result's type as it reads it and rounds its
# result once to the output tile's type (isa/se.py), so a widening cast read only by these is a view
# of the narrow tile, and a narrowing cast of their f32 result is the result written narrow
# (map-engines, fold_casts). FMA
# computes f32 in f64, where an integer source would round differently than through f32: it takes
# widened floats only
WIDENED_BY_READERS = (Op.EXTF, Op.SITOFP)
NARROWED_BY_WRITER = (Op.TRUNCF,)     # ... and a narrowing one whose source only it reads is the writer's
CONVERTS_SOURCES = frozenset({Op.ADDF, Op.SUBF, Op.MULF, Op.DIVF, Op.PRECISE_DIVF, Op.MAXNUMF, Op.MINNUMF,
                              Op.MAXIMUMF, Op.MINIMUMF, Op.NEGF, Op.EXP, Op.EXP2, Op.LOG, Op.LOG2, Op.SQRT,
                              Op.PRECISE_SQRT, Op.RSQRT, Op.ABSF, Op.ERF, Op.FLOOR, Op.CEIL, Op.SIN, Op.COS,
                              Op.TANH, Op.ROUNDEVEN})
CONVERTS_FLOAT_SOURCES = CONVERTS_SOURCES | {Op.FMA}
# producers whose tiles inside a loop want `num_stages` slots (loads run ahead of their consumer)
RUNS_AHEAD = ("dma",)


def is_elementwise_block(op: Operation) -> bool:
    """An element-wise op on blocks of data (the SE or the vector core runs it; a box select is one too,
    its valid extents scalars beside its two sources)."""
    d = OP_DEFS.get(op.name)
    return bool(d and (d.elementwise or op.name == mtia.SELECT_BOX) and op.results and op.results[0].type.is_block()) \
        and op.name not in POINTER_OPS


def scalar_on_se(op: Operation) -> bool:
    """A scalar op the SE runs in a one-element tile: float math the control core has no
    instruction for, float work whose f16/bf16/fp8 result the core could not round, and bitcasts to or
    from those types."""
    if not op.results:
        return False
    if op.name == Op.BITCAST:           # a register holds such a float as f32, not as its own bits
        return any(v.type.scalar.ir in WIDE_ONLY for v in (op.operands[0], op.results[0]))
    return op.name in SCALAR_ON_SE or op.name in ROUNDED_ON_SE and op.results[0].type.scalar.ir in WIDE_ONLY


def rvv_eligible(op: Operation) -> bool:
    """An integer long-tail op on blocks whose tile operands are not broadcasts (the RVV loop walks
    every operand element by element; a broadcast operand stays on the SE, which broadcasts)."""
    if op.name not in RVV_OPS or not op.results or not op.results[0].type.is_block():
        return False
    t = op.results[0].type.scalar
    if not t.is_int() or t.int_bitwidth not in (8, 16, 32, 64):
        return False
    for x in op.operands:
        d = x.owner
        if isinstance(d, Operation) and d.name in (Op.BROADCAST, Op.EXPAND_DIMS, Op.RESHAPE, Op.TRANS):
            return False
    return True


def runs_on_re(op: Operation) -> bool:
    """Whether the RE runs this tt.reduce / tt.scan as one command (expand-combine rewrites the others)."""
    kind = re_combine(op)
    return kind is not None and (op.name == Op.REDUCE or kind in RE_SCANS)


def unit_of(op: Operation, dpe_dtypes: tuple[str, ...] = ()) -> str | None:
    """The unit that runs `op` whatever its readers are; None for scalar code and for LAYOUT_OPS on blocks.
    A tl.dot on a type the DPE does not multiply (`dpe_dtypes`) but the vector core does runs there."""
    name = op.name
    if name == Op.DOT and op.a.type.scalar.ir in RVV_DOT_DTYPES and op.a.type.scalar.ir not in dpe_dtypes:
        return "rvv"
    blocks = any(r.type.is_block() for r in op.results)
    if name in NO_RESULT_DMA or name in (Op.RE_REDUCE, Op.PRINT):
        return UNIT_OF[name]
    if name == Op.ASSERT and op.cond.type.is_block():
        return "re"                                   # the RE ands the condition into one flag
    if not blocks:
        if scalar_on_se(op):
            return "se"
        if name in TILE_ON_SCALARS or name == mtia.TO_SCALAR:
            return UNIT_OF[name]
        return None
    if name in LAYOUT_OPS:
        return None
    if is_elementwise_block(op):
        return "rvv" if rvv_eligible(op) else "se"
    return UNIT_OF.get(name)


@dataclass(frozen=True)
class Target:
    """The numbers of one hardware config that decide what the compiler emits."""
    name: str
    ls_bytes: int                     # local store per PE
    dma_align: int                    # bytes a box DMA's base must be aligned to, unless marked unaligned
    dpe_dtypes: tuple[str, ...]       # element types the DPE multiplies
    slot_align: int = 64              # bytes every local-store slot starts on (see `of`)

    @classmethod
    def of(cls, cfg) -> "Target":
        # A slot is a DMA's destination (its base must be DMA-aligned) and a vector loop's source
        # (whole vector registers are loaded from it): it starts on the larger of the two.
        slot_align = max(cfg.pe.dma.align_bytes, cfg.pe.vector.vlen_bits // 8)
        return cls(cfg.name, cfg.ls_bytes, cfg.pe.dma.align_bytes, tuple(cfg.pe.dpe.macs_per_cycle), slot_align)
