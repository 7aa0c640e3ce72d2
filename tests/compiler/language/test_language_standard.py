"""triton.language's standard library: tl.sort, tl.topk, tl.flip (library @jit functions built from
primitives: reshape, xor, xor_sum/max/min reductions, compares, where) and tl.gather / tl.histogram
(the tt.gather / tt.histogram ops) against numpy on random inputs, with poisoned outputs.

Everything runs on the reference interpreter and on the MTIA backend + simulator (config
mtia-small): sort/topk/flip need nothing beyond what the backend already lowers, and gather /
histogram are lowered to mlu.gather / re.histogram since 3002c92.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
import compiler.runtime.mtia_executor  # noqa: F401  (registers the "mtia" executor)
from compiler.errors import CompilationError, KernelRuntimeError
from compiler.ir import VerifyError, parse_module, print_module, verify

from executors import EXECUTORS, launch

# launched on the reference interpreter unless MTIASIM_EXECUTOR names another (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("interpreter_by_default")

RNG = np.random.default_rng(2024)


def random_values(shape, dtype, ties=False):
    """Random values of `dtype` over much of its range (never all zeros); `ties` draws from few values."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        x = RNG.integers(0, 2, shape).astype(bool)
    elif dt.kind == "f":
        x = np.round(RNG.standard_normal(shape) * 4, 0) if ties else RNG.standard_normal(shape) * 100
        x = x.astype(dt)
    else:
        info = np.iinfo(dt)
        lo, hi = (-3, 4) if ties and info.min < 0 else ((0, 6) if ties else (info.min, info.max))
        x = RNG.integers(lo, hi, shape, dtype=np.int64 if dt != np.uint64 else np.uint64, endpoint=True).astype(dt)
    if not x.any():
        x.flat[0] = 1
    return x


def poisoned(shape, dtype):
    """An output nothing has written yet: NaN for floats, an extreme value for ints."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return np.ones(shape, bool)
    fill = np.nan if dt.kind == "f" else (np.iinfo(dt).min if dt.kind == "i" else np.iinfo(dt).max)
    return np.full(shape, fill, dt)




# --- tl.sort ------------------------------------------------------------------------------------------

@triton.jit
def sort_1d_kernel(X, Y, N: tl.constexpr, DESC: tl.constexpr, FORM: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    if FORM == "default":
        y = tl.sort(x)
    elif FORM == "method":
        y = x.sort(descending=DESC)
    else:
        y = tl.sort(x, dim=0, descending=DESC)
    tl.static_assert(y.dtype == x.dtype)
    tl.store(Y + offs, y)


@triton.jit
def sort_2d_kernel(X, Y, M: tl.constexpr, N: tl.constexpr, DESC: tl.constexpr, DIM: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + offs)
    tl.store(Y + offs, tl.sort(x, dim=DIM, descending=DESC))


def sorted_ref(x, descending):
    y = np.sort(x, axis=-1, kind="stable")
    return y[..., ::-1] if descending else y


SORT_DTYPES = [np.float32, np.float16, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", SORT_DTYPES)
def test_sort_dtypes(dtype, descending, executor):
    for shape in [(64,), (4, 32)]:
        x = random_values(shape, dtype)
        y = poisoned(shape, dtype)
        if len(shape) == 1:
            launch(sort_1d_kernel, (1,), x, y, N=shape[0], DESC=descending, FORM="dim", executor=executor)
        else:
            launch(sort_2d_kernel, (1,), x, y, M=shape[0], N=shape[1], DESC=descending, DIM=None, executor=executor)
        np.testing.assert_array_equal(y, sorted_ref(x, descending), err_msg=f"{shape}")


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape", [(1,), (2,), (4,), (256,), (1, 1), (2, 2), (8, 64), (16, 8), (64, 1), (1, 128)])
@pytest.mark.parametrize("ties", [False, True])
def test_sort_sizes(shape, ties, executor):
    """Every power-of-two size along the sorted (last) dimension, rows of it, many equal values."""
    for dtype in (np.float32, np.int32):
        x = random_values(shape, dtype, ties=ties)
        for descending in (False, True):
            y = poisoned(shape, dtype)
            if len(shape) == 1:
                launch(sort_1d_kernel, (1,), x, y, N=shape[0], DESC=descending, FORM="dim", executor=executor)
            else:
                launch(sort_2d_kernel, (1,), x, y, M=shape[0], N=shape[1], DESC=descending, DIM=-1,
                       executor=executor)
            np.testing.assert_array_equal(y, sorted_ref(x, descending), err_msg=f"{dtype} {descending}")


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_sort_of_256_rows_of_16_fits_a_pe(dtype, executor):
    """Triton's test_sort size: each compare-exchange step keeps its compare as i1 (an i32 copy of
    it per step made the 32-bit sorts need 467 KB of local store; a PE has 383 KB)."""
    x = random_values((256, 16), dtype)
    y = poisoned((256, 16), dtype)
    launch(sort_2d_kernel, (1,), x, y, M=256, N=16, DESC=True, DIM=None, executor=executor)
    np.testing.assert_array_equal(y, sorted_ref(x, True))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_sort_default_and_method_forms(executor):
    x = random_values((32,), np.float32)
    y = poisoned((32,), np.float32)
    launch(sort_1d_kernel, (1,), x, y, N=32, DESC=True, FORM="default", executor=executor)
    np.testing.assert_array_equal(y, np.sort(x))                  # descending defaults to False
    y = poisoned((32,), np.float32)
    launch(sort_1d_kernel, (1,), x, y, N=32, DESC=True, FORM="method", executor=executor)
    np.testing.assert_array_equal(y, np.sort(x)[::-1])


def test_sort_infinities_and_signed_zeros():
    """-0.0 and +0.0 compare equal, so (as in Triton, whose network this is) the pair's upper position
    takes a copy of the lower one's value: both zeros come out with the first zero's sign bit."""
    x = np.array([3.0, -0.0, np.inf, -2.5, 0.0, -np.inf, 1e-30, -1e30], np.float32)
    y = poisoned(8, np.float32)
    launch(sort_1d_kernel, (1,), x, y, N=8, DESC=False, FORM="dim", executor="interpreter")
    np.testing.assert_array_equal(y, np.sort(x))
    assert list(np.signbit(y[3:5])) == [True, True]


def test_sort_only_along_the_last_dimension():
    x = random_values((4, 8), np.float32)
    with pytest.raises(CompilationError, match="only minor dimension is currently supported"):
        sort_2d_kernel[(1,)](x, x.copy(), M=4, N=8, DESC=False, DIM=0)


# --- tl.topk ------------------------------------------------------------------------------------------

@triton.jit
def topk_kernel(X, Y, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, DESC: tl.constexpr):
    x = tl.load(X + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    y = tl.topk(x, K) if DESC is None else tl.topk(x, K, descending=DESC)
    tl.static_assert(y.shape[1] == K)
    tl.store(Y + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :], y)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("descending", [None, True, False])
@pytest.mark.parametrize("k", [1, 2, 8, 32])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8])
def test_topk(dtype, k, descending, executor):
    """The k largest (descending, the default) or k smallest elements of each row, in that order."""
    M, N = 4, 32
    x = random_values((M, N), dtype, ties=k == 8)
    y = poisoned((M, k), dtype)
    launch(topk_kernel, (1,), x, y, M=M, N=N, K=k, DESC=descending, executor=executor)
    np.testing.assert_array_equal(y, sorted_ref(x, descending is not False)[:, :k])


@triton.jit
def topk_dtype_kernel(X, N: tl.constexpr, K: tl.constexpr, OUT: tl.constexpr):
    y = tl.topk(tl.load(X + tl.arange(0, N)), K)
    tl.static_assert(y.dtype == OUT)


def test_topk_result_dtype_follows_tl_max():
    """Like Triton: k < N halves the dimension with tl.max, which computes sub-32-bit types in 32 bits."""
    x8 = random_values((16,), np.int8)
    topk_dtype_kernel[(1,)](x8, N=16, K=16, OUT=tl.int8)
    topk_dtype_kernel[(1,)](x8, N=16, K=4, OUT=tl.int32)
    topk_dtype_kernel[(1,)](random_values((16,), np.float16), N=16, K=2, OUT=tl.float32)
    topk_dtype_kernel[(1,)](random_values((16,), np.float64), N=16, K=2, OUT=tl.float64)


# --- tl.flip ------------------------------------------------------------------------------------------

@triton.jit
def flip_1d_kernel(X, Y, N: tl.constexpr, DIM: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    if DIM == "method":
        y = x.flip()
    elif DIM == "none":
        y = tl.flip(x)
    else:
        y = tl.flip(x, DIM)
    tl.store(Y + offs, y)


@triton.jit
def flip_2d_kernel(X, Y, M: tl.constexpr, N: tl.constexpr, DIM: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(X + offs)
    if DIM == "none":
        y = tl.flip(x)
    else:
        y = tl.flip(x, dim=DIM)
    tl.store(Y + offs, y)


@triton.jit
def flip_3d_kernel(X, Y, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, DIM: tl.constexpr):
    offs = (tl.arange(0, A)[:, None, None] * (B * C) + tl.arange(0, B)[None, :, None] * C
            + tl.arange(0, C)[None, None, :])
    tl.store(Y + offs, tl.flip(tl.load(X + offs), DIM))


FLIP_DTYPES = [np.float32, np.float16, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", FLIP_DTYPES)
def test_flip_dtypes(dtype, executor):
    x = random_values((8, 16), dtype)
    for dim in (0, 1):
        y = poisoned(x.shape, dtype)
        launch(flip_2d_kernel, (1,), x, y, M=8, N=16, DIM=dim, executor=executor)
        np.testing.assert_array_equal(y, np.flip(x, dim), err_msg=f"dim {dim}")


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("n", [1, 2, 8, 512])
def test_flip_1d(n, executor):
    x = random_values((n,), np.float32)
    for dim in (0, -1, "none", "method"):
        y = poisoned((n,), np.float32)
        launch(flip_1d_kernel, (1,), x, y, N=n, DIM=dim, executor=executor)
        np.testing.assert_array_equal(y, x[::-1], err_msg=f"dim {dim}")


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape", [(2, 2), (1, 8), (32, 4), (4, 64), (16, 1)])
def test_flip_2d_every_dim(shape, executor):
    x = random_values(shape, np.int32)
    for dim, axis in ((0, 0), (1, 1), (-1, 1), (-2, 0), ("none", 1)):
        y = poisoned(shape, np.int32)
        launch(flip_2d_kernel, (1,), x, y, M=shape[0], N=shape[1], DIM=dim, executor=executor)
        np.testing.assert_array_equal(y, np.flip(x, axis), err_msg=f"dim {dim}")


@pytest.mark.parametrize("executor", EXECUTORS)
def test_flip_3d(executor):
    x = random_values((2, 4, 8), np.float32)
    for dim in (0, 1, 2, -1):
        y = poisoned(x.shape, np.float32)
        launch(flip_3d_kernel, (1,), x, y, A=2, B=4, C=8, DIM=dim, executor=executor)
        np.testing.assert_array_equal(y, np.flip(x, dim), err_msg=f"dim {dim}")


def test_flip_is_bit_exact_for_nan_and_negative_zero():
    x = np.array([np.nan, -0.0, 1.0, -np.inf, 0.0, 2.0, -np.nan, 5.0], np.float32)
    y = poisoned(8, np.float32)
    launch(flip_1d_kernel, (1,), x, y, N=8, DIM=0, executor="interpreter")
    np.testing.assert_array_equal(y.view(np.uint32), x[::-1].view(np.uint32))


def test_flip_dim_out_of_range():
    x = random_values((4, 8), np.float32)
    with pytest.raises(CompilationError, match="out of range"):
        flip_2d_kernel[(1,)](x, x.copy(), M=4, N=8, DIM=2)


# --- tl.gather ----------------------------------------------------------------------------------------

@triton.jit
def gather_kernel(S, I, Y, S0: tl.constexpr, S1: tl.constexpr, I0: tl.constexpr, I1: tl.constexpr,
                  AXIS: tl.constexpr, METHOD: tl.constexpr):
    src = tl.load(S + tl.arange(0, S0)[:, None] * S1 + tl.arange(0, S1)[None, :])
    i_offs = tl.arange(0, I0)[:, None] * I1 + tl.arange(0, I1)[None, :]
    idx = tl.load(I + i_offs)
    if METHOD:
        y = src.gather(idx, AXIS)
    else:
        y = tl.gather(src, idx, axis=AXIS)
    tl.static_assert(y.dtype == src.dtype)
    tl.store(Y + i_offs, y)


@triton.jit
def gather_1d_kernel(S, I, Y, N: tl.constexpr, M: tl.constexpr):
    y = tl.gather(tl.load(S + tl.arange(0, N)), tl.load(I + tl.arange(0, M)), 0)
    tl.store(Y + tl.arange(0, M), y)


@triton.jit
def gather_3d_kernel(S, I, Y, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, IB: tl.constexpr,
                     IC: tl.constexpr, AXIS: tl.constexpr):
    s_offs = (tl.arange(0, A)[:, None, None] * (B * C) + tl.arange(0, B)[None, :, None] * C
              + tl.arange(0, C)[None, None, :])
    i_offs = (tl.arange(0, A)[:, None, None] * (IB * IC) + tl.arange(0, IB)[None, :, None] * IC
              + tl.arange(0, IC)[None, None, :])
    tl.store(Y + i_offs, tl.gather(tl.load(S + s_offs), tl.load(I + i_offs), AXIS))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("src_dtype,idx_dtype", [(np.float32, np.int32), (np.int8, np.int64), (np.float16, np.uint32),
                                                 (np.int64, np.int16), (np.float64, np.uint8)])
def test_gather_2d(src_dtype, idx_dtype, axis, executor):
    S0, S1 = 8, 16
    src = random_values((S0, S1), src_dtype)
    # the index block may be longer or shorter than the source along the gathered axis
    for along in (4, 8, 32):
        ishape = (along, S1) if axis == 0 else (S0, along)
        idx = RNG.integers(0, src.shape[axis], ishape).astype(idx_dtype)
        y = poisoned(ishape, src_dtype)
        launch(gather_kernel, (1,), src, idx, y, S0=S0, S1=S1, I0=ishape[0], I1=ishape[1], AXIS=axis,
               METHOD=along == 8, executor=executor)
        np.testing.assert_array_equal(y, np.take_along_axis(src, idx.astype(np.int64), axis=axis),
                                      err_msg=f"index shape {ishape}")


@pytest.mark.parametrize("executor", EXECUTORS)
def test_gather_1d_and_3d(executor):
    src = random_values((16,), np.float32)
    idx = RNG.integers(0, 16, 64).astype(np.int32)
    y = poisoned(64, np.float32)
    launch(gather_1d_kernel, (1,), src, idx, y, N=16, M=64, executor=executor)
    np.testing.assert_array_equal(y, src[idx])
    src = random_values((2, 4, 8), np.int32)
    for axis, (ib, ic) in ((1, (16, 8)), (2, (4, 2)), (0, (4, 8))):
        ishape = (2, ib, ic)
        idx = RNG.integers(0, src.shape[axis], ishape).astype(np.int32)
        y = poisoned(ishape, np.int32)
        launch(gather_3d_kernel, (1,), src, idx, y, A=2, B=4, C=8, IB=ib, IC=ic, AXIS=axis, executor=executor)
        np.testing.assert_array_equal(y, np.take_along_axis(src, idx, axis=axis), err_msg=f"axis {axis}")


def test_gather_index_out_of_range_is_reported_by_the_interpreter():
    src = random_values((16,), np.float32)
    idx = RNG.integers(0, 16, 16).astype(np.int32)
    idx[5] = 16
    with pytest.raises(KernelRuntimeError, match=r"tt.gather index 16 at position \[5\] is out of range"):
        launch(gather_1d_kernel, (1,), src, idx, poisoned(16, np.float32), N=16, M=16, executor="interpreter")
    idx[5] = -1
    with pytest.raises(KernelRuntimeError, match="out of range"):
        launch(gather_1d_kernel, (1,), src, idx, poisoned(16, np.float32), N=16, M=16, executor="interpreter")


@triton.jit
def gather_error_kernel(S, CASE: tl.constexpr):
    src = tl.load(S + tl.arange(0, 8)[:, None] * 8 + tl.arange(0, 8)[None, :])
    if CASE == "rank":
        tl.gather(src, tl.arange(0, 8), 0)
    elif CASE == "dims":
        tl.gather(src, tl.zeros((4, 4), tl.int32), 0)
    elif CASE == "float":
        tl.gather(src, src, 0)
    else:
        tl.gather(src, tl.zeros((8, 8), tl.int32), 2)


@pytest.mark.parametrize("case,message", [("rank", "source and index tensors must have the same rank"),
                                          ("dims", "index dim 1 .4. must match the corresponding source dim"),
                                          ("float", "index must be an integer tensor"),
                                          ("axis", "gather axis 2 must be < source rank")])
def test_gather_errors(case, message):
    with pytest.raises(CompilationError, match=message):
        gather_error_kernel[(1,)](np.ones(64, np.float32), CASE=case)


# --- tl.histogram -------------------------------------------------------------------------------------

@triton.jit
def histogram_kernel(X, H, N: tl.constexpr, NUM_BINS: tl.constexpr, MASK: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    if MASK == "none":
        h = tl.histogram(x, NUM_BINS)
    elif MASK == "block":
        h = tl.histogram(x, NUM_BINS, mask=tl.arange(0, N) % 3 != 1)
    elif MASK == "method":
        h = x.histogram(NUM_BINS, (x & 1) == 0)
    else:
        h = tl.histogram(x, NUM_BINS, mask=MASK == "true")      # a compile-time bool, splat
    tl.static_assert(h.dtype == tl.int32)
    tl.static_assert(h.shape[0] == NUM_BINS)
    tl.store(H + tl.arange(0, NUM_BINS), h)


def histogram_ref(x, num_bins, keep):
    v = x.astype(np.int64)
    keep = keep & (v >= 0) & (v < num_bins)
    return np.bincount(v[keep], minlength=num_bins).astype(np.int32)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("mask", ["none", "block", "method", "true", "false"])
@pytest.mark.parametrize("n,num_bins", [(16, 8), (256, 64), (128, 1), (64, 128)])
def test_histogram(n, num_bins, mask, executor):
    x = RNG.integers(-3, num_bins + 3, n).astype(np.int32)     # some values outside [0, num_bins)
    x[:3] = [-1, num_bins, num_bins + 7]
    h = poisoned(num_bins, np.int32)
    launch(histogram_kernel, (1,), x, h, N=n, NUM_BINS=num_bins, MASK=mask, executor=executor)
    keep = {"none": np.ones(n, bool), "block": np.arange(n) % 3 != 1, "method": (x & 1) == 0,
            "true": np.ones(n, bool), "false": np.zeros(n, bool)}[mask]
    np.testing.assert_array_equal(h, histogram_ref(x, num_bins, keep))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint32, np.int64])
def test_histogram_input_dtypes(dtype, executor):
    """Counts are int32 whatever the input width (here 200 equal int8 values: more than int8 holds);
    values are read in the input's signedness (uint8 255 is outside the bins, not -1)."""
    n, num_bins = 256, 16
    x = RNG.integers(0, 20, n).astype(dtype)
    x[:200] = 5
    x[200] = np.array(-1).astype(dtype)
    h = poisoned(num_bins, np.int32)
    launch(histogram_kernel, (1,), x, h, N=n, NUM_BINS=num_bins, MASK="none", executor=executor)
    np.testing.assert_array_equal(h, histogram_ref(x, num_bins, np.ones(n, bool)))
    assert h[5] >= 200


@triton.jit
def histogram_error_kernel(X, CASE: tl.constexpr):
    x = tl.load(X + tl.arange(0, 16))
    if CASE == "2d":
        tl.histogram(tl.reshape(x, (4, 4)), 8)
    elif CASE == "float":
        tl.histogram(x.to(tl.float32), 8)
    elif CASE == "mask":
        tl.histogram(x, 8, mask=x)
    else:
        tl.histogram(x, 6)


@pytest.mark.parametrize("case,message", [("2d", "histogram only supports 1D input"),
                                          ("float", "histogram only supports integer input"),
                                          ("mask", "Mask must have boolean scalar type"),
                                          ("bins", "must be a power of 2")])
def test_histogram_errors(case, message):
    with pytest.raises(CompilationError, match=message):
        histogram_error_kernel[(1,)](np.ones(16, np.int32), CASE=case)


# --- the IR ops ---------------------------------------------------------------------------------------

IR = """module {
  tt.func @k(%s: tensor<8x16xf32>, %i: tensor<4x16xi64>, %x: tensor<32xi32>, %m: tensor<32xi1>) {
    %g = tt.gather %s, %i {axis = 0} : tensor<4x16xf32>
    %h = tt.histogram %x, %m : tensor<8xi32>
    %h2 = tt.histogram %x : tensor<64xi32>
    tt.return
  }
}
"""


def test_gather_and_histogram_parse_print_and_verify():
    m = parse_module(IR)
    verify(m)
    assert print_module(parse_module(print_module(m))) == print_module(m)
    assert "tt.gather %s, %i {axis = 0} : tensor<4x16xf32>" in print_module(m)


@pytest.mark.parametrize("bad,message", [
    ("tt.gather %s, %i {axis = 1} : tensor<4x16xf32>", "index dimension 0 .4. must match the source dimension"),
    ("tt.gather %s, %i {axis = 0} : tensor<4x16xi32>", "must have the source's element type and the index's shape"),
    ("tt.gather %s, %s {axis = 0} : tensor<8x16xf32>", "index must be integers"),
    ("tt.gather %s, %x {axis = 0} : tensor<32xf32>", "one rank"),
    ("tt.gather %s, %i {axis = 2} : tensor<4x16xf32>", "axis 2 is outside a rank-2 source"),
    ("tt.histogram %s : tensor<8xi32>", "needs a 1-D block of integers"),
    ("tt.histogram %x : tensor<8xi64>", "result must be a 1-D block of i32"),
    ("tt.histogram %x, %x : tensor<8xi32>", "mask must be i1 of the input's shape"),
])
def test_gather_and_histogram_verifier(bad, message):
    text = IR.replace("    %h2 = tt.histogram %x : tensor<64xi32>\n", f"    %bad = {bad}\n")
    with pytest.raises(VerifyError, match=message):
        verify(parse_module(text))


# --- tl.swizzle2d -----------------------------------------------------------------------------------

@triton.jit
def swizzle_block_kernel(I, J, SI: tl.constexpr, SJ: tl.constexpr, SG: tl.constexpr, BI: tl.constexpr,
                         BJ: tl.constexpr):
    i = tl.arange(0, BI)[:, None] + tl.zeros((BI, BJ), tl.int32)
    j = tl.arange(0, BJ)[None, :] + tl.zeros((BI, BJ), tl.int32)
    ni, nj = tl.swizzle2d(i, j, SI, SJ, SG)
    mask = (i < SI) & (j < SJ)
    tl.store(I + i * SJ + j, ni, mask=mask)
    tl.store(J + i * SJ + j, nj, mask=mask)


@triton.jit
def swizzle_pid_kernel(I, J, n_i, n_j, SG: tl.constexpr):
    """The tutorial-matmul use: each program maps its own (pid_m, pid_n)."""
    pid_i, pid_j = tl.program_id(0), tl.program_id(1)
    ni, nj = tl.swizzle2d(pid_i, pid_j, n_i, n_j, SG)
    tl.store(I + pid_i * n_j + pid_j, ni)
    tl.store(J + pid_i * n_j + pid_j, nj)


def swizzle_ref(size_i, size_j, size_g):
    """Cells in the order the grouped numbering visits them: groups of size_g rows (the last one
    shorter), column by column inside a group; the k-th visited cell is where row-major cell k goes."""
    order = [(r, c) for g in range(0, size_i, size_g) for c in range(size_j)
             for r in range(g, min(g + size_g, size_i))]
    ni = np.array([r for r, _ in order], np.int32).reshape(size_i, size_j)
    nj = np.array([c for _, c in order], np.int32).reshape(size_i, size_j)
    return ni, nj


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("size_i,size_j,size_g", [(8, 8, 2), (7, 5, 3), (16, 4, 16), (5, 9, 1), (12, 6, 5)])
def test_swizzle2d_on_blocks(size_i, size_j, size_g, executor):
    out_i, out_j = poisoned((size_i, size_j), np.int32), poisoned((size_i, size_j), np.int32)
    launch(swizzle_block_kernel, (1,), out_i, out_j, SI=size_i, SJ=size_j, SG=size_g,
           BI=triton.next_power_of_2(size_i), BJ=triton.next_power_of_2(size_j), executor=executor)
    ref_i, ref_j = swizzle_ref(size_i, size_j, size_g)
    np.testing.assert_array_equal(out_i, ref_i)
    np.testing.assert_array_equal(out_j, ref_j)
    # a permutation of the grid's cells
    assert len(set(zip(out_i.ravel().tolist(), out_j.ravel().tolist()))) == size_i * size_j


@pytest.mark.parametrize("executor", EXECUTORS)
def test_swizzle2d_on_program_ids(executor):
    n_i, n_j, g = 6, 4, 4
    out_i, out_j = poisoned((n_i, n_j), np.int32), poisoned((n_i, n_j), np.int32)
    launch(swizzle_pid_kernel, (n_i, n_j), out_i, out_j, n_i, n_j, SG=g, executor=executor)
    ref_i, ref_j = swizzle_ref(n_i, n_j, g)
    np.testing.assert_array_equal(out_i, ref_i)
    np.testing.assert_array_equal(out_j, ref_j)
