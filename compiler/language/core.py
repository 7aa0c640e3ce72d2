"""The `tl` value model: dtypes, `constexpr`, `tensor` and the @builtin marker.

A `tensor` wraps an IR value; its Python operators call the semantic layer (`semantic.py`), which
applies Triton's promotion and broadcasting rules and emits IR through the frontend's builder.
A `constexpr` wraps a compile-time Python value; operators between constexprs are folded in
Python (so `-7 // 2 == -4` for constexprs but -3 for runtime tensors, as in Triton).
"""
from __future__ import annotations

import functools

from ..ir import types as T
from ..ir.types import BlockType, DType, PointerType, TensorDescType  # noqa: F401  (re-exported)

# --- dtypes ---------------------------------------------------------------------------------------
dtype = DType
int1 = T.i1
int8, int16, int32, int64 = T.i8, T.i16, T.i32, T.i64
uint8, uint16, uint32, uint64 = T.u8, T.u16, T.u32, T.u64
float16, bfloat16, float32, float64 = T.f16, T.bf16, T.f32, T.f64
float8e4nv, float8e5 = T.f8e4m3, T.f8e5m2
float8e4b15, float8e4b8, float8e5b16 = T.f8e4b15, T.f8e4m3fnuz, T.f8e5m2fnuz   # storage only: fp8_storage.py
bool_ = int1


class _TypeMaker(type):
    """Triton's `pointer_type` and `block_type` are classes: calling one makes a type, and kernels ask
    `isinstance(x.dtype, tl.pointer_type)`. Ours make the IR's types, and answer isinstance for them."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, cls.made)


class pointer_type(metaclass=_TypeMaker):
    """The type of a pointer to `element_ty` (e.g. for `x.to(tl.pointer_type(tl.float16))`)."""
    made = PointerType
    __triton_constexpr_function__ = True   # callable in kernels on compile-time values

    def __new__(cls, element_ty, address_space: int = 1) -> PointerType:
        return PointerType(unwrap(element_ty), address_space)


class block_type(metaclass=_TypeMaker):
    """The type of a block of `element_ty` of the given shape."""
    made = BlockType
    __triton_constexpr_function__ = True

    def __new__(cls, element_ty, shape) -> BlockType:
        return BlockType(tuple(int(unwrap(s)) for s in shape), unwrap(element_ty))


pi32_t = PointerType(int32)   # Triton's name for a pointer to int32


# --- builtins -------------------------------------------------------------------------------------

TRITON_BUILTIN = "__triton_builtin__"    # the attribute that marks a builtin (Triton's name for it)


def builtin(fn):
    """Mark a `tl` function as callable inside @jit kernels (it emits IR through the frontend)."""
    @functools.wraps(fn)
    def wrapper(*args, _semantic=None, _generator=None, **kwargs):
        # Triton passes its code generator's semantic to builtins as `_semantic=`; an aggregate's
        # constructor written for Triton forwards it (`tl.arange(0, 4, _semantic=_semantic)`): ours is global
        return fn(*args, **kwargs)
    wrapper.__triton_builtin__ = True
    return wrapper


def is_builtin(fn) -> bool:
    return getattr(fn, "__triton_builtin__", False)


def constexpr_function(fn):
    """Mark a plain Python function callable in kernels on compile-time values (result: constexpr)."""
    fn.__triton_constexpr_function__ = True
    return fn


@constexpr_function
def get_int_dtype(bitwidth: int, signed: bool) -> DType:
    """The integer dtype of `bitwidth` bits and the given signedness (1 bit: int1, either way)."""
    if bitwidth == 1:
        return int1
    name = f"{'' if signed else 'u'}int{bitwidth}"
    if name not in T.BY_TRITON_NAME:
        raise ValueError(f"there is no {'signed' if signed else 'unsigned'} integer type of {bitwidth} bits "
                         "(1, 8, 16, 32 or 64)")
    return T.BY_TRITON_NAME[name]


# Triton's triton/language/core.py holds the whole language; ours keeps it in builtins.py, reductions.py,
# math.py, ... Libraries import from core (`from triton.language.core import static_range, reshape`, often
# in a try/except that silently drops a helper), so core answers for each name Triton's core defines that
# `tl` has: looked up in `tl` on first use (core is imported before the modules that define them).
_FROM_TL = frozenset("""
    PropagateNan TRITON_MAX_TENSOR_NUMEL add advance aggregate_replace arange associative_scan assume atomic_add
    atomic_and atomic_cas atomic_max atomic_min atomic_or atomic_xchg atomic_xor broadcast broadcast_to cast cat
    clamp debug_barrier device_assert device_print dot dot_scaled expand_dims full gather histogram
    inline_asm_elementwise item join load load_tensor_descriptor make_block_ptr make_tensor_descriptor
    map_elementwise math max_constancy max_contiguous maximum minimum mul multiple_of num_programs permute
    program_id range reduce reshape split static_assert static_print static_range store store_tensor_descriptor
    sub to_tensor trans tuple view where""".split())


def __getattr__(name: str):
    if name in _FROM_TL:
        from .. import language
        return getattr(language, name)
    if name == "must_use_result":            # triton.must_use_result, which Triton defines here
        from .. import must_use_result
        return must_use_result
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | _FROM_TL | {"must_use_result"})


# --- constexpr ------------------------------------------------------------------------------------

def unwrap(x):
    """The value of a constexpr; anything else as it is (the frontend and the language's builtins use
    it; `tl` does not export it)."""
    return x.value if isinstance(x, constexpr) else x


_unwrap_if_constexpr = unwrap   # Triton's name, which libraries' helpers call


def _binop(op, reflected=False):
    def method(self, other):
        if isinstance(other, tensor):
            return NotImplemented
        a, b = self.value, unwrap(other)
        return constexpr(op(b, a) if reflected else op(a, b))
    return method


class constexpr:
    """A compile-time value. `x: tl.constexpr` parameters and literals in kernels are constexprs."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = unwrap(value)

    def __repr__(self) -> str:
        return f"constexpr[{self.value!r}]"

    def __str__(self) -> str:
        return str(self.value)

    def __hash__(self):
        return hash(self.value)

    def __bool__(self):
        return bool(self.value)

    def __index__(self):
        return self.value.__index__()

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)

    def __iter__(self):
        return iter(self.value)

    def __len__(self):
        return len(self.value)

    def __getitem__(self, i):
        return constexpr(self.value[unwrap(i)])

    import operator as _op
    __add__, __radd__ = _binop(_op.add), _binop(_op.add, True)
    __sub__, __rsub__ = _binop(_op.sub), _binop(_op.sub, True)
    __mul__, __rmul__ = _binop(_op.mul), _binop(_op.mul, True)
    __truediv__, __rtruediv__ = _binop(_op.truediv), _binop(_op.truediv, True)
    __floordiv__, __rfloordiv__ = _binop(_op.floordiv), _binop(_op.floordiv, True)
    __mod__, __rmod__ = _binop(_op.mod), _binop(_op.mod, True)
    __pow__, __rpow__ = _binop(_op.pow), _binop(_op.pow, True)
    __and__, __rand__ = _binop(_op.and_), _binop(_op.and_, True)
    __or__, __ror__ = _binop(_op.or_), _binop(_op.or_, True)
    __xor__, __rxor__ = _binop(_op.xor), _binop(_op.xor, True)
    __lshift__, __rlshift__ = _binop(_op.lshift), _binop(_op.lshift, True)
    __rshift__, __rrshift__ = _binop(_op.rshift), _binop(_op.rshift, True)
    __lt__, __le__ = _binop(_op.lt), _binop(_op.le)
    __gt__, __ge__ = _binop(_op.gt), _binop(_op.ge)
    __eq__, __ne__ = _binop(_op.eq), _binop(_op.ne)
    del _op

    def __neg__(self):
        return constexpr(-self.value)

    def __pos__(self):
        return constexpr(+self.value)

    def __invert__(self):
        return constexpr(~self.value)

    def __abs__(self):
        return constexpr(abs(self.value))

    @property
    def type(self) -> "constexpr_type":
        """As in Triton, a compile-time value's type is the value itself (`constexpr_type(3)`)."""
        return constexpr_type(self.value)


CONSTEXPR_0 = constexpr(0)


class constexpr_type:
    """The type of a compile-time value: equal to another when their values are equal."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = unwrap(value)

    def __eq__(self, other) -> bool:
        return isinstance(other, constexpr_type) and type(self.value) is type(other.value) and self.value == other.value

    def __hash__(self):
        return hash((type(self.value), self.value))

    def __repr__(self) -> str:
        return f"constexpr_type[{self.value!r}]"


def is_number(x) -> bool:
    """A Python number (or a constexpr one): a 'weak' scalar in Triton's promotion rules."""
    v = unwrap(x)
    return isinstance(v, (bool, int, float)) and not isinstance(v, tensor)


# --- tensor ---------------------------------------------------------------------------------------

def _sem():
    from .semantic import current
    return current()


def _tensor_op(name, reflected=False):
    def method(self, other):
        s = _sem()
        fn = getattr(s, name)
        return fn(other, self) if reflected else fn(self, other)
    method.__name__ = name
    return method


class tensor:
    """A runtime value in a kernel: a scalar (shape []) or a block of scalars/pointers."""

    def __init__(self, handle, type: T.Type):
        self.handle = handle       # the IR Value
        self.type = type           # the IR type (== handle.type)

    # --- type queries ---
    @property
    def dtype(self) -> T.Type:
        return self.type.scalar

    @property
    def shape(self) -> list:
        return [constexpr(d) for d in self.type.shape]

    @property
    def numel(self) -> constexpr:
        return constexpr(self.type.numel)

    def __repr__(self) -> str:
        return f"tensor({self.type})"

    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError("a runtime tensor has no compile-time truth value; use a constexpr or tl.where")

    # --- operators ---
    __add__, __radd__ = _tensor_op("add"), _tensor_op("add", True)
    __sub__, __rsub__ = _tensor_op("sub"), _tensor_op("sub", True)
    __mul__, __rmul__ = _tensor_op("mul"), _tensor_op("mul", True)
    __truediv__, __rtruediv__ = _tensor_op("truediv"), _tensor_op("truediv", True)
    __floordiv__, __rfloordiv__ = _tensor_op("floordiv"), _tensor_op("floordiv", True)
    __mod__, __rmod__ = _tensor_op("mod"), _tensor_op("mod", True)
    __and__, __rand__ = _tensor_op("and_"), _tensor_op("and_", True)
    __or__, __ror__ = _tensor_op("or_"), _tensor_op("or_", True)
    __xor__, __rxor__ = _tensor_op("xor_"), _tensor_op("xor_", True)
    __lshift__, __rlshift__ = _tensor_op("shl"), _tensor_op("shl", True)
    __rshift__, __rrshift__ = _tensor_op("shr"), _tensor_op("shr", True)
    __lt__ = _tensor_op("less_than")
    __le__ = _tensor_op("less_equal")
    __gt__ = _tensor_op("greater_than")
    __ge__ = _tensor_op("greater_equal")
    __eq__ = _tensor_op("equal")
    __ne__ = _tensor_op("not_equal")

    def __neg__(self):
        return _sem().minus(self)

    def __pos__(self):
        return self

    def __invert__(self):
        return _sem().invert(self)

    def logical_and(self, other):
        return _sem().logical_and(self, other)

    def logical_or(self, other):
        return _sem().logical_or(self, other)

    def __getitem__(self, slices):
        return _sem().subscript(self, slices)

    # --- methods (Triton's tensor member functions) ---
    def to(self, dtype, fp_downcast_rounding=None, bitcast=False):
        """This value converted to `dtype` (or its bits reinterpreted, with bitcast). Float to integer
        truncates toward zero, saturates out of range (+inf to the largest value, -inf to the smallest,
        0 for unsigned) and gives 0 for NaN, on both executors (isa/float_to_int.py); fp8 to an
        integer is refused, as Triton refuses it."""
        dtype = unwrap(dtype)
        if unwrap(bitcast):
            return _sem().bitcast(self, dtype)
        return _sem().cast(self, dtype, unwrap(fp_downcast_rounding))

    @property
    def T(self):
        return _sem().permute(self, None)

    def trans(self, *dims):
        return _sem().permute(self, dims or None)

    def permute(self, *dims):
        return _sem().permute(self, dims)

    def reshape(self, *shape, can_reorder=False):
        from .builtins import reshape
        return reshape(self, *shape, can_reorder=can_reorder)

    def view(self, *shape):
        from .builtins import view
        return view(self, *shape)

    def broadcast_to(self, *shape):
        from .builtins import broadcast_to
        return broadcast_to(self, *shape)

    def expand_dims(self, axis):
        return _sem().expand_dims(self, unwrap(axis))

    def split(self):
        return _sem().split(self)

    def __getattr__(self, name):
        # Reductions and math as methods (x.sum(axis=0), x.exp(), ...), like Triton's member functions.
        if name.startswith("_"):
            raise AttributeError(name)
        from ._members import member_functions
        fn = member_functions().get(name)
        if fn is None:
            raise AttributeError(f"'tensor' object has no attribute '{name}'")

        if getattr(fn, "__triton_jit__", False):     # a @jit library function (x.sort(), x.flip())
            @builtin
            def method(*args, **kwargs):
                return _sem().ast_to_ir.call_function(fn, [self, *args], kwargs)
            return method

        @builtin
        def method(*args, **kwargs):
            return fn(self, *args, **kwargs)
        return method


def _descriptor_atomic(kind: str):
    """The descriptor method `atomic_<kind>(offsets, value)`: combine value into the block at offsets."""
    def method(self, offsets, value):
        return _sem().descriptor_atomic(kind, self, offsets, value)
    method.__name__ = method.__qualname__ = f"atomic_{kind}"
    method.__doc__ = f"Atomically {kind} `value` into the block at `offsets` (elements outside the tensor untouched)."
    return method


class tensor_descriptor:
    """A tensor descriptor (`tl.make_tensor_descriptor`, or a host-built `TensorDescriptor` argument):
    load/store whole blocks by offsets; `shape`/`strides` are its runtime extents and strides.

    Like `block_ptr`, it lives in the frontend as its runtime parts (base pointer, i32 extents, i64
    strides), which loops and ifs carry as separate values; `handle` makes the IR descriptor from them
    where it is used (CSE merges the repeats), so every descriptor op sees its tt.make_tensor_descriptor."""

    def __init__(self, base, shape, strides, block_type: BlockType, padding: str = "zero"):
        self.base, self.shape, self.strides = base, tuple(shape), tuple(strides)
        self.type = T.TensorDescType(block_type)
        self.padding = padding

    @property
    def handle(self):
        from ..ir.ops import Op
        parts = [self.base, *self.shape, *self.strides]
        return _sem().b.create1(Op.MAKE_TENSOR_DESCRIPTOR, [t.handle for t in parts], self.type)

    @property
    def block_type(self) -> BlockType:
        return self.type.block_type

    @property
    def block_shape(self) -> list:
        return [constexpr(d) for d in self.type.block_type.shape]

    @property
    def dtype(self):
        return self.type.block_type.element_ty

    def __repr__(self) -> str:
        return f"tensor_descriptor<{self.type.block_type}>"

    __str__ = __repr__

    def load(self, offsets):
        return _sem().descriptor_load(self, offsets)

    def store(self, offsets, value):
        return _sem().descriptor_store(self, offsets, value)

    atomic_add = _descriptor_atomic("add")
    atomic_min = _descriptor_atomic("min")
    atomic_max = _descriptor_atomic("max")
    atomic_and = _descriptor_atomic("and")
    atomic_or = _descriptor_atomic("or")
    atomic_xor = _descriptor_atomic("xor")

    def gather(self, *args):
        if len(args) != 2:
            raise ValueError(f"descriptor gather takes row offsets and a column offset, got {len(args)} arguments")
        return _sem().descriptor_gather(self, args[0], args[1])

    def scatter(self, value, *args):
        if len(args) != 2:
            raise ValueError(f"descriptor scatter takes a value, row offsets and a column offset, got "
                             f"{len(args) + 1} arguments")
        return _sem().descriptor_scatter(self, value, args[0], args[1])


class block_ptr:
    """A block pointer (`tl.make_block_ptr`): a block_shape window at `offsets` into a strided tensor.

    Not an IR type: it lives in the frontend as its runtime parts (base pointer, shape and strides as
    i64, offsets as i32), which loops and ifs carry as separate values; `tl.load`/`tl.store` expand it
    into a block of pointers (and a mask for `boundary_check`)."""

    def __init__(self, base, shape, strides, offsets, block_shape, order):
        self.base, self.shape, self.strides, self.offsets = base, list(shape), list(strides), list(offsets)
        self.block_shape = tuple(block_shape)
        self.order = tuple(order)

    @property
    def dtype(self):
        return PointerType(BlockType(self.block_shape, self.base.type.element_ty))

    @property
    def type(self):
        return self.dtype

    def __repr__(self) -> str:
        return f"block_ptr<{list(self.block_shape)}, {self.base.type.element_ty}>"

    __str__ = __repr__

    def advance(self, offsets):
        return _sem().advance(self, offsets)
