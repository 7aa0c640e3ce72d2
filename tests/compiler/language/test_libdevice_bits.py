"""libdevice's bit counts popc and clz (Triton's test_libdevice.py::test_popc and test_clz failed with
"'libdevice' has no attribute 'popc'"): int32 results for int32 and int64 inputs, as in Triton, with
0, -1 and the minimum included, on both executors, against Python's own bit counts."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.language.extra import libdevice

from executors import EXECUTORS, launch


@triton.jit
def bit_counts(x_ptr, popc_ptr, clz_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(popc_ptr + offs, libdevice.popc(x))
    tl.store(clz_ptr + offs, libdevice.clz(x))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_popc_and_clz_count_bits(executor, dtype):
    n, bits = 64, np.dtype(dtype).itemsize * 8
    rng = np.random.default_rng(bits)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, n, dtype=dtype)
    x[:4] = [0, 1, -1, info.min]
    x[4:12] = rng.integers(0, 1 << 12, 8)
    unsigned = x.view(np.uint32 if bits == 32 else np.uint64)
    popc_ref = np.array([bin(int(v)).count("1") for v in unsigned], np.int32)
    clz_ref = np.array([bits - int(v).bit_length() for v in unsigned], np.int32)
    popc, clz = np.full(n, -7, np.int32), np.full(n, -7, np.int32)
    launch(bit_counts, (1,), x, popc, clz, N=n, executor=executor)
    np.testing.assert_array_equal(popc, popc_ref)
    np.testing.assert_array_equal(clz, clz_ref)
