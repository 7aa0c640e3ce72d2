"""Device memory: arrays kept in simulated DRAM across launches, each at a device address a kernel may
read from memory (pointer tables, the grouped-GEMM pattern), on both executors; out-of-bounds accesses
through them still name the array, and a failed launch leaves them unchanged."""
from __future__ import annotations

import gc
import re

import numpy as np
import pytest
import torch

import compiler as triton
import compiler.language as tl
from compiler.runtime import device_array
from compiler.runtime.memory import DEVICE_BASE

from executors import EXECUTORS, launch

RNG = np.random.default_rng(21)


@triton.jit
def scale(x_ptr, o_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m) * factor, mask=m)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_device_arrays_persist_across_launches(executor):
    host = RNG.standard_normal(300).astype(np.float32)
    x = device_array(host, name="x")
    mid = device_array(np.full(300, np.nan, np.float32), name="mid")
    out = np.full(300, np.nan, np.float32)                               # a host array beside them
    launch(scale, (3,), x, mid, 300, 2.0, BLOCK=128, executor=executor)  # device -> device
    launch(scale, (3,), mid, out, 300, 3.0, BLOCK=128, executor=executor)  # the next launch reads it
    np.testing.assert_array_equal(mid.to_host(), host * 2)
    np.testing.assert_array_equal(out, host * 2 * 3)
    np.testing.assert_array_equal(x.to_host(), host)
    assert x.data_ptr() >= DEVICE_BASE and x.data_ptr() % 256 == 0
    assert x.shape == (300,) and x.dtype == np.float32 and x.nbytes == 1200


@triton.jit
def grouped_axpy(a_table, b_table, c_table, sizes_ptr, alpha, BLOCK: tl.constexpr):
    """One group per program: c_g = alpha * a_g + b_g, with each group's arrays reached through a
    table of their addresses (the grouped-GEMM tutorial's pattern)."""
    g = tl.program_id(0)
    a = tl.load(a_table + g).to(tl.pointer_type(tl.float16))
    b = tl.load(b_table + g).to(tl.pointer_type(tl.float16))
    c = tl.load(c_table + g).to(tl.pointer_type(tl.float16))
    n = tl.load(sizes_ptr + g)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(c + offs, tl.load(a + offs, mask=m) * alpha + tl.load(b + offs, mask=m), mask=m)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("table_on_device", [True, False])
def test_a_kernel_dereferences_addresses_it_loads_from_a_pointer_table(executor, table_on_device):
    sizes = [50, 128, 7, 200]
    a = [device_array(RNG.standard_normal(s).astype(np.float16), name=f"a{i}") for i, s in enumerate(sizes)]
    b = [device_array(RNG.standard_normal(s).astype(np.float16), name=f"b{i}") for i, s in enumerate(sizes)]
    c = [device_array(np.full(s, np.nan, np.float16), name=f"c{i}") for i, s in enumerate(sizes)]

    def table(arrays):
        t = np.array([x.data_ptr() for x in arrays], np.int64)
        return device_array(t) if table_on_device else t
    launch(grouped_axpy, (len(sizes),), table(a), table(b), table(c), np.array(sizes, np.int32), 1.5,
           BLOCK=64, executor=executor)
    for ai, bi, ci in zip(a, b, c):
        want = (ai.to_host().astype(np.float32) * 1.5 + bi.to_host().astype(np.float32)).astype(np.float16)
        np.testing.assert_allclose(ci.to_host().astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_an_overrun_through_a_table_names_the_device_array_and_changes_nothing(executor):
    sizes = [64, 64]
    a = [device_array(RNG.standard_normal(s).astype(np.float16), name=f"a{i}") for i, s in enumerate(sizes)]
    b = [device_array(RNG.standard_normal(s).astype(np.float16), name=f"b{i}") for i, s in enumerate(sizes)]
    c = [device_array(np.full(s, np.nan, np.float16), name=f"out{i}") for i, s in enumerate(sizes)]
    before = [x.to_host() for x in a + b + c]
    tables = [np.array([x.data_ptr() for x in arrays], np.int64) for arrays in (a, b, c)]
    with pytest.raises(triton.OutOfBoundsError) as e:          # the sizes say 80: 16 past each array
        launch(grouped_axpy, (2,), *tables, np.array([80, 80], np.int32), 1.5, BLOCK=64, executor=executor)
    assert re.search(r"past the end of (array ')?a0\b", str(e.value)), str(e.value)
    for x, x0 in zip(a + b + c, before):
        np.testing.assert_array_equal(x.to_host(), x0)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_host_addresses_in_a_table_are_named_as_such(executor):
    """A table of host addresses (`tensor.data_ptr()` of CPU tensors, as the grouped-GEMM tutorial
    builds it for CUDA tensors) is refused on both executors with what to do instead."""
    host = [torch.randn(64, dtype=torch.float16) for _ in range(6)]
    tables = [torch.tensor([t.data_ptr() for t in host[i:i + 2]], dtype=torch.int64) for i in (0, 2, 4)]
    with pytest.raises(triton.OutOfBoundsError) as e:
        launch(grouped_axpy, (2,), *tables, np.array([64, 64], np.int32), 1.5, BLOCK=64, executor=executor)
    text = str(e.value)
    assert f"{host[0].data_ptr():#x} is beyond the device's memory" in text, text
    assert "device_array(" in text, text


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_torch_tensor_becomes_a_device_array(executor):
    t = torch.randn(100).to(torch.bfloat16)
    x = device_array(t)
    o = torch.full((100,), float("nan"), dtype=torch.bfloat16)
    launch(scale, (1,), x, o, 100, 2.0, BLOCK=128, executor=executor)
    assert torch.equal(o, t * 2)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("offset", [16, 4])                  # 16-byte aligned, and 4 bytes into a DMA beat
def test_a_view_into_a_device_array_is_a_pointer_at_its_offset(executor, offset):
    host = RNG.standard_normal(300).astype(np.float32)
    store = device_array(np.concatenate([host, np.full(300, np.nan, np.float32)]), name="store")
    x, out = store.view(np.float32, offset), store.view(np.float32, 300 * 4 + offset)
    assert x.data_ptr() == store.data_ptr() + offset and x.shape == (300 - offset // 4 + 300,)
    n = 300 - offset // 4
    launch(scale, (3,), x, out, n, 2.0, BLOCK=128, executor=executor)
    got = store.to_host()
    np.testing.assert_array_equal(got[:300], host)                               # the input is untouched
    np.testing.assert_array_equal(got[300 + offset // 4:], host[offset // 4:] * 2)
    assert np.isnan(got[300:300 + offset // 4]).all()                            # before the view: not written
    np.testing.assert_array_equal(out.to_host()[:n], host[offset // 4:] * 2)
    with pytest.raises(ValueError, match="store at byte 2 as float32"):
        store.view(np.float32, 2)


def test_a_collected_device_array_frees_its_address():
    x = device_array(np.zeros(1000, np.float32))
    address = x.data_ptr()
    del x
    gc.collect()
    y = device_array(np.zeros(1000, np.float32))
    assert y.data_ptr() == address


def test_device_array_refuses_what_is_not_an_array():
    with pytest.raises(TypeError, match=r"device_array\(\) takes a numpy array or a CPU torch tensor, got list"):
        device_array([1, 2, 3])
