"""Tensor descriptors in the semantic: `tl.make_tensor_descriptor` and block loads/stores by offsets.

A descriptor is a frontend value (core.tensor_descriptor): its base, i32 extents and i64 strides are ordinary
runtime scalars, so `desc.shape[i]` / `desc.strides[i]` are values like any other and loops carry them.
Block loads/stores are tt.descriptor_load/store of the tt.make_tensor_descriptor made where they are used.
"""
from __future__ import annotations

from ..ir import types as T
from ..ir.ops import Op
from .core import _unwrap, tensor, tensor_descriptor

PADDINGS = ("zero", "nan")


class DescriptorSemantic:
    """Mixed into Semantic (semantic.py): the descriptor builtins."""

    def make_tensor_descriptor(self, base, shape, strides, block_shape, padding_option="zero") -> tensor_descriptor:
        from .semantic import validate_block_shape
        base = _unwrap(base)
        if not isinstance(base, tensor) or base.type.is_block() or not base.type.scalar.is_ptr():
            raise ValueError(f"Expected base to be a scalar pointer, got {getattr(base, 'type', base)}")
        shape, strides, block_shape = list(_unwrap(shape)), list(_unwrap(strides)), list(_unwrap(block_shape))
        rank = len(shape)
        if not (len(strides) == len(block_shape) == rank) or not 1 <= rank <= 5:
            raise ValueError(f"Expected shape, strides and block_shape of one length from 1 to 5, got {rank}, "
                             f"{len(strides)}, {len(block_shape)}")
        last = _unwrap(strides[-1])
        if isinstance(last, tensor) or last != 1:
            raise ValueError("Tensor descriptor last dim must be 1 (a compile-time 1)")
        padding = "zero" if padding_option is None else padding_option
        if padding not in PADDINGS:
            raise ValueError(f"padding_option must be one of {PADDINGS}, not {padding_option!r}")
        elem = base.type.scalar.element_ty
        if padding == "nan" and not elem.is_floating():
            raise ValueError("Padding option `nan` is not supported for integer blocks")
        row = int(_unwrap(block_shape[-1]))
        if row * elem.itemsize < 16:   # Triton's descriptor contract (rows the GPUs' TMA moves): kept for portability
            raise ValueError(f"Descriptor block shape must have at least 16 bytes in the last dimension, got "
                             f"{row} x {elem.itemsize} = {row * elem.itemsize} bytes")
        block = T.BlockType(validate_block_shape(block_shape), elem)
        sizes = [self._desc_scalar(s, T.i32, "shape") for s in shape]
        strd = [self._desc_scalar(s, T.i64, "strides") for s in strides]
        return tensor_descriptor(base, sizes, strd, block, padding)

    def _desc_scalar(self, x, dtype, what) -> tensor:
        t = self.to_tensor(_unwrap(x))
        if t.type.is_block() or not t.type.scalar.is_int():
            raise ValueError(f"descriptor {what} must be integer scalars, got {t.type}")
        return self.cast(t, dtype)

    def _desc_offsets(self, desc, offsets) -> list[tensor]:
        offsets = list(_unwrap(offsets))
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
