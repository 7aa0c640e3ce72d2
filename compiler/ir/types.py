"""IR types: scalars, pointers, block tensors and tensor descriptors.

The same objects serve as the `tl` dtypes (``tl.float32 is ir.types.f32``), so the language layer
and the IR never translate between two type systems. Every type has two spellings:

- ``str(t)`` is Triton's user-facing name (``fp32``, ``int32``, ``*fp16``) used in error messages;
- ``t.ir`` is the IR spelling (``f32``, ``i32``, ``ptr<f16>``, ``tensor<128x64xf32>``) that the
  printer writes and the parser reads; it matches the ISA's dtype names (``isa.types.DTYPES``).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import ml_dtypes
import numpy as np


class Kind(IntEnum):
    """Scalar kinds (weak Python scalars promote by bool < integral < float: see semantic._weak_kind)."""
    BOOL = 0
    UINT = 1
    INT = 2
    FLOAT = 3


class Type:
    """Base of every IR type. Scalars and pointers are also the `tl` dtypes."""

    ir: str

    # Triton-compatible predicates; the subclasses override what applies to them.
    def is_block(self) -> bool:
        return False

    def is_ptr(self) -> bool:
        return False

    def is_floating(self) -> bool:
        return False

    def is_int(self) -> bool:
        return False

    def is_tensor_desc(self) -> bool:
        return False

    # The kind predicates of Triton's dtype, false here as they are for Triton's pointer and block types;
    # ScalarType answers them (and the per-format is_int64(), is_fp8e5(), ... are made below DType)
    def is_bool(self) -> bool:
        return False

    def is_int_signed(self) -> bool:
        return False

    def is_int_unsigned(self) -> bool:
        return False

    def is_fp8(self) -> bool:
        return False

    def is_standard_floating(self) -> bool:
        return False

    @staticmethod
    def is_const() -> bool:
        return False   # Triton's const pointers (`tl.const`): none here, stores go through any pointer

    @staticmethod
    def is_dtype(type_str: str) -> bool:
        """Whether `type_str` names one of Triton's scalar types ('fp32', 'uint8', ...)."""
        return type_str in DType.SINT_TYPES + DType.UINT_TYPES + DType.FP_TYPES

    @property
    def scalar(self) -> Type:
        """The element type of a block, the type itself otherwise."""
        return self

    @property
    def shape(self) -> tuple[int, ...]:
        return ()

    @property
    def numel(self) -> int:
        return 1

    def with_shape(self, shape) -> Type:
        """A block of this type's scalar with `shape` (the scalar itself for an empty shape)."""
        shape = tuple(int(s) for s in shape)
        return BlockType(shape, self.scalar) if shape else self.scalar

    def __repr__(self) -> str:
        return str(self)


class _DTypeMeta(type):
    """`tl.dtype("int8")` looks a scalar type up by its Triton name, as Triton's dtype constructor does."""

    def __call__(cls, *args, **kwargs):
        if cls is DType:
            if len(args) != 1 or kwargs or not isinstance(args[0], str):
                raise TypeError("tl.dtype(name) takes one Triton type name, e.g. tl.dtype('fp32')")
            return parse_type_name(args[0])
        return super().__call__(*args, **kwargs)


class DType(Type, metaclass=_DTypeMeta):
    """A scalar or pointer element type: what `tl.float32`, `tl.pointer_type(...)` are."""

    # Triton's name lists
    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    FP_TYPES = ["fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16"] + STANDARD_FP_TYPES


def _is_named(triton_name: str):
    def predicate(self) -> bool:
        return str(self) == triton_name
    predicate.__name__ = predicate.__qualname__ = f"is_{triton_name}"
    predicate.__doc__ = f"Whether this is the scalar type {triton_name} (a pointer or a block is not)."
    return predicate


# Triton's dtype has a predicate per scalar type (`dtype.is_int64()`, `is_uint8()`, `is_fp8e4nv()`, ...):
# kernels pick code paths with them, on element types and on pointer or block types alike
for _name in DType.SINT_TYPES + DType.UINT_TYPES + DType.FP_TYPES:
    setattr(Type, f"is_{_name}", _is_named(_name))
del _name


@dataclass(frozen=True, eq=True, repr=False)
class ScalarType(DType):
    """An integer or floating point scalar. `name` is the IR spelling."""
    ir: str
    kind: Kind
    bitwidth: int
    triton_name: str
    mantissa: int = 0   # fp mantissa width (explicit bits), 0 for ints
    bias: int = 0       # fp exponent bias where numpy has no type for the format (fp8e4b15), else 0

    def __str__(self) -> str:
        return self.triton_name

    # --- predicates (Triton's tl.dtype API) ---
    def is_floating(self) -> bool:
        return self.kind == Kind.FLOAT

    def is_int(self) -> bool:
        return self.kind != Kind.FLOAT

    def is_bool(self) -> bool:
        return self.kind == Kind.BOOL

    is_int1 = is_bool

    def is_int_signed(self) -> bool:
        return self.kind == Kind.INT

    def is_int_unsigned(self) -> bool:
        return self.kind in (Kind.UINT, Kind.BOOL)

    def is_fp8(self) -> bool:
        return self.is_floating() and self.bitwidth == 8

    def is_fp16(self) -> bool:
        return self.ir == "f16"

    def is_bf16(self) -> bool:
        return self.ir == "bf16"

    def is_fp32(self) -> bool:
        return self.ir == "f32"

    def is_fp64(self) -> bool:
        return self.ir == "f64"

    def is_standard_floating(self) -> bool:
        return self.ir in ("f16", "bf16", "f32", "f64")

    @property
    def primitive_bitwidth(self) -> int:
        return self.bitwidth

    @property
    def int_bitwidth(self) -> int:
        return self.bitwidth

    @property
    def fp_mantissa_width(self) -> int:
        return self.mantissa

    @property
    def exponent_bias(self) -> int:
        """The float format's exponent bias (Triton's tl.dtype attribute): 1 - the smallest normal exponent."""
        if not self.is_floating():
            raise AttributeError(f"{self} is not a float type: it has no exponent bias")
        return self.bias or 1 - int(ml_dtypes.finfo(self.np_dtype).minexp)

    @property
    def itemsize(self) -> int:
        """Bytes one element takes in memory (i1 is stored as one byte)."""
        return max(1, self.bitwidth // 8)

    @property
    def name(self) -> str:
        return self.triton_name

    def get_int_min_value(self) -> int:
        if self.kind == Kind.INT:
            return -(1 << (self.bitwidth - 1))
        return 0

    def get_int_max_value(self) -> int:
        if self.kind == Kind.INT:
            return (1 << (self.bitwidth - 1)) - 1
        return (1 << self.bitwidth) - 1

    @property
    def np_dtype(self) -> np.dtype:
        return _NP_DTYPES[self.ir]

    def to(self, *_a, **_k):  # pragma: no cover - guards a common user slip
        raise TypeError(f"{self} is a dtype, not a tensor")


@dataclass(frozen=True, eq=True, repr=False)
class PointerType(DType):
    """A pointer to `element_ty` in global memory (64-bit addresses, offsets in elements)."""
    element_ty: DType
    address_space: int = 1

    @property
    def ir(self) -> str:
        return f"ptr<{self.element_ty.ir}>"

    def __str__(self) -> str:
        return f"pointer<{self.element_ty}>"

    def is_ptr(self) -> bool:
        return True

    @property
    def primitive_bitwidth(self) -> int:
        return 64

    @property
    def itemsize(self) -> int:
        return 8

    @property
    def name(self) -> str:
        return str(self)

    @property
    def np_dtype(self) -> np.dtype:
        return np.dtype(np.int64)


@dataclass(frozen=True, eq=True, repr=False)
class BlockType(Type):
    """A block tensor: a shape (powers of two, non-empty) of scalars or pointers."""
    dims: tuple[int, ...]
    element_ty: DType

    @property
    def ir(self) -> str:
        return "tensor<" + "".join(f"{d}x" for d in self.dims) + self.element_ty.ir + ">"

    def __str__(self) -> str:
        return f"<{list(self.dims)}, {self.element_ty}>"

    def is_block(self) -> bool:
        return True

    def is_ptr(self) -> bool:
        return False

    @property
    def scalar(self) -> DType:
        return self.element_ty

    @property
    def shape(self) -> tuple[int, ...]:
        return self.dims

    def get_block_shapes(self) -> tuple[int, ...]:
        return self.dims

    @property
    def numel(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n


@dataclass(frozen=True, eq=True, repr=False)
class TensorDescType(Type):
    """A tensor descriptor: base pointer + runtime shape/strides, loaded in blocks of `block_type`."""
    block_type: BlockType

    @property
    def ir(self) -> str:
        return "desc<" + self.block_type.ir[len("tensor<"):]

    def __str__(self) -> str:
        return f"tensordesc<{self.block_type}>"

    def is_tensor_desc(self) -> bool:
        return True


def _scalar(ir: str, kind: Kind, bits: int, tname: str, mantissa: int = 0, bias: int = 0) -> ScalarType:
    return ScalarType(ir, kind, bits, tname, mantissa, bias)


i1 = _scalar("i1", Kind.BOOL, 1, "int1")
i8 = _scalar("i8", Kind.INT, 8, "int8")
i16 = _scalar("i16", Kind.INT, 16, "int16")
i32 = _scalar("i32", Kind.INT, 32, "int32")
i64 = _scalar("i64", Kind.INT, 64, "int64")
u8 = _scalar("u8", Kind.UINT, 8, "uint8")
u16 = _scalar("u16", Kind.UINT, 16, "uint16")
u32 = _scalar("u32", Kind.UINT, 32, "uint32")
u64 = _scalar("u64", Kind.UINT, 64, "uint64")
f16 = _scalar("f16", Kind.FLOAT, 16, "fp16", 10)
bf16 = _scalar("bf16", Kind.FLOAT, 16, "bf16", 7)
f32 = _scalar("f32", Kind.FLOAT, 32, "fp32", 23)
f64 = _scalar("f64", Kind.FLOAT, 64, "fp64", 52)
f8e4m3 = _scalar("f8e4m3", Kind.FLOAT, 8, "fp8e4nv", 3)
f8e5m2 = _scalar("f8e5m2", Kind.FLOAT, 8, "fp8e5", 2)
# Storage-only fp8 formats (compiler/language/fp8_storage.py): values load, store, move and convert with
# .to(); Triton's own e4m3 with bias 15 (no inf or NaN), and AMD's "fnuz" e4m3 (bias 8) and e5m2 (bias 16)
f8e4b15 = _scalar("f8e4b15", Kind.FLOAT, 8, "fp8e4b15", 3, bias=15)
f8e4m3fnuz = _scalar("f8e4m3fnuz", Kind.FLOAT, 8, "fp8e4b8", 3)
f8e5m2fnuz = _scalar("f8e5m2fnuz", Kind.FLOAT, 8, "fp8e5b16", 2)
STORAGE_FP8 = frozenset({f8e4b15, f8e4m3fnuz, f8e5m2fnuz})

SCALARS: dict[str, ScalarType] = {t.ir: t for t in (
    i1, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64, f8e4m3, f8e5m2, f8e4b15, f8e4m3fnuz, f8e5m2fnuz)}
# Triton's names and the `tl.dtype("...")` spellings users write in signatures.
BY_TRITON_NAME: dict[str, ScalarType] = {t.triton_name: t for t in SCALARS.values()}
BY_TRITON_NAME.update({"i1": i1, "u1": i1, "fp8e4m3": f8e4m3, "fp8e5m2": f8e5m2, "bfloat16": bf16,
                       "float16": f16, "float32": f32, "float64": f64})

_NP_DTYPES: dict[str, np.dtype] = {
    "i1": np.dtype(np.bool_), "i8": np.dtype(np.int8), "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32), "i64": np.dtype(np.int64), "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16), "u32": np.dtype(np.uint32), "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16), "bf16": np.dtype(ml_dtypes.bfloat16), "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64), "f8e4m3": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8e5m2": np.dtype(ml_dtypes.float8_e5m2), "f8e4m3fnuz": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "f8e5m2fnuz": np.dtype(ml_dtypes.float8_e5m2fnuz),
    # its bits, as uint8 marked with the format (no numpy type has it), so that a host array viewed as
    # fp8e4b15 (triton.reinterpret) passes to a kernel as one
    "f8e4b15": np.dtype(np.uint8, metadata={"triton_dtype": "fp8e4b15"}),
}
_FROM_NP = {v: SCALARS[k] for k, v in _NP_DTYPES.items() if k != "f8e4b15"}   # (it == np.uint8)


def from_numpy(dt) -> ScalarType:
    """The scalar type of a numpy dtype (raises TypeError for dtypes the IR has no type for)."""
    try:
        dt = np.dtype(dt)
        if dt.metadata and "triton_dtype" in dt.metadata:
            return BY_TRITON_NAME[dt.metadata["triton_dtype"]]
        return _FROM_NP[dt]
    except (KeyError, TypeError):
        raise TypeError(f"numpy dtype {dt} has no Triton equivalent") from None


def parse_type_name(name: str) -> DType:
    """A dtype from a signature string: IR ('f32', 'ptr<f16>', '*f16') or Triton ('fp32', '*fp16')."""
    name = name.strip()
    if name.startswith("*"):
        return PointerType(parse_type_name(name[1:]))
    if name.startswith("ptr<") and name.endswith(">"):
        return PointerType(parse_type_name(name[4:-1]))
    if name in SCALARS:
        return SCALARS[name]
    if name in BY_TRITON_NAME:
        return BY_TRITON_NAME[name]
    raise ValueError(f"unknown type name {name!r}")


def literal_type(value) -> ScalarType:
    """The type Triton gives a Python literal (bool, int by range, float by magnitude)."""
    if isinstance(value, (bool, np.bool_)):
        return i1
    if isinstance(value, (int, np.integer)):
        v = int(value)
        if -2**31 <= v < 2**31:
            return i32
        if 2**31 <= v < 2**32:
            return u32
        if -2**63 <= v < 2**63:
            return i64
        if 2**63 <= v < 2**64:
            return u64
        raise ValueError(f"Nonrepresentable integer {v}.")
    if isinstance(value, (float, np.floating)):
        a = abs(float(value))
        if a == 0.0 or a != a or a == float("inf") or 2.0**-126 <= a <= (2 - 2**-23) * 2.0**127:
            return f32
        return f64
    raise TypeError(f"cannot convert {value!r} of type {type(value).__name__} to a tensor")
