"""The `tl.*` functions usable inside @jit kernels (creation, memory, shapes, casts, debugging).

Each is a thin @builtin over `Semantic`; Triton's signatures and keyword names are kept so that
GPU kernels port unchanged. Hints that mean nothing here (cache modifiers, eviction policies,
memory scopes) are accepted and recorded as attributes.
"""
from __future__ import annotations

import string

from ..errors import CompileTimeError
from ..ir import types as T
from .core import builtin, constexpr, constexpr_function, tensor, unwrap
from .semantic import current


def _shape_args(shape):
    """Accept f(x, (a, b)), f(x, [a, b]) and f(x, a, b)."""
    if len(shape) == 1 and isinstance(unwrap(shape[0]), (tuple, list)):
        shape = unwrap(shape[0])
    return [int(unwrap(s)) for s in shape]


# --- programming model ---------------------------------------------------------------------------

@builtin
def program_id(axis):
    return current().program_id(axis)


@builtin
def num_programs(axis):
    return current().num_programs(axis)


# --- creation ------------------------------------------------------------------------------------

@builtin
def arange(start, end):
    return current().arange(start, end)


@builtin
def full(shape, value, dtype):
    return current().full(unwrap(shape), value, dtype)


@builtin
def zeros(shape, dtype):
    return current().full(unwrap(shape), 0, dtype)


@builtin
def zeros_like(input):
    return current().full(list(input.type.shape), 0, input.type.scalar)


@builtin
def full_like(input, value, dtype=None):
    return current().full(list(input.type.shape), value, unwrap(dtype) or input.type.scalar)


@builtin
def to_tensor(x):
    return current().to_tensor(x)


@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False):
    s = current()
    if unwrap(bitcast):
        return s.bitcast(input, dtype)
    return s.cast(input, dtype, unwrap(fp_downcast_rounding))


# --- memory --------------------------------------------------------------------------------------

@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False):
    return current().load(pointer, unwrap(mask), unwrap(other), unwrap(boundary_check), unwrap(padding_option),
                          unwrap(cache_modifier), unwrap(eviction_policy), unwrap(volatile))


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
    return current().store(pointer, value, unwrap(mask), unwrap(boundary_check), unwrap(cache_modifier),
                           unwrap(eviction_policy))


def _atomic(kind):
    def fn(pointer, val, mask=None, sem=None, scope=None):
        return current().atomic_rmw(kind, pointer, val, unwrap(mask), sem, scope)
    fn.__name__ = f"atomic_{kind}"
    fn.__doc__ = f"Atomically apply {kind} of val at each pointer; returns the old values."
    return builtin(fn)


atomic_add = _atomic("add")
atomic_max = _atomic("max")
atomic_min = _atomic("min")
atomic_xchg = _atomic("xchg")
atomic_and = _atomic("and")
atomic_or = _atomic("or")
atomic_xor = _atomic("xor")


@builtin
def atomic_load(pointer, mask=None, sem=None, scope=None):
    """Atomically load from each pointer (sem: "acquire", the default, or "relaxed")."""
    return current().atomic_load(pointer, unwrap(mask), sem, scope)


@builtin
def atomic_store(pointer, val, mask=None, sem=None, scope=None):
    """Atomically store val at each pointer (sem: "release", the default, or "relaxed")."""
    return current().atomic_store(pointer, val, unwrap(mask), sem, scope)


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    return current().atomic_cas(pointer, cmp, val, sem, scope)


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    """A block pointer: loads/stores of it move `block_shape` elements at `offsets` (legacy Triton API)."""
    return current().make_block_ptr(base, shape, strides, offsets, block_shape, order)


@builtin
def advance(base, offsets):
    """The block pointer moved by `offsets` (one per dimension)."""
    return current().advance(unwrap(base), offsets)


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    return current().make_tensor_descriptor(base, shape, strides, block_shape, unwrap(padding_option))


@builtin
def load_tensor_descriptor(desc, offsets):
    return desc.load(offsets)


@builtin
def store_tensor_descriptor(desc, offsets, value):
    return desc.store(offsets, value)


# --- shapes --------------------------------------------------------------------------------------

@builtin
def reshape(input, *shape, can_reorder=False):
    return current().reshape(input, _shape_args(shape), unwrap(can_reorder))


@builtin
def item(input):
    """The scalar of a one-element tensor (Triton's `x.item()`)."""
    if input.type.numel != 1:
        raise ValueError(f"item() needs a one-element tensor, got shape {list(input.shape)}")
    return current().reshape(input, ())


@builtin
def squeeze(input, dim):
    """`input` without its size-1 dimension `dim`."""
    shape = list(input.shape)
    dim = int(unwrap(dim))
    if not -len(shape) <= dim < len(shape) or shape[dim] != 1:
        raise ValueError(f"squeeze(dim={dim}) needs a size-1 dimension, got shape {shape}")
    del shape[dim]
    return current().reshape(input, shape)


@builtin
def unsqueeze(input, dim):
    """`input` with a new size-1 dimension at `dim` (the same as tl.expand_dims with one axis)."""
    return current().expand_dims(input, dim)


@builtin
def view(input, *shape):
    return current().reshape(input, _shape_args(shape), True)


@builtin
def trans(input, *dims):
    return current().permute(input, dims or None)


@builtin
def permute(input, *dims):
    return current().permute(input, dims)


@builtin
def expand_dims(input, axis):
    return current().expand_dims(input, axis)


@builtin
def broadcast(input, other):
    s = current()
    return s.broadcast_pair(s.to_tensor(input), s.to_tensor(other))


@builtin
def broadcast_to(input, *shape):
    s = current()
    return s.broadcast_to(s.to_tensor(input), _shape_args(shape))


@builtin
def join(a, b):
    return current().join(a, b)


@builtin
def split(a):
    return current().split(a)


@builtin
def interleave(a, b):
    return current().interleave(a, b)


@builtin
def cat(input, other, can_reorder=False, dim=0):
    return current().cat(input, other, unwrap(can_reorder), int(unwrap(dim)))


@builtin
def ravel(x):
    return current().reshape(x, [x.type.numel], True)


@builtin
def extract_slice(input, offsets, sizes, strides):
    """The static slice input[offsets[d] + i * strides[d]] of shape `sizes` (reuses data in the LS on MTIA)."""
    return current().extract_slice(input, offsets, sizes, strides)


# --- gather and histogram ------------------------------------------------------------------------

@builtin
def gather(src, index, axis):
    """Gather from `src` along `axis`: the result has `index`'s shape, and its element at position p is
    src at p with the coordinate along `axis` replaced by index[p] (np.take_along_axis). src and index
    have one rank and equal sizes in every dimension but `axis`."""
    return current().gather(src, index, axis)


@builtin
def histogram(input, num_bins, mask=None):
    """Counts (int32, shape [num_bins]) of the values of a 1-D integer tensor in bins of width 1 starting
    at 0; values outside [0, num_bins) are not counted, nor are lanes where `mask` is false."""
    return current().histogram(input, num_bins, unwrap(mask))


# --- elementwise ---------------------------------------------------------------------------------

@builtin
def where(condition, x, y):
    return current().where(condition, x, y)


@builtin
def minimum(x, y, propagate_nan=0):
    s = current()
    return s.minimum(s.promote_bf16_to_f32(x), s.promote_bf16_to_f32(y), bool(unwrap(propagate_nan)))


@builtin
def maximum(x, y, propagate_nan=0):
    s = current()
    return s.maximum(s.promote_bf16_to_f32(x), s.promote_bf16_to_f32(y), bool(unwrap(propagate_nan)))


@builtin
def clamp(x, min, max, propagate_nan=0):
    s = current()
    x, min, max = (s.promote_bf16_to_f32(v) for v in (x, min, max))
    return s.clamp(x, min, max, bool(unwrap(propagate_nan)))


class PropagateNan:
    NONE = 0
    ALL = 0xFFFF


@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=T.f32):
    return current().dot(input, other, acc, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype)


# --- integer helpers -----------------------------------------------------------------------------

@builtin
def cdiv(x, div):
    """ceil(x / div) for integers (folded in Python when both are compile-time values)."""
    xv, dv = unwrap(x), unwrap(div)
    if isinstance(xv, int) and isinstance(dv, int):
        return constexpr((xv + dv - 1) // dv)
    return (x + div - 1) // div


@constexpr_function
def next_power_of_2(n: int) -> int:
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


# --- compile-time helpers ------------------------------------------------------------------------

@builtin
def static_assert(cond, msg=""):
    c = unwrap(cond)
    if isinstance(c, tensor):
        raise CompileTimeError("static_assert requires a constexpr condition")
    if not c:
        raise CompileTimeError(f"Static assertion failed: {unwrap(msg)}" if unwrap(msg)
                               else "Static assertion failed")


@builtin
def static_print(*values, sep=" ", end="\n", file=None, flush=False):
    print(*[unwrap(v) for v in values], sep=sep, end=end, file=file, flush=flush)


@builtin
def device_print(prefix, *args, hex=False):
    prefix = unwrap(prefix)
    if not isinstance(prefix, str):             # Triton's checks and words
        raise CompileTimeError(f"{prefix} is not string")
    if any(ch not in string.printable for ch in prefix):
        raise CompileTimeError(f"{prefix} is not an ascii string")
    return current().device_print(prefix, args, bool(unwrap(hex)))


@builtin
def device_assert(cond, msg="", mask=None):
    s = current()
    if mask is not None:
        cond = s.logical_or(cond, s.logical_not(mask))
    return s.device_assert(cond, unwrap(msg))


@builtin
def assume(cond):
    return current().assume(cond)


@builtin
def debug_barrier():
    return current().debug_barrier()


@builtin
def multiple_of(input, values):
    return current().set_hint(input, "tt.divisibility", values)


@builtin
def max_contiguous(input, values):
    return current().set_hint(input, "tt.contiguity", values)


@builtin
def max_constancy(input, values):
    return current().set_hint(input, "tt.constancy", values)


# --- loop iterators (the frontend reads these; they are never run as Python loops) ----------------

class static_range:
    """`for i in tl.static_range(a, b, c)`: bounds are constexprs; the body is unrolled."""

    def __init__(self, arg1, arg2=None, step=None):
        if arg2 is None:
            arg1, arg2 = 0, arg1
        self.start, self.end, self.step = unwrap(arg1), unwrap(arg2), unwrap(step if step is not None else 1)
        for v in (self.start, self.end, self.step):
            if not isinstance(v, int):
                raise CompileTimeError("static_range bounds must be constexpr integers")


class range:
    """`for i in tl.range(a, b, c, num_stages=..., ...)`: a runtime loop with scheduling hints."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False, disable_licm=False):
        if arg2 is None:
            arg1, arg2 = 0, arg1
        self.start, self.end, self.step = arg1, arg2, step if step is not None else 1
        hints = {"tt.num_stages": num_stages, "tt.loop_unroll_factor": loop_unroll_factor,
                 "tt.disallow_acc_multi_buffer": disallow_acc_multi_buffer, "tt.flatten": flatten,
                 "tt.warp_specialize": warp_specialize, "tt.disable_licm": disable_licm}
        self.attrs = {k: unwrap(v) for k, v in hints.items() if unwrap(v) not in (None, False)}


# --- functional arithmetic, and what MTIA cannot run ------------------------------------------------

@builtin
def add(x, y, sanitize_overflow=True):
    """x + y (Triton's functional form; integer overflow wraps here, as on the GPU without the sanitizer)."""
    return current().add(x, y)


@builtin
def sub(x, y, sanitize_overflow=True):
    return current().sub(x, y)


@builtin
def mul(x, y, sanitize_overflow=True):
    return current().mul(x, y)


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    raise CompileTimeError("tl.inline_asm_elementwise runs GPU (PTX/AMDGCN) assembly, which MTIA cannot execute; "
                           "write the operation with tl functions (or tl.extra.libdevice)")


@builtin
def map_elementwise(scalar_fn, *args, pack=1):
    """Apply a @jit function of scalars to every element of the (broadcast) arguments. Here the
    function runs once on whole blocks, so its element-wise work maps onto the SE; a branch on an
    element's value has to be written with tl.where (an `if` on a block is refused at its line)."""
    s = current()
    tensors = [s.to_tensor(a) for a in args]
    for i, t in enumerate(tensors[1:], 1):            # (`range` here is tl.range)
        tensors[0], tensors[i] = s.broadcast_pair(tensors[0], t)
    if tensors[0].type.is_block():
        shape = tensors[0].type.shape
        tensors = [s.broadcast_to(t, shape) for t in tensors]
    return s.ast_to_ir.call_function(unwrap(scalar_fn), tensors, {})
