"""`compiler.language` (import as `tl`): the Triton language surface plus `tl.mtia` extensions."""
import builtins as _builtins

from . import math, mtia  # noqa: F401
from .aggregate import aggregate_replace  # noqa: F401
from .builtins import (PropagateNan, advance, arange, assume, atomic_add, atomic_and, atomic_cas, atomic_load,
                       atomic_max, atomic_min, atomic_or, atomic_store, atomic_xchg, atomic_xor, broadcast, broadcast_to, cast, cat, cdiv, debug_barrier,
                       device_assert, device_print, dot, expand_dims, extract_slice, full, full_like, gather,
                       histogram, interleave, item,
                       join, load, load_tensor_descriptor, make_block_ptr, make_tensor_descriptor, max_constancy, max_contiguous,
                       maximum, minimum, clamp, multiple_of, next_power_of_2, num_programs, permute, program_id,
                       range, ravel, reshape, split, squeeze, static_assert, static_print, static_range, store,
                       store_tensor_descriptor, to_tensor, trans, unsqueeze, view, where, zeros, zeros_like)
from .core import (PointerType as _PointerType, block_ptr, block_type, bool_, builtin, constexpr, constexpr_type, dtype, bfloat16,
                   float16, float32, float64, float8e4b8, float8e4b15, float8e4nv, float8e5, float8e5b16, int1, int8,
                   int16, int32, int64, pi32_t, pointer_type, tensor, tensor_descriptor, uint8, uint16, uint32, uint64)
from .math import (abs, ceil, cos, div_rn, erf, exp, exp2, fdiv, floor, fma, log, log2, rsqrt, sigmoid, sin,
                   sqrt, sqrt_rn, umulhi)
from .reductions import (argmax, argmin, associative_scan, cumprod, cumsum, max, min, reduce, reduce_or, softmax,
                         sum, xor_sum)
from .random import (pair_uniform_to_normal, philox, philox_impl, rand, rand4x, randint, randint4x, randn,
                     randn4x, uint_to_uniform_float)
from .standard import flip, sort, swizzle2d, topk  # noqa: E402
from .builtins import add, inline_asm_elementwise, map_elementwise, mul, sub  # noqa: E402
from .mxfp import dot_scaled  # noqa: E402
from .polling import atomic_poll  # noqa: E402

from .semantic import MAX_TENSOR_NUMEL as TRITON_MAX_TENSOR_NUMEL  # noqa: E402  (the cap on a block's elements)
from . import extra  # noqa: F401,E402

print = device_print   # noqa: A001  (tl.print, as in Triton)
tuple = _builtins.tuple   # noqa: A001  (tl.tuple, e.g. an aggregate's field type: a kernel's tuples are Python's)
