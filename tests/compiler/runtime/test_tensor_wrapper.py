"""`triton.reinterpret`'s wrapper as host code handles it: Triton's TensorWrapper members (data, base,
device, data_ptr, new_empty, clone, copy_, cpu, to, shape, stride, numel, element_size) on numpy and
CPU torch bases, and the wrappers they return launched on both executors with the reinterpreted
(unsigned) dtype kept: comparisons, division and shifts that differ between signed and unsigned."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import compiler as triton
import compiler.language as tl
from compiler.tools.tensor_descriptor import TensorDescriptor

from executors import EXECUTORS, launch

UNSIGNED = {"uint8": (tl.uint8, np.int8), "uint16": (tl.uint16, np.int16),
            "uint32": (tl.uint32, np.int32), "uint64": (tl.uint64, np.int64)}
BASES = ["numpy", "torch"]


@triton.jit
def unsigned_mix(x_ptr, y_ptr, o_ptr, M, N, sxm, sxn, sym, syn, som, son, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    rn = tl.program_id(1) * BN + tl.arange(0, BN)[None, :]
    m = (rm < M) & (rn < N)
    x = tl.load(x_ptr + rm * sxm + rn * sxn, mask=m)
    y = tl.load(y_ptr + rm * sym + rn * syn, mask=m)
    r = tl.where(x > y, x // 3, y >> 2) + (x & 0xF)
    tl.store(o_ptr + rm * som + rn * son, r, mask=m)


def reference(x, y):
    return np.where(x > y, x // 3, y >> 2) + (x & 0xF)


def random_bits(name, shape, seed):
    """Uniform over the whole unsigned range (top bit set half the time), as the signed storage type."""
    rng = np.random.default_rng(seed)
    info = np.iinfo(name)
    return rng.integers(0, info.max, shape, dtype=name, endpoint=True).view(UNSIGNED[name][1])


def wrapped(bits, base, name):
    store = torch.from_numpy(bits.copy()) if base == "torch" else bits.copy()
    return triton.reinterpret(store, UNSIGNED[name][0])


def unsigned_view(w, name):
    """What the wrapper's storage holds, read as the unsigned dtype (a copy)."""
    host = w.base.numpy() if isinstance(w.base, torch.Tensor) else w.base
    return np.array(host).view(name)


def run_mix(x, y, out, executor):
    M, N = x.shape
    launch(unsigned_mix, (triton.cdiv(M, 8), triton.cdiv(N, 8)), x, y, out, M, N, *x.stride(), *y.stride(),
           *out.stride(), BM=8, BN=8, executor=executor)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("name", UNSIGNED)
def test_a_sliced_wrapper_and_its_new_empty_output_run_as_unsigned(executor, base, name):
    """`w.data = w.data[...]` narrows the wrapper to a strided view; `new_empty` gives an output of the
    same reinterpreted dtype; the kernel sees unsigned elements on both sides."""
    x = wrapped(random_bits(name, (11, 20), 1), base, name)
    y = wrapped(random_bits(name, (11, 40), 2), base, name)
    x.data = x.data[:, 3:]                              # a strided view with a storage offset
    y.data = y.data[1:, ::2][:, :x.shape[1]]
    x.data = x.data[:y.shape[0]]
    out = x.new_empty(x.shape)
    assert isinstance(out, triton.TensorWrapper) and out.dtype == x.dtype and tuple(out.shape) == tuple(x.shape)
    out.data[...] = -7                                  # poison: every element the kernel skips stays so
    run_mix(x, y, out, executor)
    np.testing.assert_array_equal(unsigned_view(out, name), reference(unsigned_view(x, name), unsigned_view(y, name)))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("name", UNSIGNED)
def test_clone_copy_to_and_cpu_keep_the_dtype_and_their_own_storage(executor, base, name):
    x = wrapped(random_bits(name, (9, 13), 3), base, name)
    y = wrapped(random_bits(name, (9, 13), 4), base, name)
    x_before = unsigned_view(x, name)
    out = x.clone()                                      # the kernel writes the clone, never x
    assert out.dtype == x.dtype and out.data_ptr() != x.data_ptr()
    out.copy_(wrapped(np.full((9, 13), -3, UNSIGNED[name][1]), base, name))     # poison through copy_
    assert (unsigned_view(out, name) == np.iinfo(name).max - 2).all()
    moved = [w.to("cpu") for w in (x, y)] + [out.cpu()]
    assert all(isinstance(w, triton.TensorWrapper) and w.dtype == x.dtype for w in moved)
    run_mix(*moved, executor)
    expect = reference(x_before, unsigned_view(y, name))
    np.testing.assert_array_equal(unsigned_view(out, name), expect)
    np.testing.assert_array_equal(unsigned_view(x, name), x_before)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("name", UNSIGNED)
def test_a_host_built_descriptor_over_a_wrapper_loads_unsigned_tiles(executor, base, name):
    @triton.jit
    def halve_tiles(desc, o_ptr, N, BM: tl.constexpr, BN: tl.constexpr):
        pm, pn = tl.program_id(0), tl.program_id(1)
        tile = desc.load([pm * BM, pn * BN])
        rm = pm * BM + tl.arange(0, BM)[:, None]
        rn = pn * BN + tl.arange(0, BN)[None, :]
        tl.store(o_ptr + rm * N + rn, tile // 2)

    x = wrapped(random_bits(name, (16, 32), 5), base, name)
    out = x.new_empty((16, 32))
    out.data[...] = -1
    launch(halve_tiles, (2, 2), TensorDescriptor.from_tensor(x, [8, 16]), out, 32, BM=8, BN=16, executor=executor)
    np.testing.assert_array_equal(unsigned_view(out, name), unsigned_view(x, name) // 2)


@pytest.mark.parametrize("base", BASES)
def test_the_wrapper_reports_its_base_as_triton_does(base):
    bits = random_bits("uint32", (4, 6), 6)
    w = wrapped(bits, base, "uint32")
    assert w.base is w.data or torch.equal(w.data, w.base)
    assert w.data_ptr() == (w.base.data_ptr() if base == "torch" else w.base.ctypes.data)
    assert str(w.device) == "cpu" and tuple(w.shape) == (4, 6)
    assert (w.numel(), w.element_size(), w.stride(), w.stride(0)) == (24, 4, (6, 1), 6)
    assert w.new_empty(2, 3).shape == w.new_empty((2, 3)).shape
    assert str(w).startswith("TensorWrapper[uint32](")
    assert triton.reinterpret(w, tl.int32) is w.base     # back to the storage's own dtype: the base itself
    assert triton.reinterpret(w, tl.float32).dtype == tl.float32


@pytest.mark.parametrize("base", BASES)
def test_a_view_of_another_element_size_or_a_device_numpy_lacks_is_refused(base):
    w = wrapped(random_bits("uint16", (4,), 7), base, "uint16")
    wider = torch.zeros(4, dtype=torch.int32) if base == "torch" else np.zeros(4, np.int32)
    with pytest.raises(TypeError, match="4-byte elements, not the 2-byte ones of uint16"):
        w.data = wider
    assert w.element_size() == 2 and w.base.dtype != wider.dtype     # unchanged
    if base == "numpy":
        with pytest.raises(TypeError, match="stays on the host"):
            w.to("cuda")
