"""Tensor descriptors in the semantic: `tl.make_tensor_descriptor`, block loads/stores by offsets, atomics
over a block, and the row gather/scatter of a 2-D descriptor (Triton's TMA reduce and gather/scatter).

A descriptor is a frontend value (core.tensor_descriptor): its base, i32 extents and i64 strides are ordinary
runtime scalars, so `desc.shape[i]` / `desc.strides[i]` are values like any other and loops carry them.
Block loads/stores are tt.descriptor_load/store of the tt.make_tensor_descriptor made where they are used;
atomics and gather/scatter are masked atomics/loads/stores of a pointer block, which both executors (and the
MTIA backend's row loads) already handle.
"""
from __future__ import annotations

from ..ir import types as T
from ..ir.ops import Op
from .core import tensor, tensor_descriptor, unwrap

PADDINGS = ("zero", "nan")
_BITWISE = (T.u32, T.i32, T.u64, T.i64)
_ATOMIC_DTYPES = {"add": (T.u32, T.i32, T.u64, T.f32, T.f16, T.bf16), "min": _BITWISE, "max": _BITWISE,
                  "and": _BITWISE, "or": _BITWISE, "xor": _BITWISE}      # Triton's (16-bit floats: native TMA only)


class DescriptorSemantic:
    """Mixed into Semantic (semantic.py): the descriptor builtins."""

    def make_tensor_descriptor(self, base, shape, strides, block_shape, padding_option="zero") -> tensor_descriptor:
        from .semantic import validate_block_shape
        base = unwrap(base)
        if not isinstance(base, tensor) or base.type.is_block() or not base.type.scalar.is_ptr():
            raise ValueError(f"Expected base to be a scalar pointer, got {getattr(base, 'type', base)}")
        shape, strides, block_shape = list(unwrap(shape)), list(unwrap(strides)), list(unwrap(block_shape))
        rank = len(shape)
        if not (len(strides) == len(block_shape) == rank) or not 1 <= rank <= 5:
            raise ValueError(f"Expected shape, strides and block_shape of one length from 1 to 5, got {rank}, "
                             f"{len(strides)}, {len(block_shape)}")
        last = unwrap(strides[-1])
        if isinstance(last, tensor) or last != 1:
            raise ValueError("Tensor descriptor last dim must be 1 (a compile-time 1)")
        padding = "zero" if padding_option is None else padding_option
        if padding not in PADDINGS:
            raise ValueError(f"padding_option must be one of {PADDINGS}, not {padding_option!r}")
        elem = base.type.scalar.element_ty
        if padding == "nan" and not elem.is_floating():
            raise ValueError("Padding option `nan` is not supported for integer blocks")
        row = int(unwrap(block_shape[-1]))
        if row * elem.itemsize < 16:   # Triton's descriptor contract (rows the GPUs' TMA moves): kept for portability
            raise ValueError(f"Descriptor block shape must have at least 16 bytes in the last dimension, got "
                             f"{row} x {elem.itemsize} = {row * elem.itemsize} bytes")
        block = T.BlockType(validate_block_shape(block_shape), elem)
        sizes = [self._desc_scalar(s, T.i32, "shape") for s in shape]
        strd = [self._desc_scalar(s, T.i64, "strides") for s in strides]
        return tensor_descriptor(base, sizes, strd, block, padding)

    def _desc_scalar(self, x, dtype, what) -> tensor:
        t = self.to_tensor(unwrap(x))
        if t.type.is_block() or not t.type.scalar.is_int():
            raise ValueError(f"descriptor {what} must be integer scalars, got {t.type}")
        return self.cast(t, dtype)

    def _desc_offsets(self, desc, offsets) -> list[tensor]:
        offsets = list(unwrap(offsets))
        rank = len(desc.block_type.shape)
        if len(offsets) != rank:
            raise ValueError(f"Expected {rank} offsets for a rank-{rank} descriptor, got {len(offsets)}")
        out = []
        for o in offsets:
            t = self.to_tensor(o)
            if t.type.is_block() or not t.type.scalar.is_int():
                raise ValueError(f"descriptor offsets must be integer scalars, got {t.type}")
            out.append(self.cast(t, T.i32))
        return out

    def descriptor_load(self, desc, offsets) -> tensor:
        offs = self._desc_offsets(desc, offsets)
        attrs = {"padding": "nan"} if desc.padding == "nan" else None
        v = self.b.create1(Op.DESCRIPTOR_LOAD, [desc.handle] + [o.handle for o in offs], desc.block_type, attrs)
        return tensor(v, desc.block_type)

    def descriptor_store(self, desc, offsets, value) -> None:
        offs = self._desc_offsets(desc, offsets)
        block = desc.block_type
        value = self.broadcast_to(self.cast(self.to_tensor(value), block.scalar), block.shape)
        self.b.create(Op.DESCRIPTOR_STORE, [desc.handle, value.handle] + [o.handle for o in offs], [])

    # --- atomics over a block (Triton's TMA reduce) --------------------------------------------------
    def descriptor_atomic(self, kind, desc, offsets, value) -> None:
        """Atomically combine `value` into the block at `offsets` (elements outside the extents untouched)."""
        allowed = _ATOMIC_DTYPES[kind]
        if desc.dtype not in allowed:
            raise ValueError(f"descriptor atomic_{kind} does not support {desc.dtype} (only "
                             f"{', '.join(str(t) for t in allowed)})")
        value = self.to_tensor(value)
        if tuple(value.type.shape) != tuple(desc.block_type.shape):
            raise ValueError(f"expected value shape {list(desc.block_type.shape)}, got {list(value.type.shape)}")
        ptrs, mask = self._desc_block(desc, self._desc_offsets(desc, offsets))
        self.atomic_rmw(kind, ptrs, value, mask)

    def _desc_block(self, desc, offsets) -> tuple[tensor, tensor]:
        """Pointers and in-bounds mask of the block at `offsets` (i32 scalars)."""
        shape = tuple(desc.block_type.shape)
        rank = len(shape)
        offset, mask = None, None
        for d, n in enumerate(shape):
            idx = self.block_coordinate(n, offsets[d], d, rank)
            term = self.mul(self.cast(idx, T.i64), desc.strides[d])
            offset = term if offset is None else self.add(offset, term)
            ok = self.logical_and(self.greater_equal(idx, 0), self.less_than(idx, desc.shape[d]))
            mask = ok if mask is None else self.logical_and(mask, ok)
        ptrs = self.addptr(self.splat(desc.base, shape), self.broadcast_to(offset, shape))
        return ptrs, self.broadcast_to(mask, shape)

    # --- gather / scatter of rows ---------------------------------------------------------------
    def descriptor_gather(self, desc, x_offsets, y_offset) -> tensor:
        ptrs, mask = self._desc_rows(desc, x_offsets, y_offset, "gather")
        fill = float("nan") if desc.padding == "nan" else 0
        return self.load(ptrs, mask, fill)

    def descriptor_scatter(self, desc, value, x_offsets, y_offset) -> None:
        ptrs, mask = self._desc_rows(desc, x_offsets, y_offset, "scatter")
        value = self.to_tensor(value)
        if tuple(value.type.shape) != tuple(ptrs.type.shape):
            raise ValueError(f"descriptor scatter of a {list(value.type.shape)} value: expected "
                             f"{list(ptrs.type.shape)} (one row of the block per row offset)")
        self.store(ptrs, value, mask)

    def _desc_rows(self, desc, x_offsets, y_offset, what) -> tuple[tensor, tensor]:
        """Pointers and in-bounds mask of rows `x_offsets`, columns y_offset + [0, block columns)."""
        if not isinstance(desc, tensor_descriptor):
            raise ValueError(f"expected a tensor descriptor, got {type(desc).__name__}")
        block = desc.block_type.shape
        if len(block) != 2 or block[0] != 1:
            raise ValueError(f"descriptor {what} needs a 2-D descriptor whose block has 1 row, got block shape "
                             f"{list(block)}")
        x = self.to_tensor(unwrap(x_offsets))
        if len(x.type.shape) != 1 or x.type.scalar not in (T.i16, T.i32):
            raise ValueError(f"descriptor {what}: row offsets must be a 1-D tensor of int16 or int32, got {x.type}")
        rows, cols = x.type.shape[0], block[1]
        if rows < 8:
            raise ValueError(f"descriptor {what} must have at least 8 rows, got {rows}")
        min_cols = 32 // desc.dtype.primitive_bitwidth * 8
        if cols < min_cols:
            raise ValueError(f"descriptor {what} of {desc.dtype} must have at least {min_cols} columns, got {cols}")
        y_static = unwrap(y_offset)
        y = self.to_tensor(y_static)
        if y.type.is_block() or not y.type.scalar.is_int():
            raise ValueError(f"descriptor {what}: the column offset must be an integer scalar, got {y.type}")
        row = self.expand_dims(self.cast(x, T.i32), 1)                                     # [rows, 1]
        col = self.expand_dims(self.add(self.arange(0, cols), self.cast(y, T.i32)), 0)     # [1, cols]
        n_rows, n_cols = desc.shape
        row_ok = self.logical_and(self.greater_equal(row, 0), self.less_than(row, n_rows))
        col_ok = self.less_than(col, n_cols)
        # A compile-time start >= 0 needs no lower column bound; without one the MTIA backend reads whole rows
        # (dma.rows) instead of gathering element by element.
        if not (isinstance(y_static, int) and y_static >= 0):
            col_ok = self.logical_and(self.greater_equal(col, 0), col_ok)
        mask = self.broadcast_to(self.logical_and(row_ok, col_ok), (rows, cols))
        offset = self.add(self.mul(self.cast(row, T.i64), desc.strides[0]), self.cast(col, T.i64))
        ptrs = self.addptr(self.splat(desc.base, (rows, cols)), self.broadcast_to(offset, (rows, cols)))
        return ptrs, mask
