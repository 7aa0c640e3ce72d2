"""Libraries import helpers from `triton.language.core` and `triton.language.standard`, where Triton
defines them (often in a `try: ... except ImportError`, which silently loses the helper when a name is
missing). Ours keeps them elsewhere in `tl`: core and standard answer for each name Triton's have, as the
same objects as `tl`'s; `get_int_dtype` (core only) works on the host and in kernels."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.language import core, standard

from executors import EXECUTORS, launch

# the names Triton's core.py (3.8) defines that `tl` has
CORE_FROM_TL = """PropagateNan TRITON_MAX_TENSOR_NUMEL add advance aggregate_replace arange associative_scan assume
    atomic_add atomic_and atomic_cas atomic_max atomic_min atomic_or atomic_xchg atomic_xor broadcast broadcast_to
    cast cat clamp debug_barrier device_assert device_print dot dot_scaled expand_dims full gather histogram
    inline_asm_elementwise item join load load_tensor_descriptor make_block_ptr make_tensor_descriptor
    map_elementwise math max_constancy max_contiguous maximum minimum mul multiple_of num_programs permute
    program_id range reduce reshape split static_assert static_print static_range store store_tensor_descriptor
    sub to_tensor trans tuple view where""".split()
# ... and standard.py's
STANDARD_FROM_TL = """argmax argmin cdiv cumprod cumsum interleave max min ravel reduce_or sigmoid softmax squeeze
    sum unsqueeze zeros zeros_like""".split()


@pytest.mark.parametrize("module, names", [(core, CORE_FROM_TL), (standard, STANDARD_FROM_TL)])
def test_core_and_standard_answer_for_the_tl_names_triton_defines_there(module, names):
    for name in names:
        assert getattr(module, name) is getattr(tl, name), name
        assert name in dir(module)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_helper'"):
        module.no_such_helper


def test_names_of_triton_core_a_library_uses():
    from compiler.language.core import (
        CONSTEXPR_0,
        TRITON_BUILTIN,
        _unwrap_if_constexpr,
        get_int_dtype,
        must_use_result,  # noqa: F401
        )
    assert _unwrap_if_constexpr(tl.constexpr(3)) == 3 and _unwrap_if_constexpr(4) == 4 and CONSTEXPR_0.value == 0
    assert getattr(tl.arange, TRITON_BUILTIN) and must_use_result is triton.must_use_result
    assert [get_int_dtype(b, True) for b in (1, 8, 16, 32, 64)] == [tl.int1, tl.int8, tl.int16, tl.int32, tl.int64]
    assert [get_int_dtype(b, False) for b in (8, 16, 32, 64)] == [tl.uint8, tl.uint16, tl.uint32, tl.uint64]
    with pytest.raises(ValueError, match="no signed integer type of 24 bits"):
        get_int_dtype(24, True)


@triton.jit
def float_bits(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    bits = x.to(tl.core.get_int_dtype(x.dtype.primitive_bitwidth, False), bitcast=True)
    tl.store(out_ptr + offs, bits)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("np_float, np_uint", [(np.float32, np.uint32), (np.float16, np.uint16)])
def test_get_int_dtype_in_a_kernel(executor, np_float, np_uint):
    x = np.random.default_rng(6).standard_normal(16).astype(np_float)
    out = np.full(16, 7, np_uint)
    launch(float_bits, (1,), x, out, 16, executor=executor)
    np.testing.assert_array_equal(out, x.view(np_uint))
