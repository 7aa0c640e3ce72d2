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
