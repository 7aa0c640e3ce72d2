"""Float to integer conversion (`.to(int type)`, fptosi / fptoui) has one answer on both executors, for
blocks and scalars, from every float type to every integer width: truncated toward zero in range,
saturated outside it (+inf to the largest value, -inf to the smallest, 0 for an unsigned type), and
NaN to 0 (isa/float_to_int.py; NVIDIA's saturating conversion). LLVM leaves the out-of-range cases
undefined; numpy gives INT_MIN or wraps."""
import math
import zlib

import ml_dtypes
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from tests.executors import EXECUTORS, launch

N = 64
SOURCES = {"f32": (np.float32, tl.float32), "f16": (np.float16, tl.float16), "bf16": (ml_dtypes.bfloat16, tl.bfloat16),
           "f64": (np.float64, tl.float64)}        # (fp8 to an integer is refused, as Triton does: below)
TARGETS = {"i8": (np.int8, tl.int8), "i16": (np.int16, tl.int16), "i32": (np.int32, tl.int32), "i64": (np.int64, tl.int64),
           "u8": (np.uint8, tl.uint8), "u16": (np.uint16, tl.uint16), "u32": (np.uint32, tl.uint32),
           "u64": (np.uint64, tl.uint64)}


@triton.jit
def _block(X, Out, N: tl.constexpr, DST: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(Out + i, tl.load(X + i).to(DST))


@triton.jit
def _scalars(X, Out, N: tl.constexpr, DST: tl.constexpr):
    for j in range(N):                       # one scalar at a time: the control core's conversion
        tl.store(Out + j, tl.load(X + j).to(DST))


@triton.jit
def _uniform(X, Out, j, N: tl.constexpr, DST: tl.constexpr):
    # one scalar broadcast over a block, then converted: a uniform operand of the cast
    x = tl.load(X + j)
    tl.store(Out + tl.arange(0, N), (tl.zeros((N,), X.dtype.element_ty) + x).to(DST))


def _inputs(src, seed):
    """Random values of every magnitude (in range and far beyond every integer type) and sign, and the
    special values, in the source type (where it cannot hold one, it holds its inf or NaN)."""
    rng = np.random.default_rng(seed)
    special = [np.nan, np.inf, -np.inf, -0.5, 0.5, -0.0, 127.5, -128.5, 255.9, -1.0, 2.0 ** 31, -2.0 ** 31,
               2.0 ** 32, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 1e30, -1e30]
    x = rng.standard_normal(N) * 10.0 ** rng.uniform(-1, 21, N)
    x[rng.permutation(N)[:len(special)]] = special
    with np.errstate(over="ignore"):
        return x.astype(src)


def _expected(x, dst):
    """The definition, element by element in Python integers (independent of the executors' code)."""
    info = np.iinfo(dst)
    out = []
    for v in x.astype(np.float64):
        if math.isnan(v):
            out.append(0)
        elif math.isinf(v):
            out.append(info.max if v > 0 else info.min)
        else:
            out.append(min(max(math.trunc(v), info.min), info.max))
    return np.array(out, dtype=dst)


def _poisoned(dst, seed):
    # an integer output cannot hold NaN: random bits instead, so that a missed write shows
    return np.random.default_rng(seed + 1).integers(0, 256, N * np.dtype(dst).itemsize, np.uint8).view(dst)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("src", list(SOURCES))
@pytest.mark.parametrize("dst", list(TARGETS))
def test_blocks_saturate_and_nan_is_zero(executor, src, dst):
    (snp, _), (dnp, dtl) = SOURCES[src], TARGETS[dst]
    seed = zlib.crc32(f"{src}{dst}".encode())
    x = _inputs(snp, seed)
    out = _poisoned(dnp, seed)
    launch(_block, (1,), x, out, N=N, DST=dtl, executor=executor)
    np.testing.assert_array_equal(out, _expected(x, dnp), err_msg=f"{src} -> {dst} from {x}")


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("src", ["f32", "f64", "bf16"])
@pytest.mark.parametrize("dst", list(TARGETS))
def test_scalars_saturate_and_nan_is_zero(executor, src, dst):
    (snp, _), (dnp, dtl) = SOURCES[src], TARGETS[dst]
    seed = zlib.crc32(f"{src}{dst}s".encode())
    x = _inputs(snp, seed)
    out = _poisoned(dnp, seed)
    launch(_scalars, (1,), x, out, N=N, DST=dtl, executor=executor)
    np.testing.assert_array_equal(out, _expected(x, dnp), err_msg=f"{src} -> {dst} from {x}")


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 3e9, -3e9, -7.9])
@pytest.mark.parametrize("dst", ["i32", "u8", "u64"])
def test_a_uniform_block_saturates_as_the_rest(executor, value, dst):
    dnp, dtl = TARGETS[dst]
    x = np.array([1.5, value], np.float32)
    out = _poisoned(dnp, 7)[:16].copy()
    launch(_uniform, (1,), x, out, 1, N=16, DST=dtl, executor=executor)
    np.testing.assert_array_equal(out, np.full(16, _expected(x[1:], dnp)[0], dnp))


@triton.jit
def _fp8_to_int(X, Out, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(Out + i, tl.load(X + i).to(tl.int32))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_fp8_to_an_integer_is_refused_at_the_line_as_triton_does(executor):
    x = _inputs(ml_dtypes.float8_e4m3fn, 3)
    out = np.zeros(N, np.int32)
    with pytest.raises(Exception, match=r"(?s):\d+:\d+: error: cannot cast <\[64\], fp8e4nv> to <\[64\], int32>\n.*\.to\(tl\.int32\)"):
        launch(_fp8_to_int, (1,), x, out, N=N, executor=executor)
