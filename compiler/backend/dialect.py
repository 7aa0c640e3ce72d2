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
LOAD_ROWS = "mtia.load_rows"
SCATTER = "mtia.scatter"
ATOMIC = "mtia.atomic"
ATOMIC_BOX = "mtia.atomic_box"
CAS = "mtia.cas"
TO_SCALAR = "mtia.to_scalar"
SELECT_BOX = "mtia.select_box"
CB = "mtia.cb"

if LOAD_BOX not in OP_DEFS:
    define(LOAD_BOX, """A box DMA into the local store: result[i] = ptr[sum(j_k * strides_k)] where every
i_k < valid_k, else the padding (attr pad, or the `other` operand when the padding is not a constant).
ptr is the element at index 0; strides (elements) and valid extents are `rank` i64 scalars each.
j_k = i_k, except along dimension remap_dim when attr remap is set: (start + i) % bound for "wrap",
start + i where that is < bound, else fill, for "clamp"; the `remap_args` remap scalars are start,
bound (and fill). With `skip_args` (= rank) skip scalars, the first skip_k indices of each dimension k are
outside the box too (a descriptor block at a negative corner; not with a remap).
attrs: rank, pad, unaligned, remap, remap_dim, remap_args, skip_args.""",
           operands=("ptr", "strides*rank", "valid*rank", "remap*remap_args", "skip*skip_args", "other?"),
           attrs=("rank",),
           pure=False)
    define(STORE_BOX, """A box DMA out of the local store: ptr[sum(j_k * strides_k)] = value[i] where every
i_k < valid_k, j_k as for mtia.load_box; strides and valid extents are `rank` i64 scalars each.
skip as for mtia.load_box. attrs: rank, unaligned, remap, remap_dim, remap_args, skip_args.""",
           operands=("ptr", "value", "strides*rank", "valid*rank", "remap*remap_args", "skip*skip_args"), results=0,
           attrs=("rank",),
           pure=False)
    define(GATHER, """Element-wise DMA: result[i] = ptr[offsets[i]] where mask[i] (offsets: an integer block,
in elements), else the padding (attr pad: the constant for masked-off elements).""",
           operands=("ptr", "offsets", "mask?"), pure=False)
    define(LOAD_ROWS, """Row DMA: result[r, c] = ptr[index[r] * row_stride + j] for c < valid_cols (i64 scalars;
index: an [N, 1] integer block) in the rows where mask[r] ([N, 1]), else the padding (attr pad); j = c,
or (start + c) rem bound with the `wrap_args` (2) wrap scalars start, bound. One descriptor per row;
see backend/analysis/rows.py.""",
           operands=("ptr", "index", "row_stride", "valid_cols", "wrap*wrap_args", "mask?"), pure=False)
    define(SCATTER, "Element-wise DMA: ptr[offsets[i]] = value[i] where mask[i].",
           operands=("ptr", "offsets", "value", "mask?"), results=0, pure=False)
    define(ATOMIC, """Atomic read-modify-write per element (attr kind: add, max, min, xchg, and, or, xor):
old = ptr[offsets[i]]; ptr[offsets[i]] = kind(old, value[i]) where mask[i]; returns the old values, if it has
a result (none when nothing reads them).""",
           operands=("ptr", "offsets", "value", "mask?"), results=None, attrs=("kind",), pure=False)
    define(ATOMIC_BOX, """mtia.atomic over a box of addresses, as mtia.store_box addresses them (no remap, no
skip): old = ptr[sum(i_k * strides_k)]; ptr[..] = kind(old, value[i]) for every i with i_k < valid_k, one
element at a time in row-major order; returns the old values (0 outside the box), if it has a result.
attrs: kind, rank, unaligned.""",
           operands=("ptr", "value", "strides*rank", "valid*rank"), results=None, attrs=("kind", "rank"),
           pure=False)
    define(CAS, """Atomic compare-and-swap per element: old = ptr[offsets[i]]; if old == cmp[i]: ptr[..] =
value[i]; returns old.""", operands=("ptr", "offsets", "cmp", "value"), pure=False)
    define(CB, """Declares a storage: a circular buffer of `slots` slots of `bytes` each from local-store
address `base` (allocate-ls sets slots and base). attrs: id, name, bytes, producer (the engine that
fills it), depth (loops around its definition), line (of the kernel source). See backend/analysis/plan.py.""",
           results=0, attrs=("id", "name", "bytes", "producer", "depth"), pure=False)
    define(SELECT_BOX, """tl.where under a box mask (backend/analysis/masks.py): result[i] = true_value[i] where every
i_k < valid_k, else false_value[i]; the valid extents are `rank` i64 scalars (clamped to [0, shape_k]), so
no mask tile is computed. attrs: rank.""",
           operands=("true_value", "false_value", "valid*rank"), attrs=("rank",))
    define(TO_SCALAR, """The single element of a one-element block, as a scalar (the core waits for it and
reads it from the local store).""", operands=("src",))
