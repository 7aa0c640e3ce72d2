"""tl.atomic_load, tl.atomic_store and tl.atomic_poll, which Triton 3.9 has and we lacked (upstream
test_frontend.py's test_atomic_load_store and test_atomic_poll cases), on both executors: every element
type upstream tests (int1 to int64) and floats, masks, scalars and blocks, and a poll that waits for
another program's store. Outputs are poisoned before every run."""
import ml_dtypes
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.errors import CompilationError

from executors import EXECUTORS, launch

DTYPES = [("int1", np.bool_), ("int8", np.int8), ("uint8", np.uint8), ("int16", np.int16), ("int32", np.int32),
          ("int64", np.int64), ("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16), ("float32", np.float32),
          ("float64", np.float64)]


@triton.jit
def copy_half(src, dst, N: tl.constexpr):
    offs = tl.arange(0, N)
    mask = offs < N // 2
    value = tl.atomic_load(src + offs, mask=mask, sem="relaxed", scope="sys")
    tl.atomic_store(dst + offs, value, mask=mask)
    tl.atomic_store(dst + N, tl.atomic_load(src + N))            # scalars
    (dst + N + 1).atomic_store((src + N + 1).atomic_load(sem="acquire"), sem="relaxed", scope="cta")


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("name, np_t", DTYPES, ids=[d[0] for d in DTYPES])
def test_atomic_load_and_store_copy_the_bits(executor, name, np_t):
    n = 16
    rng = np.random.default_rng(0)
    if np_t is np.bool_:
        src = rng.integers(0, 2, n + 2).astype(np.bool_)
        dst = ~src
    else:
        src = (rng.standard_normal(n + 2) * 50).astype(np_t)
        src[3] = -0.0 if np.issubdtype(np.dtype(np_t), np.floating) or np_t is ml_dtypes.bfloat16 else src[3]
        dst = np.full(n + 2, 77, np_t)
    want = dst.copy()
    want[: n // 2] = src[: n // 2]
    want[n:] = src[n:]
    launch(copy_half, (1,), src, dst, executor=executor, N=n)
    np.testing.assert_array_equal(dst.view(np.uint8), want.view(np.uint8))


@triton.jit
def poll_for_a_handover(flag, data, out, N: tl.constexpr):
    offs = tl.arange(0, N)
    if tl.program_id(0) == 0:
        tl.store(data + offs, tl.load(data + offs) + 1)
        tl.atomic_store(flag + offs % 2, 1 + offs % 2, mask=offs < 2)       # flags 1 and 2
    else:
        seen = tl.atomic_poll(flag + tl.arange(0, 2), 1 + tl.arange(0, 2))
        first = tl.atomic_poll(flag, 1, sem="relaxed")
        tl.store(out + offs, tl.atomic_load(data + offs) * 10 + tl.sum(seen.to(tl.int32)) + first.to(tl.int32))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_poll_waits_for_the_values(executor):
    n = 64
    data = np.random.default_rng(1).integers(-100, 100, n).astype(np.int32)
    out = np.full((n,), -1, np.int32)
    launch(poll_for_a_handover, (2,), np.zeros(2, np.int32), data.copy(), out, executor=executor, N=n)
    np.testing.assert_array_equal(out, (data + 1) * 10 + 3)


@triton.jit
def bad_semantics(p, WHICH: tl.constexpr):
    if WHICH == "load":
        tl.store(p, tl.atomic_load(p, sem="release"))
    elif WHICH == "store":
        tl.atomic_store(p, 1, sem="acquire")
    elif WHICH == "poll":
        tl.atomic_poll(p, 1, sem="release")
    elif WHICH == "negative":
        tl.atomic_poll(p, 1, timeout_ns=-1)
    else:
        tl.atomic_poll(p, 1, timeout_ns=1000)


@pytest.mark.parametrize("which, message", [
    ("load", "atomic_load supports sem='acquire' or 'relaxed', got 'release'"),
    ("store", "atomic_store supports sem='release' or 'relaxed', got 'acquire'"),
    ("poll", "atomic_poll supports sem='acquire' or 'relaxed', got 'release'"),
    ("negative", "timeout_ns must be >= 0, got -1"),
    ("timeout", "atomic_poll with timeout_ns is not supported"),
])
def test_refusals_name_the_argument_at_the_kernel_line(which, message):
    with pytest.raises(CompilationError, match=r"test_atomic_load_store.py:\d+:\d+: error: .*" + message):
        bad_semantics[(1,)](np.zeros(1, np.int32), WHICH=which, executor="interpreter")
