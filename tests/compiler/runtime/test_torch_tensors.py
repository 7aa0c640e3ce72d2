"""CPU torch tensors stand wherever numpy arrays do: zero copy in, results written back into the
tensor, any strides and storage offset, bf16 and fp8 through ml_dtypes, on both executors; torch is
never imported unless the user passed a tensor."""
from __future__ import annotations

import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
import torch

import compiler as triton
import compiler.language as tl
from compiler.runtime.memory import host_array

from executors import EXECUTORS, launch

DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2, torch.int32]


@triton.jit
def strided_add_one(x_ptr, o_ptr, n, sx, so, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs * so, tl.load(x_ptr + offs * sx, mask=m) + 1, mask=m)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_strided_views_with_a_storage_offset_are_read_and_written_in_place(executor, dtype):
    gen = torch.Generator().manual_seed(5)
    base = (torch.randn(6, 10, generator=gen) * 4).to(dtype)
    x = base.t()[3]                                   # 6 elements, stride 10, storage offset 3
    out_base = torch.full((6, 10), -9.0).to(dtype)
    o = out_base.t()[7]
    before = out_base.clone()
    launch(strided_add_one, (1,), x, o, 6, x.stride(0), o.stride(0), BLOCK=8, executor=executor)
    expect = (x.float() + 1).to(dtype)
    assert torch.equal(o.float(), expect.float()), (o, expect)
    untouched = torch.ones(6, 10, dtype=torch.bool)
    untouched[:, 7] = False
    assert torch.equal(out_base.float()[untouched], before.float()[untouched])   # only the view was written


def test_a_numpy_view_shares_the_tensors_memory():
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)[:, 1]
    v = host_array(t)
    assert isinstance(v, np.ndarray) and v.strides == (16,) and v.ctypes.data == t.data_ptr()
    b = torch.zeros(5, dtype=torch.bfloat16)
    assert host_array(b).dtype.name == "bfloat16" and host_array(b).ctypes.data == b.data_ptr()


@triton.jit
def oob(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_failed_launch_leaves_the_tensor_unchanged(executor):
    t = torch.randn(50)
    before = t.clone()
    with pytest.raises(triton.OutOfBoundsError, match=r"past the end of (array ')?x_ptr"):
        launch(oob, (1,), t, BLOCK=64, executor=executor)
    assert torch.equal(t, before)


def test_a_tensor_that_needs_grad_is_read_through_detach():
    x = torch.randn(8, requires_grad=True)
    o = torch.full((8,), float("nan"))
    strided_add_one[(1,)](x, o, 8, 1, 1, BLOCK=8)
    assert torch.equal(o, x.detach() + 1)


def test_torch_is_imported_only_for_a_tensor(tmp_path):
    script = tmp_path / "numpy_only.py"
    script.write_text(
        "import sys, numpy as np, compiler as triton, compiler.language as tl\n"
        "@triton.jit\n"
        "def k(x_ptr):\n"
        "    tl.store(x_ptr, tl.load(x_ptr) + 1)\n"
        "x = np.zeros(1, np.float32); k[(1,)](x); k[(1,)](x, executor='mtia')\n"
        "assert x[0] == 2 and 'torch' not in sys.modules, sorted(m for m in sys.modules if 'torch' in m)\n")
    subprocess.run([sys.executable, str(script)], check=True, timeout=300)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_reinterpret_reads_a_tensors_bytes_as_another_dtype(executor):
    """triton.reinterpret: fp8 kept in a uint8 tensor, unsigned ints in a signed tensor, read and written
    in place as the named dtype."""
    rng = np.random.default_rng(3)
    vals = rng.uniform(-8, 8, 16).astype(ml_dtypes.float8_e5m2)
    x = torch.from_numpy(vals.view(np.uint8).copy())
    o = torch.full((16,), 0xFF, dtype=torch.uint8)              # 0xFF is a NaN in e5m2
    launch(strided_add_one, (1,), triton.reinterpret(x, tl.float8e5), triton.reinterpret(o, tl.float8e5), 16, 1, 1,
           BLOCK=16, executor=executor)
    expect = (vals.astype(np.float32) + 1).astype(ml_dtypes.float8_e5m2)
    np.testing.assert_array_equal(o.numpy().view(ml_dtypes.float8_e5m2), expect)
    big = torch.from_numpy(rng.integers(2**31, 2**32 - 2, 8, dtype=np.uint32).view(np.int32).copy())
    out = torch.zeros(8, dtype=torch.int32)
    launch(strided_add_one, (1,), triton.reinterpret(big, tl.uint32), triton.reinterpret(out, tl.uint32), 8, 1, 1,
           BLOCK=8, executor=executor)
    np.testing.assert_array_equal(out.numpy().view(np.uint32), big.numpy().view(np.uint32) + 1)
    with pytest.raises(TypeError, match="2-byte elements"):
        triton.reinterpret(torch.zeros(2, dtype=torch.int16), tl.float32)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_reinterpreted_tensor_gives_its_strides_in_elements(executor):
    """Host code reads a reinterpreted tensor's strides and element size as a torch tensor's (Triton's
    test_dot passes `x.stride(0)` of fp8 operands kept in int8 tensors)."""
    rng = np.random.default_rng(5)
    vals = rng.uniform(-4, 4, (4, 6)).astype(ml_dtypes.float8_e4m3fn)
    x = triton.reinterpret(torch.from_numpy(vals.view(np.int8).copy())[:, ::2], tl.float8e4nv)   # a column view
    o = torch.full((4,), 0x7F, dtype=torch.int8)                                                  # a NaN in e4m3
    assert (x.stride(), x.stride(0), x.stride(1), x.element_size()) == ((6, 2), 6, 2, 1)
    launch(strided_add_one, (1,), x, triton.reinterpret(o, tl.float8e4nv), 4, x.stride(0), 1, BLOCK=4,
           executor=executor)
    expect = (vals[:, 0].astype(np.float32) + 1).astype(ml_dtypes.float8_e4m3fn)
    np.testing.assert_array_equal(o.numpy().view(ml_dtypes.float8_e4m3fn), expect)


def test_float_dtypes_give_their_exponent_bias():
    """tl.dtype.exponent_bias, with fp_mantissa_width and primitive_bitwidth, decodes a float's bits
    by hand (as Triton's tests decode fp8 results): every finite e4m3 / e5m2 value decodes to itself."""
    assert [t.exponent_bias for t in (tl.float16, tl.bfloat16, tl.float32, tl.float64)] == [15, 127, 127, 1023]
    for t, np_t in ((tl.float8e4nv, ml_dtypes.float8_e4m3fn), (tl.float8e5, ml_dtypes.float8_e5m2)):
        bits = np.arange(256, dtype=np.uint8)
        vals = bits.view(np_t).astype(np.float64)
        m, e_bits = t.fp_mantissa_width, t.primitive_bitwidth - t.fp_mantissa_width - 1
        exp, frac = (bits >> m) & ((1 << e_bits) - 1), bits & ((1 << m) - 1)
        sign = np.where(bits >> 7, -1.0, 1.0)
        by_hand = sign * np.where(exp == 0, 2.0 ** (1 - t.exponent_bias) * frac / 2 ** m,
                                  2.0 ** (exp.astype(np.float64) - t.exponent_bias) * (1 + frac / 2 ** m))
        finite = np.isfinite(vals)
        np.testing.assert_array_equal(by_hand[finite], vals[finite])
    with pytest.raises(AttributeError, match="not a float type"):
        tl.int8.exponent_bias
