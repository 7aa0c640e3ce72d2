"""Triton's semantic rules (type promotion, broadcasting, casts, memory ops) emitting IR.

The frontend pushes a `Semantic` (holding its builder) while it compiles a kernel; `tl.*`
functions and tensor operators find it with `current()`. Errors are raised as TypeError /
ValueError / CompileTimeError; the frontend adds the kernel location and caret.
"""
from __future__ import annotations

from typing import Sequence

from ..errors import CompileTimeError
from ..ir import types as T
from ..ir.builder import Builder
from ..ir.core import Block, Region
from ..ir.ops import Op
from . import fp8_storage
from .core import block_ptr, is_number, tensor, tensor_descriptor, unwrap
from .descriptor_semantic import DescriptorSemantic

_STACK: list["Semantic"] = []
# the ops a storage-only fp8 value may go through (fp8_storage.py): its bytes move, nothing computes on them
_MOVES_BYTES = frozenset({Op.LOAD, Op.STORE, Op.BITCAST, Op.SELECT, Op.SPLAT, Op.BROADCAST, Op.EXPAND_DIMS,
                          Op.RESHAPE, Op.TRANS, Op.JOIN, Op.SPLIT, Op.CAT, Op.EXTRACT_SLICE, Op.GATHER,
                          Op.DESCRIPTOR_LOAD, Op.DESCRIPTOR_STORE})

MAX_TENSOR_NUMEL = 1 << 20


def current() -> "Semantic":
    if not _STACK:
        raise CompileTimeError("tl functions can only be called inside a @jit function")
    return _STACK[-1]


def _shape(x: tensor) -> tuple:
    return tuple(x.type.shape)


def validate_block_shape(shape) -> tuple:
    shape = tuple(int(unwrap(d)) for d in shape)
    numel = 1
    for i, d in enumerate(shape):
        if d <= 0 or d & (d - 1):
            raise ValueError(f"Shape element {i} must be a power of 2, got {d}")
        numel *= d
    if numel > MAX_TENSOR_NUMEL:
        raise ValueError(f"numel ({numel}) exceeds triton maximum tensor numel ({MAX_TENSOR_NUMEL})")
    return shape


# The largest finite value of the fp8 formats that float narrowing saturates to, as on GPU Triton.
_FP8_SATURATED = {T.f8e4m3: 448.0, T.f8e5m2: 57344.0}

class Semantic(DescriptorSemantic):
    def __init__(self, builder: Builder):
        self.b = builder
        self.ast_to_ir = None     # the AST visitor (set by the frontend), for combine functions and helpers

    def __enter__(self):
        _STACK.append(self)
        return self

    def __exit__(self, *exc):
        _STACK.pop()

    # --- emission helpers ---------------------------------------------------------------------
    def _op(self, name, operands: Sequence[tensor], type: T.Type, attrs=None) -> tensor:
        if name not in _MOVES_BYTES:
            stored = next((t for t in [o.type.scalar for o in operands] + [type.scalar] if t in fp8_storage.FORMATS),
                          None)
            if stored is not None:
                raise TypeError(f"{name} on {stored}: {stored} values are only loaded, stored, moved and converted "
                                f"here (as on Triton's GPUs, which keep them as bytes): convert with "
                                f".to(tl.float16) or .to(tl.float32) first")
        v = self.b.create1(name, [o.handle for o in operands], type, attrs)
        return tensor(v, type)

    def constant(self, value, type: T.Type) -> tensor:
        if type.scalar in fp8_storage.FORMATS:     # a number in a storage fp8 format: converted as .to() does
            return fp8_storage.encode(self, self.constant(value, T.f32.with_shape(type.shape)), type.scalar)
        if isinstance(type.scalar, T.ScalarType):
            value = _normalize_constant(value, type.scalar)
        return tensor(self.b.constant(value, type), type)

    def to_tensor(self, x) -> tensor:
        x = unwrap(x)
        if isinstance(x, tensor):
            return x
        if isinstance(x, (bool, int, float)):
            return self.constant(x, T.literal_type(x))
        raise TypeError(f"cannot convert {x!r} of type {type(x).__name__} to tensor")

    # --- promotion ----------------------------------------------------------------------------
    @staticmethod
    def integer_promote(a: T.ScalarType, b: T.ScalarType) -> T.ScalarType:
        a_signed, b_signed = a.is_int_signed(), b.is_int_signed()
        if a_signed == b_signed:
            return a if a.bitwidth > b.bitwidth else b
        if not a_signed:
            return a if a.bitwidth >= b.bitwidth else b
        return b if b.bitwidth >= a.bitwidth else a

    def computation_type(self, a: T.ScalarType, a_scalar: bool, b: T.ScalarType, b_scalar: bool,
                         div_or_mod: bool) -> T.ScalarType:
        if a_scalar != b_scalar:
            sty, tty = (a, b) if a_scalar else (b, a)
            if _weak_kind(sty) <= _weak_kind(tty):
                if div_or_mod and tty in (T.f16, T.bf16):
                    return T.f32
                return tty
        if a.is_fp64() or b.is_fp64():
            return T.f64
        if a.is_fp32() or b.is_fp32():
            return T.f32
        if a.is_fp16() or b.is_fp16():
            return T.f32 if div_or_mod else T.f16
        if a.is_bf16() and b.is_bf16():
            return T.f32 if div_or_mod else T.bf16
        if a.is_bf16() or b.is_bf16():
            return T.f32
        if a.is_fp8() and b.is_fp8():
            return a if a == b else T.f16
        if a.is_fp8() or b.is_fp8():
            return a if a.is_fp8() else b
        if div_or_mod and a.is_int_signed() != b.is_int_signed():
            raise TypeError(f"Cannot use /, //, or % with {a} and {b} because they have different signedness; "
                            "this is unlikely to result in a useful answer. Cast them to the same signedness.")
        return self.integer_promote(a, b)

    def binary_operands(self, lhs, rhs, allow_lhs_ptr=False, allow_rhs_ptr=False, arithmetic_check=True,
                        div_or_mod=False) -> tuple[tensor, tensor]:
        lhs_scalar, rhs_scalar = is_number(lhs), is_number(rhs)
        lv, rv = unwrap(lhs), unwrap(rhs)
        # a weak scalar only contributes its literal type here; its constant is emitted once, below
        lhs_t = _Typed(T.literal_type(lv)) if lhs_scalar else _as_tensor(lhs)
        rhs_t = _Typed(T.literal_type(rv)) if rhs_scalar else _as_tensor(rhs)
        lty, rty = lhs_t.type.scalar, rhs_t.type.scalar
        _check_ptr(lty, rty, allow_lhs_ptr)
        _check_ptr(rty, lty, allow_rhs_ptr)
        if arithmetic_check and not lty.is_ptr() and not rty.is_ptr():
            ret = self.computation_type(lty, lhs_scalar, rty, rhs_scalar, div_or_mod)
            for is_sc, v in ((lhs_scalar, lv), (rhs_scalar, rv)):
                if not is_sc:
                    continue
                if v < 0 and ret.is_int_unsigned():
                    raise ValueError("Cannot perform a binary operation between an unsigned tensor and a negative "
                                     "scalar. Perform a explicit cast on one of them.")
                if ret.is_int() and not (ret.get_int_min_value() <= v <= ret.get_int_max_value()):
                    raise ValueError(f"Scalar {v} is out of range for type {ret}")
            # a weak scalar becomes a constant of the other operand's shape directly (no splat)
            lhs_t = lhs_t if lhs_scalar else self.cast(lhs_t, ret)
            rhs_t = rhs_t if rhs_scalar else self.cast(rhs_t, ret)
            if lhs_scalar:
                lhs_t = self.constant(lv, ret.with_shape(rhs_t.type.shape if not rhs_scalar else ()))
            if rhs_scalar:
                rhs_t = self.constant(rv, ret.with_shape(lhs_t.type.shape))
        else:
            lhs_t = self.to_tensor(lv) if lhs_scalar else lhs_t
            rhs_t = self.to_tensor(rv) if rhs_scalar else rhs_t
        return self.broadcast_pair(lhs_t, rhs_t)

    # --- broadcasting -------------------------------------------------------------------------
    def splat(self, x: tensor, shape) -> tensor:
        shape = tuple(shape)
        if not shape:
            return x
        if x.type.is_block():
            raise ValueError("Cannot splat a block tensor")
        ty = T.BlockType(shape, x.type)
        if x.handle.owner is not None and getattr(x.handle.owner, "name", None) == Op.CONSTANT:
            return self.constant(x.handle.owner.attrs["value"], ty)   # keep constants foldable
        return self._op(Op.SPLAT, [x], ty)

    def broadcast_to(self, x: tensor, shape) -> tensor:
        shape = tuple(int(unwrap(s)) for s in shape)
        if not x.type.is_block():
            return self.splat(x, shape)
        src = _shape(x)
        if len(src) != len(shape):
            raise ValueError(f"Cannot broadcast, rank mismatch: {list(src)}, {list(shape)}")
        if src == shape:
            return x
        for i, d in enumerate(src):
            if shape[i] != d and d != 1:
                raise ValueError(f"Cannot broadcast, the expanded size of the tensor ({shape[i]}) must match the "
                                 f"existing size ({d}) at non-singleton dimension {i}: {list(src)}, {list(shape)}")
        return self._op(Op.BROADCAST, [x], T.BlockType(shape, x.type.scalar))

    def broadcast_pair(self, a: tensor, b: tensor) -> tuple[tensor, tensor]:
        ab, bb = a.type.is_block(), b.type.is_block()
        if ab and not bb:
            return a, self.splat(b, _shape(a))
        if bb and not ab:
            return self.splat(a, _shape(b)), b
        if not ab:
            return a, b
        while len(_shape(a)) < len(_shape(b)):
            a = self.expand_dims(a, 0)
        while len(_shape(b)) < len(_shape(a)):
            b = self.expand_dims(b, 0)
        out = []
        for i, (l, r) in enumerate(zip(_shape(a), _shape(b))):
            if l == 1:
                out.append(r)
            elif r == 1 or r == l:
                out.append(l)
            else:
                raise ValueError(f"Cannot make_shape_compatible: incompatible dimensions at index {i}: {l} and {r}")
        return self.broadcast_to(a, out), self.broadcast_to(b, out)

    # --- arithmetic ---------------------------------------------------------------------------
    def add(self, a, b) -> tensor:
        a, b = self.binary_operands(a, b, True, True)
        at, bt = a.type.scalar, b.type.scalar
        if at.is_ptr() and bt.is_ptr():
            raise TypeError("cannot add pointers together")
        if bt.is_ptr():
            a, b, at, bt = b, a, bt, at
        if at.is_ptr():
            return self.addptr(a, b)
        if at.is_bool():   # i1 arithmetic is mod 2, as on a GPU: True + True == False
            return self._op(Op.XORI, [a, b], a.type)
        return self._op(Op.ADDF if at.is_floating() else Op.ADDI, [a, b], a.type)

    def addptr(self, ptr: tensor, off: tensor) -> tensor:
        if off.type.scalar.is_int_unsigned() and off.type.scalar.bitwidth < 64:
            off = self._op(Op.EXTUI, [off], T.i64.with_shape(_shape(off)))  # addptr offsets are signed
        return self._op(Op.ADDPTR, [ptr, off], ptr.type)

    def sub(self, a, b) -> tensor:
        a, b = self.binary_operands(a, b, True, False)
        if a.type.scalar.is_ptr():
            return self.addptr(a, self.minus(b))
        if a.type.scalar.is_bool():   # mod 2: a - b == a ^ b (True - True == False, False - True == True)
            return self._op(Op.XORI, [a, b], a.type)
        return self._op(Op.SUBF if a.type.scalar.is_floating() else Op.SUBI, [a, b], a.type)

    def mul(self, a, b) -> tensor:
        a, b = self.binary_operands(a, b)
        return self._op(Op.MULF if a.type.scalar.is_floating() else Op.MULI, [a, b], a.type)

    def truediv(self, a, b) -> tensor:
        a, b = self.binary_operands(a, b, div_or_mod=True)
        at, bt = a.type.scalar, b.type.scalar
        if at.is_floating() and bt.is_int():
            b = self.cast(b, at)
        elif at.is_int() and bt.is_floating():
            a = self.cast(a, bt)
        elif at.is_int() and bt.is_int():
            a, b = self.cast(a, T.f32), self.cast(b, T.f32)
        elif at.fp_mantissa_width > bt.fp_mantissa_width:
            b = self.cast(b, at)
        else:
            a = self.cast(a, bt)
        return self._op(Op.DIVF, [a, b], a.type)

    def floordiv(self, a, b) -> tensor:
        a, b = self.binary_operands(a, b, div_or_mod=True)
        at, bt = a.type.scalar, b.type.scalar
        if not (at.is_int() and bt.is_int()):
            raise TypeError(f"unexpected type {at} for floordiv; // is only defined for integers")
        return self._op(Op.DIVSI if at.is_int_signed() else Op.DIVUI, [a, b], a.type)

    def mod(self, a, b) -> tensor:
        a, b = self.binary_operands(a, b, div_or_mod=True)
        st = a.type.scalar
        if st.is_floating():
            return self._op(Op.REMF, [a, b], a.type)
        return self._op(Op.REMSI if st.is_int_signed() else Op.REMUI, [a, b], a.type)

    def fdiv(self, a, b, ieee_rounding=False) -> tensor:
        a, b = _as_tensor(self.to_tensor(a)), _as_tensor(self.to_tensor(b))
        if not a.type.scalar.is_floating() or not b.type.scalar.is_floating():
            raise TypeError("both operands of fdiv must have floating scalar type")
        a, b = self.binary_operands(a, b, div_or_mod=True)
        return self._op(Op.PRECISE_DIVF if ieee_rounding else Op.DIVF, [a, b], a.type)

    def minus(self, x) -> tensor:
        x = self.to_tensor(x)
        if x.type.scalar.is_ptr():
            raise ValueError(f"wrong type argument to unary minus ({x.type.scalar})")
        if x.type.scalar.is_floating():
            return self._op(Op.NEGF, [x], x.type)
        return self.sub(self.constant(0, x.type), x)

    def invert(self, x) -> tensor:
        x = self.to_tensor(x)
        st = x.type.scalar
        if st.is_ptr() or st.is_floating():
            raise ValueError(f"wrong type argument to unary invert ({st})")
        ones = -1 if st.is_int_signed() else st.get_int_max_value()
        return self.xor_(x, self.constant(ones, x.type))

    def _bitwise(self, a, b) -> tuple[tensor, tensor]:
        a, b = self.binary_operands(a, b)
        at, bt = a.type.scalar, b.type.scalar
        if not at.is_int() or not bt.is_int():
            raise TypeError(f"invalid operands of type {at} and {bt} for a bitwise operation")
        ret = self.integer_promote(at, bt)
        return self.cast(a, ret), self.cast(b, ret)

    def and_(self, a, b):
        a, b = self._bitwise(a, b)
        return self._op(Op.ANDI, [a, b], a.type)

    def or_(self, a, b):
        a, b = self._bitwise(a, b)
        return self._op(Op.ORI, [a, b], a.type)

    def xor_(self, a, b):
        a, b = self._bitwise(a, b)
        return self._op(Op.XORI, [a, b], a.type)

    def shl(self, a, b):
        a, b = self._bitwise(a, b)
        return self._op(Op.SHLI, [a, b], a.type)

    def shr(self, a, b):
        # Triton picks the arithmetic or the logical shift by the tensor operand's own signedness (the
        # left one's, else the right one's), before promotion: int8 >> uint8 promotes to uint8 but still
        # shifts arithmetically, keeping the sign bit of the value widened from int8
        own = a if isinstance(a, tensor) else b
        arithmetic = own.type.scalar.is_int_signed() if isinstance(own, tensor) else True
        pa, pb = self._bitwise(a, b)
        t = pa.type.scalar
        if arithmetic and not t.is_int_signed():
            # the operands cast to the signed type of the promoted width before they are broadcast
            # (a broadcast scalar is not bitcast afterwards: MTIA keeps it a scalar, not a tile)
            signed = T.SCALARS[f"i{t.int_bitwidth}"]
            sa, sb = self._bitwise(*(self.cast(self.to_tensor(v), signed) for v in (a, b)))
            return self.bitcast(self._op(Op.SHRSI, [sa, sb], sa.type), t)
        return self._op(Op.SHRSI if t.is_int_signed() else Op.SHRUI, [pa, pb], pa.type)

    def _to_bool(self, x) -> tensor:
        x = self.to_tensor(x)
        return x if x.type.scalar == T.i1 else self.cast(x, T.i1)

    def logical_and(self, a, b):
        return self.and_(self._to_bool(a), self._to_bool(b))

    def logical_or(self, a, b):
        return self.or_(self._to_bool(a), self._to_bool(b))

    def logical_not(self, x):
        return self.invert(self._to_bool(x))

    # --- comparisons --------------------------------------------------------------------------
    def _compare(self, a, b, fpred: str, spred: str, upred: str) -> tensor:
        a, b = self.binary_operands(a, b)
        st = a.type.scalar
        out = T.i1.with_shape(_shape(a))
        if st.is_floating():
            return self._op(Op.CMPF, [a, b], out, {"predicate": fpred})
        if st.is_ptr():
            a = self._op(Op.PTR_TO_INT, [a], T.i64.with_shape(_shape(a)))
            b = self._op(Op.PTR_TO_INT, [b], T.i64.with_shape(_shape(b)))
            st = T.i64
        return self._op(Op.CMPI, [a, b], out, {"predicate": spred if st.is_int_signed() else upred})

    def less_than(self, a, b):
        return self._compare(a, b, "olt", "slt", "ult")

    def less_equal(self, a, b):
        return self._compare(a, b, "ole", "sle", "ule")

    def greater_than(self, a, b):
        return self._compare(a, b, "ogt", "sgt", "ugt")

    def greater_equal(self, a, b):
        return self._compare(a, b, "oge", "sge", "uge")

    def equal(self, a, b):
        return self._compare(a, b, "oeq", "eq", "eq")

    def not_equal(self, a, b):
        return self._compare(a, b, "une", "ne", "ne")

    # --- min / max / misc elementwise ---------------------------------------------------------
    def promote_bf16_to_f32(self, x) -> tensor:
        """x as a tensor, widened to f32 if it is bf16: Triton computes min / max / clamp and the
        scans cumsum / cumprod of bf16 in f32 (its targets have no bf16 max, min or compare)."""
        x = self.to_tensor(x)
        return self.cast(x, T.f32) if x.type.scalar == T.bf16 else x

    def minimum(self, a, b, propagate_nan=False):
        a, b = self.binary_operands(a, b)
        st = a.type.scalar
        if st.is_floating():
            return self._op(Op.MINIMUMF if propagate_nan else Op.MINNUMF, [a, b], a.type)
        return self._op(Op.MINSI if st.is_int_signed() else Op.MINUI, [a, b], a.type)

    def maximum(self, a, b, propagate_nan=False):
        a, b = self.binary_operands(a, b)
        st = a.type.scalar
        if st.is_floating():
            return self._op(Op.MAXIMUMF if propagate_nan else Op.MAXNUMF, [a, b], a.type)
        return self._op(Op.MAXSI if st.is_int_signed() else Op.MAXUI, [a, b], a.type)

    def clamp(self, x, lo, hi, propagate_nan=False):
        lo, hi = self.binary_operands(lo, hi)
        x, lo = self.binary_operands(x, lo)
        x, hi = self.binary_operands(x, hi)
        if not x.type.scalar.is_floating():
            raise TypeError(f"Unexpected dtype {x.type.scalar}. Only floating point clamp is supported")
        return self.minimum(self.maximum(x, lo, propagate_nan), hi, propagate_nan)

    def umulhi(self, a, b):
        a, b = self.binary_operands(a, b)
        if a.type.scalar not in (T.i32, T.u32, T.i64, T.u64):
            raise TypeError(f"umulhi expects int32/uint32/int64/uint64 operands, got {a.type.scalar}")
        return self._op(Op.MULHIUI, [a, b], a.type)

    def math_unary(self, op: str, x, kinds=("float",)) -> tensor:
        x = self.to_tensor(x)
        st = x.type.scalar
        if not st.is_floating():
            raise TypeError(f"Expected dtype ['fp16', 'bf16', 'fp32', 'fp64'] but got {st} for {op.split('.')[-1]}")
        return self._op(op, [x], x.type)

    def math_binary(self, op: str, a, b) -> tensor:
        """A float math function of two operands (math.powf, math.atan2), promoted and broadcast like +."""
        a, b = self.binary_operands(a, b)
        if not a.type.scalar.is_floating():
            raise TypeError(f"Expected floating point operands but got {a.type.scalar} for {op.split('.')[-1]}")
        return self._op(op, [a, b], a.type)

    def float_test(self, op: str, x) -> tensor:
        """A float classification (math.isnan, math.isinf): i1 of x's shape."""
        x = self.to_tensor(x)
        if not x.type.scalar.is_floating():
            raise TypeError(f"Expected a floating point operand but got {x.type.scalar} for {op.split('.')[-1]}")
        return self._op(op, [x], T.i1.with_shape(_shape(x)))

    def abs(self, x):
        x = self.to_tensor(x)
        st = x.type.scalar
        if st in fp8_storage.FORMATS:
            return fp8_storage.abs(self, x)
        if st.is_floating():
            return self._op(Op.ABSF, [x], x.type)
        if st.is_int_signed():
            return self._op(Op.ABSI, [x], x.type)
        if st.is_int_unsigned():
            return x
        raise TypeError(f"Unexpected dtype {st} for abs")

    def fma(self, x, y, z):
        x, y = self.binary_operands(x, y)
        x, z = self.binary_operands(x, z)
        x, y = self.binary_operands(x, y)
        if not x.type.scalar.is_floating():
            raise TypeError(f"fma expects floating point operands, got {x.type.scalar}")
        return self._op(Op.FMA, [x, y, z], x.type)

    def where(self, cond, x, y):
        cond = self._to_bool(cond)
        x, y = self.binary_operands(x, y, True, True)
        if cond.type.is_block():
            cond, x = self.broadcast_pair(cond, x)
            x, y = self.broadcast_pair(x, y)
            cond, x = self.broadcast_pair(cond, x)
        elif x.type.is_block():
            cond = self.splat(cond, _shape(x))
        return self._op(Op.SELECT, [cond, x, y], x.type)

    # --- casts --------------------------------------------------------------------------------
    def cast(self, x, dst, fp_downcast_rounding=None) -> tensor:
        x = self.to_tensor(x)
        dst = unwrap(dst)
        if isinstance(dst, T.BlockType):
            dst = dst.scalar
        if not isinstance(dst, T.DType):
            raise TypeError(f"cannot cast to {dst!r}: not a dtype")
        src = x.type.scalar
        shape = _shape(x)
        out = dst.with_shape(shape)
        if src == dst:
            return x
        narrowing_fp = src.is_floating() and dst.is_floating() and dst.bitwidth < src.bitwidth
        if fp_downcast_rounding is not None and not narrowing_fp:
            raise ValueError("fp_downcast_rounding should be set only for truncating fp conversions. "
                             f"Source scalar type is {src} and destination type is {dst}")
        if fp_downcast_rounding not in (None, "rtne", "rtz"):
            raise ValueError(f"Invalid rounding mode: {fp_downcast_rounding}. Supported rounding modes are "
                             "'rtne' and 'rtz'.")
        if src.is_floating() and src.is_fp8() and dst.is_int():
            # Triton (3.6, on an H100) refuses fp8 to any integer type, bool included; go through a float
            raise TypeError(f"cannot cast {x.type} to {out}")
        if dst in fp8_storage.FORMATS and not src.is_ptr():
            return fp8_storage.encode(self, x, dst, fp_downcast_rounding)
        if src in fp8_storage.FORMATS and not dst.is_ptr():
            return fp8_storage.decode(self, x, dst)
        if fp_downcast_rounding == "rtz" and narrowing_fp:
            return self._round_toward_zero(x, dst)
        if (src.is_floating() and dst.is_floating()) and (src.is_fp8() or dst.is_fp8()):
            if dst in _FP8_SATURATED and src != T.f8e4m3:
                x = self._saturate(x, _FP8_SATURATED[dst])
            return self.fp_to_fp_overflowing(x, dst)
        if src in (T.f16, T.bf16) and dst.is_floating() and dst != T.f32 and not dst.is_fp64():
            return self.cast(self.cast(x, T.f32), dst)
        if src.is_floating() and dst.is_floating():
            return self._op(Op.TRUNCF if narrowing_fp else Op.EXTF, [x], out)
        if src.is_int() and dst.is_int():
            if dst.is_bool():
                return self.not_equal(x, self.constant(0, x.type))
            if src.bitwidth == dst.bitwidth:
                return self._op(Op.BITCAST, [x], out)
            if dst.bitwidth < src.bitwidth:
                return self._op(Op.TRUNCI, [x], out)
            sign_extend = src.is_int_signed()
            return self._op(Op.EXTSI if sign_extend else Op.EXTUI, [x], out)
        if src.is_floating() and dst.is_int():
            if dst.is_bool():
                return self.not_equal(x, self.constant(0.0, x.type))
            return self._op(Op.FPTOSI if dst.is_int_signed() else Op.FPTOUI, [x], out)
        if src.is_int() and dst.is_floating():
            return self._op(Op.UITOFP if src.is_int_unsigned() else Op.SITOFP, [x], out)
        if src.is_ptr() and dst.is_int():
            as_int = self._op(Op.PTR_TO_INT, [x], T.i64.with_shape(shape))
            if dst.bitwidth == 64:
                return self.cast(as_int, dst)
            if dst.is_bool():
                return self.not_equal(as_int, self.constant(0, as_int.type))
            raise TypeError(f"cannot cast {x.type} to {dst}: pointers only convert to 64-bit integers")
        if src.is_int() and dst.is_ptr():
            if src != T.i64:
                x = self.cast(x, T.i64)
            return self._op(Op.INT_TO_PTR, [x], out)
        if src.is_ptr() and dst.is_ptr():
            return self._op(Op.PTR_BITCAST, [x], out)
        raise TypeError(f"cannot cast {x.type} to {dst}")

    def fp_to_fp_overflowing(self, x, dst) -> tensor:
        """The bare conversion to or from fp8, rounding to nearest even; past the largest finite fp8 it
        gives inf (e5m2) or NaN (e4m3). fp8_storage's encoders count codes past it; `cast` saturates."""
        return self._op(Op.FP_TO_FP, [x], dst.with_shape(_shape(x)))

    def _saturate(self, x, top: float) -> tensor:
        """x clamped to [-top, top], NaN kept: GPU Triton narrows to e4m3/e5m2 with cvt.rn.satfinite, so
        values past the largest finite fp8 (inf included) give it rather than NaN or inf. `top` is
        exact in every float type, and rounding is monotonic, so clamping first saturates either mode."""
        return self.maximum(self.minimum(x, top, propagate_nan=True), -top, propagate_nan=True)

    def _round_toward_zero(self, x, dst) -> tensor:
        """A narrowing float conversion rounded toward zero: to nearest, then one ulp back toward zero
        wherever that moved away from zero (a float's bits, read as an integer, step one ulp of its
        magnitude per unit, inf back to the largest finite value), so executors need one rounding mode."""
        r = self.cast(x, dst)
        away = self.greater_than(self.abs(self.cast(r, x.type.scalar)), self.abs(x))
        bits = self.bitcast(r, {8: T.u8, 16: T.u16, 32: T.u32}[dst.bitwidth])
        return self.bitcast(self.where(away, self.sub(bits, 1), bits), dst)

    def bitcast(self, x, dst) -> tensor:
        x = self.to_tensor(x)
        dst = unwrap(dst)
        src = x.type.scalar
        if src == dst:
            return x
        if src.is_ptr() or dst.is_ptr():
            return self.cast(x, dst)
        if src.primitive_bitwidth != dst.primitive_bitwidth:
            raise ValueError(f"Cannot bitcast data-type of size {src.primitive_bitwidth} to data-type of size "
                             f"{dst.primitive_bitwidth}")
        return self._op(Op.BITCAST, [x], dst.with_shape(_shape(x)))

    # --- creation -----------------------------------------------------------------------------
    def program_id(self, axis) -> tensor:
        axis = unwrap(axis)
        if axis not in (0, 1, 2):
            raise ValueError(f"program_id axis must be 0, 1, or 2 but got {axis}")
        return self._op(Op.GET_PROGRAM_ID, [], T.i32, {"axis": axis})

    def num_programs(self, axis) -> tensor:
        axis = unwrap(axis)
        if axis not in (0, 1, 2):
            raise ValueError(f"num_programs axis must be 0, 1, or 2 but got {axis}")
        return self._op(Op.GET_NUM_PROGRAMS, [], T.i32, {"axis": axis})

    def arange(self, start, end) -> tensor:
        start, end = unwrap(start), unwrap(end)
        if not isinstance(start, int) or not isinstance(end, int) or isinstance(start, bool):
            raise ValueError("arange's arguments must be of type tl.constexpr")
        if (start >> 32) or (end >> 32):
            raise ValueError("arange must fit in int32")
        if end <= start:
            raise ValueError("arange's end argument must be greater than the start argument")
        n = end - start
        if n & (n - 1):
            raise ValueError("arange's range must be a power of 2")
        validate_block_shape([n])
        return self._op(Op.MAKE_RANGE, [], T.BlockType((n,), T.i32), {"start": start, "end": end})

    def full(self, shape, value, dtype) -> tensor:
        shape = validate_block_shape(unwrap(shape) if not isinstance(unwrap(shape), int) else [shape])
        dtype = unwrap(dtype)
        value = unwrap(value)
        if isinstance(value, tensor):
            if value.type.numel != 1:
                raise ValueError("only accepts size-1 tensor")
            v = self.cast(value, dtype) if dtype is not None else value
            if v.type.is_block():
                v = self.reshape(v, ())
            return self.splat(v, shape)
        if dtype is None:
            raise ValueError("dtype must be specified when value is not a tensor")
        return self.constant(value, dtype.with_shape(shape))

    # --- shapes -------------------------------------------------------------------------------
    def expand_dims(self, x, axis) -> tensor:
        x = self.to_tensor(x)
        axes = [unwrap(a) for a in axis] if isinstance(unwrap(axis), (list, tuple)) else [unwrap(axis)]
        rank = len(_shape(x)) + len(axes)
        for a in axes:   # the axis as the user wrote it
            if not -rank <= a < rank:
                raise ValueError(f"invalid axis {a} for expand_dims of a rank-{rank - len(axes)} tensor: "
                                 f"expected {-rank} <= axis < {rank}")
        axes = sorted(a + rank if a < 0 else a for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError(f"expand_dims received duplicate axes, normalized axes = {axes}")
        for a in axes:
            shape = list(_shape(x))
            shape.insert(a, 1)
            if not x.type.is_block():
                x = self.splat(x, shape)
            else:
                x = self._op(Op.EXPAND_DIMS, [x], T.BlockType(tuple(shape), x.type.scalar), {"axis": a})
        return x

    def subscript(self, x: tensor, slices) -> tensor:
        slices = unwrap(slices)
        if not isinstance(slices, tuple):
            slices = (slices,)
        out, dim = x, 0
        for s in slices:
            s = unwrap(s)
            if s is None:
                out = self.expand_dims(out, dim)
                dim += 1
            elif isinstance(s, slice) and all(unwrap(p) is None for p in (s.start, s.stop, s.step)):
                dim += 1
            else:
                raise ValueError(f"unsupported tensor index: {s}")
        return out

    def reshape(self, x, shape, can_reorder=False) -> tensor:
        x = self.to_tensor(x)
        shape = tuple(int(unwrap(d)) for d in shape)
        numel = 1
        for d in shape:
            numel *= d
        if numel != x.type.numel:
            raise ValueError("reshape() cannot change total number of elements in tensor")
        if shape == _shape(x):
            return x
        if not shape:
            # a 1-element block to a scalar: reduce it away (the IR has no 0-d blocks)
            flat = self.reshape(x, (1,)) if len(_shape(x)) != 1 else x
            return self.reduce([flat], 0, lambda a, b: [self.add(a[0], b[0]) if not a[0].type.scalar.is_ptr()
                                                        else a[0]])[0]
        if not x.type.is_block():
            return self.splat(x, shape)
        validate_block_shape(shape)
        return self._op(Op.RESHAPE, [x], T.BlockType(shape, x.type.scalar), {"allow_reorder": bool(can_reorder)})

    def permute(self, x, dims) -> tensor:
        x = self.to_tensor(x)
        rank = len(_shape(x))
        if dims is None:
            if rank != 2:
                raise ValueError(f"trans() without dims needs a 2-D tensor, got rank {rank}")
            dims = (1, 0)
        dims = [unwrap(d) for d in (dims[0] if len(dims) == 1 and isinstance(unwrap(dims[0]), (tuple, list))
                                     else dims)]
        if len(dims) != rank:
            raise ValueError("permute dims must have the same length as input shape")
        if sorted(dims) != list(range(rank)):
            raise ValueError(f"permute dims must be a permutation of 0, 1, ..., n-1, but were {dims}")
        if dims == list(range(rank)):
            return x
        shape = tuple(_shape(x)[d] for d in dims)
        return self._op(Op.TRANS, [x], T.BlockType(shape, x.type.scalar), {"order": dims})

    def join(self, a, b) -> tensor:
        a, b = self.broadcast_pair(self.to_tensor(a), self.to_tensor(b))
        if a.type != b.type:
            raise TypeError(f"join requires operands of one type, got {a.type.scalar} and {b.type.scalar}")
        was_scalar = not a.type.is_block()
        if was_scalar:
            a, b = self.expand_dims(a, 0), self.expand_dims(b, 0)
        out = self._op(Op.JOIN, [a, b], T.BlockType(_shape(a) + (2,), a.type.scalar))
        return self.reshape(out, (2,)) if was_scalar else out

    def split(self, x) -> tuple[tensor, tensor]:
        x = self.to_tensor(x)
        if not _shape(x) or _shape(x)[-1] != 2:
            raise ValueError(f"split() requires a last dimension of size 2, got shape {list(_shape(x))}")
        ty = x.type.scalar.with_shape(_shape(x)[:-1])
        op = self.b.create(Op.SPLIT, [x.handle], [ty, ty])
        return tensor(op.results[0], ty), tensor(op.results[1], ty)

    def interleave(self, a, b) -> tensor:
        c = self.join(a, b)
        shape = _shape(c)
        if len(shape) == 1:
            return c
        return self.reshape(c, shape[:-2] + (2 * shape[-2],))

    def cat(self, a, b, can_reorder=False, dim=0) -> tensor:
        """a and b one after the other along `dim` (negative counts from the end). As in Triton the
        shapes must be equal; along a later dim the result is join's pairs moved before `dim` and merged."""
        a, b = self.to_tensor(a), self.to_tensor(b)
        rank = len(_shape(a))
        if len(_shape(b)) != rank:
            raise ValueError(f"tensors must have the same rank, got {rank} and {len(_shape(b))}")
        if not -rank <= dim < max(rank, 1):
            raise ValueError(f"cat: dim {dim} is out of range for rank {rank}")
        dim = dim % rank if rank else 0
        if rank and _shape(a) != _shape(b):   # sizes that differ would sum to a size not a power of 2
            raise ValueError(f"tl.cat requires tensors of the same shape, got {list(_shape(a))} and "
                             f"{list(_shape(b))}")
        if dim != 0:
            pairs = self.join(a, b)
            order = list(range(rank))
            order.insert(dim, rank)
            shape = list(_shape(a))
            shape[dim] *= 2
            return self.reshape(self.permute(pairs, order), shape)
        if a.type.scalar != b.type.scalar or not a.type.is_block() or _shape(a)[1:] != _shape(b)[1:]:
            raise ValueError(f"cannot concatenate {a.type} and {b.type}")
        shape = (_shape(a)[0] + _shape(b)[0],) + _shape(a)[1:]
        validate_block_shape(shape)
        return self._op(Op.CAT, [a, b], T.BlockType(shape, a.type.scalar))

    def extract_slice(self, x, offsets, sizes, strides) -> tensor:
        x = self.to_tensor(x)
        offsets, sizes, strides = ([int(unwrap(v)) for v in unwrap(seq)] for seq in (offsets, sizes, strides))
        rank = len(_shape(x))
        if not (len(offsets) == len(sizes) == len(strides) == rank):
            raise ValueError(f"extract_slice needs {rank} offsets, sizes and strides")
        for o, n, st, d in zip(offsets, sizes, strides, _shape(x)):
            if o < 0 or st < 1 or o + (n - 1) * st >= d:
                raise ValueError(f"extract_slice [{o}:{o + n * st}:{st}] is out of bounds of a dimension of size {d}")
        validate_block_shape(sizes)
        return self._op(Op.EXTRACT_SLICE, [x], T.BlockType(tuple(sizes), x.type.scalar),
                        {"offsets": offsets, "sizes": sizes, "strides": strides})

    # --- memory -------------------------------------------------------------------------------
    def _memory_attrs(self, cache, evict, volatile=False) -> dict:
        attrs = {}
        if cache:
            attrs["cache"] = str(cache)
        if evict:
            attrs["evict"] = str(evict)
        if volatile:
            attrs["is_volatile"] = True
        return attrs

    # --- block pointers (tl.make_block_ptr): expanded into pointer blocks and masks ---
    def make_block_ptr(self, base, shape, strides, offsets, block_shape, order) -> block_ptr:
        base = _as_tensor(base)
        if base.type.is_block() or not base.type.scalar.is_ptr():
            raise ValueError(f"Expected a scalar pointer as the base of make_block_ptr, got {base.type}")
        shape, strides, offsets = (list(unwrap(x)) for x in (shape, strides, offsets))
        block_shape, order = [int(unwrap(b)) for b in unwrap(block_shape)], [int(unwrap(o)) for o in unwrap(order)]
        rank = len(block_shape)
        if not (len(shape) == len(strides) == len(offsets) == len(order) == rank):
            raise ValueError("make_block_ptr: shape, strides, offsets, block_shape and order must have one length")
        if sorted(order) != list(range(rank)):
            raise ValueError(f"make_block_ptr: order must be a permutation of 0..{rank - 1}, got {order}")
        validate_block_shape(block_shape)
        return block_ptr(base, [self.cast(self.to_tensor(x), T.i64) for x in shape],
                         [self.cast(self.to_tensor(x), T.i64) for x in strides],
                         [self.cast(self.to_tensor(x), T.i32) for x in offsets], block_shape, order)

    def advance(self, bp: block_ptr, offsets) -> block_ptr:
        offsets = list(unwrap(offsets))
        if len(offsets) != len(bp.block_shape):
            raise ValueError(f"advance needs {len(bp.block_shape)} offsets, got {len(offsets)}")
        new = [self.add(o, self.cast(self.to_tensor(d), T.i32)) for o, d in zip(bp.offsets, offsets)]
        return block_ptr(bp.base, bp.shape, bp.strides, new, bp.block_shape, bp.order)

    def block_coordinate(self, n: int, start, d: int, rank: int) -> tensor:
        """start + arange(n) along dimension d of a rank-`rank` block (size 1 along the others): one index of
        every element of a block whose corner is at `start` (block pointers and descriptors)."""
        idx = self.add(self.arange(0, n), start)                           # i32 [n]
        for _ in range(d):
            idx = self.expand_dims(idx, 0)
        for _ in range(d + 1, rank):
            idx = self.expand_dims(idx, len(idx.type.shape))
        return idx

    def _expand_block_ptr(self, bp: block_ptr, boundary_check) -> tuple[tensor, tensor | None]:
        rank = len(bp.block_shape)
        check = sorted({int(unwrap(d)) for d in (unwrap(boundary_check) or ())})
        if any(not 0 <= d < rank for d in check):
            raise ValueError(f"boundary_check dimensions must be in [0, {rank}), got {check}")
        offset, mask = None, None
        for d, n in enumerate(bp.block_shape):
            idx = self.block_coordinate(n, bp.offsets[d], d, rank)
            term = self.mul(self.cast(idx, T.i64), bp.strides[d])
            offset = term if offset is None else self.add(offset, term)
            if d in check:
                ok = self.logical_and(self.greater_equal(idx, 0), self.less_than(self.cast(idx, T.i64), bp.shape[d]))
                mask = ok if mask is None else self.logical_and(mask, ok)
        offset = self.broadcast_to(offset, bp.block_shape)
        ptrs = self.addptr(self.splat(bp.base, bp.block_shape), offset)
        return ptrs, (self.broadcast_to(mask, bp.block_shape) if mask is not None else None)

    def load(self, ptr, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
             eviction_policy="", volatile=False) -> tensor:
        if isinstance(unwrap(ptr), block_ptr):
            if mask is not None or other is not None:
                raise ValueError("`mask` and `other` arguments cannot be specified for loading block pointers")
            ptrs, bmask = self._expand_block_ptr(unwrap(ptr), boundary_check)
            elem = ptrs.type.scalar.element_ty
            if padding_option not in ("", None, "zero", "nan"):
                raise ValueError(f"Padding option {padding_option} not supported")
            if padding_option == "nan" and not elem.is_floating():
                raise ValueError("Padding option `nan` is not supported for integer block pointers")
            fill = None if bmask is None else (float("nan") if padding_option == "nan" else 0)
            return self.load(ptrs, bmask, fill, (), "", cache_modifier, eviction_policy, volatile)
        if isinstance(unwrap(ptr), tensor_descriptor):
            raise ValueError("Unsupported ptr type: a tensor descriptor in `tl.load`; use desc.load(offsets)")
        ptr = _as_tensor(ptr)
        if not ptr.type.scalar.is_ptr():
            raise ValueError(f"Unsupported ptr type {ptr.type} in `tl.load`")
        if mask is None and other is not None:
            raise ValueError("`other` cannot be provided without `mask`")
        if boundary_check or padding_option:
            raise ValueError("`padding_option` or `boundary_check` argument is not supported for loading a tensor "
                             "of pointers or loading a scalar; use a tensor descriptor instead")
        shape = _shape(ptr)
        elem = ptr.type.scalar.element_ty
        if mask is not None:
            mask = self._to_bool(mask)
            if not ptr.type.is_block() and mask.type.is_block():
                raise ValueError("Mask argument cannot be block type if pointer argument is not a block")
            mask = self.broadcast_to(mask, shape)
        if other is not None:
            other = self.to_tensor(other)
            if not ptr.type.is_block() and other.type.is_block():
                raise ValueError("Other argument cannot be block type if pointer argument is not a block")
            other = self.broadcast_to(self.cast(other, elem), shape)
        is_bool = elem == T.i1
        if is_bool:   # bools live in memory as bytes
            ptr = self.cast(ptr, T.PointerType(T.i8))
            if other is not None:
                other = self.cast(other, T.i8)
            elem = T.i8
        operands = [ptr] + ([mask] if mask is not None else []) + ([other] if other is not None else [])
        out = self._op(Op.LOAD, operands, elem.with_shape(shape),
                       self._memory_attrs(cache_modifier, eviction_policy, volatile))
        return self.cast(out, T.i1) if is_bool else out

    def store(self, ptr, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy="") -> None:
        if isinstance(unwrap(ptr), block_ptr):
            if mask is not None:
                raise ValueError("`mask` argument cannot be specified for storing to block pointers")
            ptrs, bmask = self._expand_block_ptr(unwrap(ptr), boundary_check)
            return self.store(ptrs, value, bmask, (), cache_modifier, eviction_policy)
        ptr = _as_tensor(ptr)
        if not ptr.type.scalar.is_ptr():
            raise ValueError(f"Unsupported ptr type {ptr.type} in `tl.store`")
        value = self.to_tensor(value)
        shape = _shape(ptr)
        if not ptr.type.is_block() and value.type.is_block():
            raise ValueError("Value argument cannot be block type if pointer argument is not a block")
        elem = ptr.type.scalar.element_ty
        if elem == T.i1:
            ptr, elem = self.cast(ptr, T.PointerType(T.i8)), T.i8
        value = self.broadcast_to(self.cast(value, elem), shape)
        operands = [ptr, value]
        if mask is not None:
            mask = self._to_bool(mask)
            if not ptr.type.is_block() and mask.type.is_block():
                raise ValueError("Mask argument cannot be block type if pointer argument is not a block")
            operands.append(self.broadcast_to(mask, shape))
        self.b.create(Op.STORE, [o.handle for o in operands], [],
                      self._memory_attrs(cache_modifier, eviction_policy))

    def atomic_rmw(self, kind: str, ptr, val, mask=None, sem=None, scope=None) -> tensor:
        ptr = _as_tensor(ptr)
        if not ptr.type.scalar.is_ptr():
            raise ValueError(f"Pointer argument of atomic_{kind} must be a pointer, got {ptr.type}")
        elem = ptr.type.scalar.element_ty
        if elem in (T.i1, T.i8, T.i16, T.u8, T.u16) or elem.is_fp8():
            raise ValueError(f"atomic_{kind} does not support {elem}")
        if elem in (T.f16, T.bf16) and kind != "add":           # Triton's rule: 16-bit floats only add
            raise ValueError(f"atomic_{kind} does not support {elem}")
        if kind in ("and", "or", "xor") and not elem.is_int():
            raise ValueError(f"atomic_{kind} does not support {elem}")
        val = _as_tensor(self.to_tensor(val))
        shape = _shape(ptr)
        if not ptr.type.is_block() and val.type.is_block():
            raise ValueError("Value argument cannot be block type if pointer argument is not a block")
        val = self.broadcast_to(self.cast(val, elem), shape)
        operands = [ptr, val]
        if mask is not None:
            operands.append(self.broadcast_to(self._to_bool(mask), shape))
        op = {"add": "fadd" if elem.is_floating() else "add",
              "max": "umax" if elem.is_int_unsigned() else "max",
              "min": "umin" if elem.is_int_unsigned() else "min"}.get(kind, kind)
        return self._op(Op.ATOMIC_RMW, operands, val.type,
                        {"atomic_rmw_op": op, "sem": _sem_str(sem), "scope": _scope_str(scope)})

    def atomic_load(self, ptr, mask=None, sem=None, scope=None) -> tensor:
        """A load that other programs' writes reach: a volatile load (never moved out of a loop; on MTIA
        the control core meets the clock before a scalar one), masked-off elements 0."""
        if unwrap(sem) not in (None, "acquire", "relaxed"):
            raise ValueError(f"atomic_load supports sem='acquire' or 'relaxed', got {unwrap(sem)!r}")
        _scope_str(scope)
        ptr = _as_tensor(ptr)
        if not ptr.type.scalar.is_ptr():
            raise ValueError(f"Pointer argument of atomic_load must be a pointer, got {ptr.type}")
        return self.load(ptr, mask, None, (), "", "", "", volatile=True)

    def atomic_store(self, ptr, val, mask=None, sem=None, scope=None) -> None:
        """A store as one atomic exchange per element (in order with the program's other memory
        commands), of the value's bits as an integer of its width."""
        if unwrap(sem) not in (None, "release", "relaxed"):
            raise ValueError(f"atomic_store supports sem='release' or 'relaxed', got {unwrap(sem)!r}")
        scope = _scope_str(scope)
        ptr = _as_tensor(ptr)
        if not ptr.type.scalar.is_ptr():
            raise ValueError(f"Pointer argument of atomic_store must be a pointer, got {ptr.type}")
        elem = ptr.type.scalar.element_ty
        shape = _shape(ptr)
        val = _as_tensor(self.to_tensor(val))
        if not ptr.type.is_block() and val.type.is_block():
            raise ValueError("Value argument cannot be block type if pointer argument is not a block")
        val = self.broadcast_to(self.cast(val, elem), shape)
        bits = {1: T.i8, 8: T.i8, 16: T.i16, 32: T.i32, 64: T.i64}[elem.primitive_bitwidth]
        if elem != bits:                  # (i1 is stored as a byte, as tl.store stores it)
            val = self.cast(val, T.i8) if elem == T.i1 else self.bitcast(val, bits)
            ptr = self.bitcast(ptr, T.PointerType(bits))
        operands = [ptr, val]
        if mask is not None:
            operands.append(self.broadcast_to(self._to_bool(mask), shape))
        self._op(Op.ATOMIC_RMW, operands, val.type, {"atomic_rmw_op": "xchg", "sem": _sem_str(sem), "scope": scope})

    def atomic_cas(self, ptr, cmp, val, sem=None, scope=None) -> tensor:
        ptr = _as_tensor(ptr)
        if not ptr.type.scalar.is_ptr():
            raise ValueError(f"Pointer argument of atomic_cas must be a pointer, got {ptr.type}")
        elem = ptr.type.scalar.element_ty
        if elem.primitive_bitwidth not in (16, 32, 64) or elem.is_fp8():
            raise ValueError(f"atomic_cas only supports elements of 16, 32 or 64 bits, got {elem}")
        shape = _shape(ptr)
        cmp = self.broadcast_to(self.cast(self.to_tensor(cmp), elem), shape)
        val = self.broadcast_to(self.cast(self.to_tensor(val), elem), shape)
        return self._op(Op.ATOMIC_CAS, [ptr, cmp, val], val.type, {"sem": _sem_str(sem), "scope": _scope_str(scope)})

    # --- dot ----------------------------------------------------------------------------------
    def dot(self, a, b, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
            out_dtype=T.f32) -> tensor:
        a, b = _as_tensor(a), _as_tensor(b)
        out_dtype = unwrap(out_dtype) or T.f32
        sa, sb = _shape(a), _shape(b)
        if len(sa) != len(sb) or len(sa) not in (2, 3):
            raise ValueError(f"Both inputs must be either 2D or 3D; (lhs: {list(sa)} vs rhs: {list(sb)})")
        if sa[-1] != sb[-2]:
            raise ValueError(f"First input shape ({list(sa)}) and second input shape {list(sb)} are not compatible "
                             f"for matmul (second index of first shape ({sa[-1]}) must be equal to first index of "
                             f"second shape ({sb[-2]})")
        if len(sa) == 3 and sa[0] != sb[0]:
            raise ValueError(f"Batch dimensions of the inputs differ: {sa[0]} and {sb[0]}")
        if a.type.scalar in fp8_storage.FORMATS or b.type.scalar in fp8_storage.FORMATS:
            a, b = self.cast(a, T.f16), self.cast(b, T.f16)   # exact, as Triton widens them where not native
        at, bt = a.type.scalar, b.type.scalar
        if at != bt and not (at.is_fp8() and bt.is_fp8()):
            raise TypeError(f"Both operands must be same dtype. Got {at} and {bt}")
        if at not in (T.i8, T.u8, T.f16, T.bf16, T.f32, T.f64) and not at.is_fp8():
            raise TypeError(f"tl.dot does not support {at} operands")
        n = sb[-1]
        if at.is_int():
            ret = T.i32
        elif at.is_fp64():
            ret = T.f64
        elif at in (T.f32, T.bf16):
            ret = T.f32
        else:
            if out_dtype == T.bf16:
                raise ValueError("out_dtype=bfloat16 is unsupported. Please use out_dtype=float32/float16 and "
                                 "cast with `.to(tl.bfloat16)`")
            ret = out_dtype
        out_shape = sa[:-1] + (n,)
        if acc is None:
            acc = self.constant(0, ret.with_shape(out_shape))
        else:
            acc = _as_tensor(acc)
            if _shape(acc) != out_shape:
                raise ValueError(f"acc shape {list(_shape(acc))} does not match the dot result shape {list(out_shape)}")
        prec = unwrap(input_precision)
        if prec is None and unwrap(allow_tf32) is not None:
            prec = "tf32" if unwrap(allow_tf32) else "ieee"
        if prec not in (None, "ieee", "tf32", "tf32x3", "bf16x3", "hf32"):
            raise ValueError(f"input_precision must be one of ieee, tf32, tf32x3, bf16x3, got {prec!r}")
        attrs = {"input_precision": prec or "ieee"}
        if unwrap(max_num_imprecise_acc) is not None:
            attrs["max_num_imprecise_acc"] = int(unwrap(max_num_imprecise_acc))
        return self._op(Op.DOT, [a, b, acc], acc.type, attrs)

    # --- reductions and scans -----------------------------------------------------------------
    def reduce(self, inputs: Sequence[tensor], axis, combine, keep_dims=False) -> list[tensor]:
        """Reduce `inputs` together along `axis` (None: all elements). `combine(lhs, rhs)` gets two
        lists of scalar tensors and returns a list of combined scalar tensors."""
        inputs = [_as_tensor(self.to_tensor(x)) for x in inputs]
        axis = unwrap(axis)
        orig_rank = len(_shape(inputs[0]))
        if axis is None:
            inputs = [self.reshape(x, (x.type.numel,)) if len(_shape(x)) != 1 else x for x in inputs]
            axis = 0
        if not inputs[0].type.is_block():
            raise ValueError("cannot reduce a scalar")
        shape = _shape(inputs[0])
        if axis < 0:
            axis += len(shape)
        if not 0 <= axis < len(shape):
            raise ValueError(f"reduction axis {axis} is out of range for a rank-{len(shape)} tensor")
        out_shape = shape[:axis] + shape[axis + 1:]
        scalars = [x.type.scalar for x in inputs]
        block = Block(scalars * 2)
        with self.b.at_end(block):
            args = [tensor(a, a.type) for a in block.args]
            res = combine(args[:len(inputs)], args[len(inputs):])
            res = [self.cast(self.to_tensor(r), t) for r, t in zip(res, scalars)]
            self.b.create(Op.REDUCE_RETURN, [r.handle for r in res], [])
        op = self.b.create(Op.REDUCE, [x.handle for x in inputs], [t.with_shape(out_shape) for t in scalars],
                           {"axis": axis}, regions=[Region([block])])
        outs = [tensor(r, r.type) for r in op.results]
        if keep_dims:
            if unwrap(keep_dims) and orig_rank != len(shape):   # axis=None on a N-d tensor
                outs = [self.reshape(self.splat(o, (1,)) if not o.type.is_block() else o, (1,) * orig_rank)
                        for o in outs]
            else:
                outs = [self.expand_dims(o, axis) for o in outs]
        return outs

    def scan(self, inputs: Sequence[tensor], axis, combine, reverse=False) -> list[tensor]:
        inputs = [_as_tensor(self.to_tensor(x)) for x in inputs]
        axis = unwrap(axis)
        shape = _shape(inputs[0])
        if not shape:
            raise ValueError("cannot scan a scalar")
        if axis < 0:
            axis += len(shape)
        if not 0 <= axis < len(shape):
            raise ValueError(f"scan axis {axis} is out of range for a rank-{len(shape)} tensor")
        scalars = [x.type.scalar for x in inputs]
        block = Block(scalars * 2)
        with self.b.at_end(block):
            args = [tensor(a, a.type) for a in block.args]
            res = combine(args[:len(inputs)], args[len(inputs):])
            res = [self.cast(self.to_tensor(r), t) for r, t in zip(res, scalars)]
            self.b.create(Op.SCAN_RETURN, [r.handle for r in res], [])
        op = self.b.create(Op.SCAN, [x.handle for x in inputs], [x.type for x in inputs],
                           {"axis": axis, "reverse": bool(unwrap(reverse))}, regions=[Region([block])])
        return [tensor(r, r.type) for r in op.results]

    # --- gather and histogram -----------------------------------------------------------------
    def gather(self, src, index, axis) -> tensor:
        src, index = _as_tensor(self.to_tensor(src)), _as_tensor(self.to_tensor(index))
        axis = unwrap(axis)
        if not index.type.scalar.is_int():
            raise TypeError(f"index must be an integer tensor, got {index.type.scalar}")
        rank = len(_shape(src))
        if not src.type.is_block() or len(_shape(index)) != rank:
            raise ValueError(f"source and index tensors must have the same rank, got {list(_shape(src))} and "
                             f"{list(_shape(index))}")
        if not isinstance(axis, int) or isinstance(axis, bool) or not -rank <= axis < rank:
            raise ValueError(f"gather axis {axis} must be < source rank ({rank})")
        if axis < 0:
            axis += rank
        for d in range(rank):
            if d != axis and _shape(index)[d] != _shape(src)[d]:
                raise ValueError(f"index dim {d} ({_shape(index)[d]}) must match the corresponding source dim "
                                 f"({_shape(src)[d]})")
        return self._op(Op.GATHER, [src, index], src.type.scalar.with_shape(_shape(index)), {"axis": axis})

    def histogram(self, x, num_bins, mask=None) -> tensor:
        x = _as_tensor(self.to_tensor(x))
        num_bins = unwrap(num_bins)
        if len(_shape(x)) != 1:
            raise ValueError(f"histogram only supports 1D input, got shape {list(_shape(x))}")
        if not x.type.scalar.is_int():
            raise TypeError(f"histogram only supports integer input, got {x.type.scalar}")
        if not isinstance(num_bins, int) or isinstance(num_bins, bool):
            raise ValueError(f"num_bins must be a compile-time integer, got {num_bins!r}")
        out = T.i32.with_shape(validate_block_shape([num_bins]))
        operands = [x]
        if mask is not None:
            mask = self.broadcast_to(self.to_tensor(mask), _shape(x))
            if mask.type.scalar != T.i1:
                raise ValueError(f"Mask must have boolean scalar type, got {mask.type.scalar}")
            operands.append(mask)
        return self._op(Op.HISTOGRAM, operands, out)

    # --- debugging and hints ------------------------------------------------------------------
    def device_print(self, prefix: str, args, hex=False) -> None:
        vals = [self.to_tensor(a) for a in args]
        if vals:        # as Triton's: a prefix that prints values starts with a space and ends with ": "
            if not prefix.endswith(" "):
                prefix += " "
            if not prefix.endswith(": "):
                prefix = prefix[:-1] + ": "
            if len(prefix) > 2 and not prefix.startswith(" "):
                prefix = " " + prefix
        self.b.create(Op.PRINT, [v.handle for v in vals], [], {"prefix": prefix, "hex": bool(hex)})

    def device_assert(self, cond, msg="") -> None:
        cond = self._to_bool(cond)
        self.b.create(Op.ASSERT, [cond.handle], [], {"message": str(msg)})

    def assume(self, cond) -> None:
        self.b.create(Op.ASSUME, [self._to_bool(cond).handle], [])

    def debug_barrier(self) -> None:
        self.b.create(Op.DEBUG_BARRIER, [], [])

    def set_hint(self, x, attr: str, values) -> tensor:
        x = _as_tensor(x)
        values = unwrap(values)
        vals = [int(unwrap(v)) for v in values] if isinstance(values, (list, tuple)) else [int(values)]
        if len(vals) != max(1, len(_shape(x))):
            raise ValueError(f"{attr}: expected {max(1, len(_shape(x)))} values, got {len(vals)}")
        owner = x.handle.owner
        if hasattr(owner, "attrs"):                     # an op result: annotate the op (as Triton does)
            owner.attrs[attr] = vals if len(vals) > 1 else vals[0]
        else:                                           # a block argument: annotate the function argument
            func = owner.parent_op
            if func is not None and func.name == Op.FUNC:
                arg_attrs = func.attrs.setdefault("arg_attrs", [{} for _ in owner.args])
                arg_attrs[x.handle.index][attr] = vals if len(vals) > 1 else vals[0]
        return x

    # --- MTIA extensions ----------------------------------------------------------------------
    def get_pe_id(self) -> tensor:
        return self._op(Op.GET_PE_ID, [], T.i32)

    def re_reduce(self, x, op="sum") -> tensor:
        x = _as_tensor(self.to_tensor(x))
        op = unwrap(op)
        if op not in ("sum", "max", "min"):
            raise ValueError(f"re_reduce op must be 'sum', 'max' or 'min', got {op!r}")
        return self._op(Op.RE_REDUCE, [x], x.type, {"op": op})


# --- helpers ----------------------------------------------------------------------------------------

class _Typed:
    """Stands for a weak scalar during promotion: only its type matters there."""
    def __init__(self, type):
        self.type = type


def _as_tensor(x) -> tensor:
    x = unwrap(x)
    if not isinstance(x, tensor):
        raise TypeError(f"expected a tensor, got {type(x).__name__} {x!r}")
    return x


def _weak_kind(t: T.ScalarType) -> int:
    """Triton's dtype.kind() for weak scalars: bool < integral < floating. Signed and unsigned are one
    kind, so a Python int takes an unsigned tensor's type (uint8 tensor // 3 is uint8)."""
    return {T.Kind.BOOL: 0, T.Kind.UINT: 1, T.Kind.INT: 1, T.Kind.FLOAT: 2}[t.kind]


def _check_ptr(a: T.Type, b: T.Type, allow_ptr_a: bool) -> None:
    if a.is_ptr():
        if not allow_ptr_a:
            raise TypeError(f"invalid operands of type {a} and {b}")
        if b.is_ptr() and a != b:
            raise TypeError(f"invalid operands of type {a} and {b}")
        if b.is_floating():
            raise TypeError(f"invalid operands of type {a} and {b}")


def _normalize_constant(value, ty: T.ScalarType):
    """The value a constant of `ty` holds: ints wrapped into range, floats as Python floats."""
    if isinstance(value, tensor):
        raise TypeError("expected a compile-time value")
    if ty.is_bool():
        return bool(value)
    if ty.is_int():
        if isinstance(value, float):
            value = int(value)
        v = int(value) & ((1 << ty.bitwidth) - 1)
        if ty.is_int_signed() and v >= 1 << (ty.bitwidth - 1):
            v -= 1 << ty.bitwidth
        return v
    return float(value)


def _sem_str(sem) -> str:
    sem = unwrap(sem) or "acq_rel"
    if sem not in ("acquire", "release", "acq_rel", "relaxed"):
        raise ValueError(f"Memory semantic {sem} not supported")
    return sem


def _scope_str(scope) -> str:
    scope = unwrap(scope) or "gpu"
    if scope not in ("gpu", "cta", "sys"):
        raise ValueError(f"Memory scope {scope} not supported")
    return scope
