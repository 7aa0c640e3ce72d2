"""The MTIA ops the backend lowers Triton's memory ops into, declared like every other IR op.

They sit between TTIR and the instruction stream: each one is a single DMA command. Scalars
(addresses, strides, valid extents) are ordinary i64 SSA values computed by scalar code, so the
printed IR after the memory lowering shows exactly what each transfer reads.
"""
from __future__ import annotations

from ..ir.ops import OP_DEFS, define

LOAD_BOX = "mtia.load_box"
STORE_BOX = "mtia.store_box"
GATHER = "mtia.gather"
SCATTER = "mtia.scatter"
ATOMIC = "mtia.atomic"
CAS = "mtia.cas"
TO_SCALAR = "mtia.to_scalar"

if LOAD_BOX not in OP_DEFS:
    define(LOAD_BOX, """A box DMA into the local store: result[i] = ptr[sum(i_k * strides_k)] where every
i_k < valid_k, else the padding (attr pad, or the `other` operand when the padding is not a constant).
ptr is the element at index 0; strides (elements) and valid extents are `rank` i64 scalars each.
attrs: rank, pad, unaligned.""", operands=("ptr", "strides*rank", "valid*rank", "other?"), attrs=("rank",),
           pure=False)
    define(STORE_BOX, """A box DMA out of the local store: ptr[sum(i_k * strides_k)] = value[i] where every
i_k < valid_k; strides and valid extents are `rank` i64 scalars each. attrs: rank, unaligned.""",
           operands=("ptr", "value", "strides*rank", "valid*rank"), results=0, attrs=("rank",), pure=False)
    define(GATHER, """Element-wise DMA: result[i] = ptr[offsets[i]] where mask[i] (offsets: an integer block,
in elements), else the padding (attr pad: the constant for masked-off elements).""",
           operands=("ptr", "offsets", "mask?"), pure=False)
    define(SCATTER, "Element-wise DMA: ptr[offsets[i]] = value[i] where mask[i].",
           operands=("ptr", "offsets", "value", "mask?"), results=0, pure=False)
    define(ATOMIC, """Atomic read-modify-write per element (attr kind: add, max, min, xchg, and, or, xor):
old = ptr[offsets[i]]; ptr[offsets[i]] = kind(old, value[i]) where mask[i]; returns the old values.""",
           operands=("ptr", "offsets", "value", "mask?"), attrs=("kind",), pure=False)
    define(CAS, """Atomic compare-and-swap per element: old = ptr[offsets[i]]; if old == cmp[i]: ptr[..] =
value[i]; returns old.""", operands=("ptr", "offsets", "cmp", "value"), pure=False)
    define(TO_SCALAR, """The single element of a one-element block, as a scalar (the core waits for it and
reads it from the local store).""", operands=("src",))
