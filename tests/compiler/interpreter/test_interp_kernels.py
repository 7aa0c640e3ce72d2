"""Library-style Triton kernels run through the reference interpreter and compared with numpy.

Outputs are poisoned (NaN / a sentinel) before each launch so unwritten elements show, and sizes are
not multiples of the block sizes. `EXAMPLES` lists every kernel launch here; test_ir_roundtrip.py
re-compiles them all and checks that their printed IR parses back to the same text.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

# launched on the reference interpreter unless MTIASIM_EXECUTOR names another (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("interpreter_by_default")

RNG = np.random.default_rng(1234)
EXAMPLES = []   # (name, kernel, grid, args, kwargs) of every launch below


def launch(name, kernel, grid, *args, **kwargs):
    EXAMPLES.append((name, kernel, grid, args, kwargs))
    return kernel[grid](*args, **kwargs)


# --- vector add --------------------------------------------------------------------------------------

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def test_vector_add():
    n = 1000
    x, y = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    launch("add", add_kernel, (triton.cdiv(n, 128),), x, y, out, n, BLOCK=128)
    np.testing.assert_array_equal(out, x + y)


# --- fused softmax (tutorial 02) ---------------------------------------------------------------------

@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK_SIZE: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=2):
        row_start_ptr = in_ptr + row_idx * in_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(row_start_ptr + col_offsets, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        tl.store(out_ptr + row_idx * out_stride + col_offsets, numerator / denominator, mask=mask)


def test_softmax():
    x = RNG.standard_normal((37, 100)).astype(np.float32)
    y = np.full_like(x, np.nan)
    launch("softmax", softmax_kernel, (8,), y, x, x.shape[1], y.shape[1], x.shape[0], x.shape[1],
           BLOCK_SIZE=triton.next_power_of_2(x.shape[1]))
    ref = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, ref / ref.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)


# --- matmul with grouped ordering and a fused activation (tutorial 03) -------------------------------

@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@pytest.mark.parametrize("activation", ["", "leaky_relu"])
def test_matmul_grouped(activation):
    M, N, K = 100, 70, 90
    a = RNG.standard_normal((M, K)).astype(np.float16)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)
    launch(f"matmul{activation}", matmul_kernel, grid, a, b, c, M, N, K, a.strides[0] // 2, a.strides[1] // 2,
           b.strides[0] // 2, b.strides[1] // 2, c.strides[0] // 2, c.strides[1] // 2,
           BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=4, ACTIVATION=activation)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    if activation:
        ref = np.where(ref >= 0, ref, 0.01 * ref)
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=2e-3, atol=2e-2)


def test_matmul_transposed_view_as_input():
    # B passed as a transposed (non-contiguous) view: strides carry the layout, as with torch tensors
    M, N, K = 64, 48, 40
    a = RNG.standard_normal((M, K)).astype(np.float16)
    bt = RNG.standard_normal((N, K)).astype(np.float16)
    b = bt.T
    c = np.full((M, N), np.nan, np.float16)
    grid = (triton.cdiv(M, 16) * triton.cdiv(N, 16),)
    launch("matmul_view", matmul_kernel, grid, a, b, c, M, N, K, a.strides[0] // 2, a.strides[1] // 2,
           b.strides[0] // 2, b.strides[1] // 2, c.strides[0] // 2, c.strides[1] // 2,
           BLOCK_SIZE_M=16, BLOCK_SIZE_N=16, BLOCK_SIZE_K=16, GROUP_SIZE_M=2, ACTIVATION="")
    np.testing.assert_allclose(c.astype(np.float32), a.astype(np.float32) @ b.astype(np.float32),
                               rtol=2e-3, atol=2e-2)


# --- layer norm forward (tutorial 05) ----------------------------------------------------------------

@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def test_layer_norm_forward():
    M, N = 13, 300
    x = RNG.standard_normal((M, N)).astype(np.float32) * 2 + 1
    w, b = RNG.standard_normal(N).astype(np.float32), RNG.standard_normal(N).astype(np.float32)
    y = np.full_like(x, np.nan)
    mean, rstd = np.full(M, np.nan, np.float32), np.full(M, np.nan, np.float32)
    launch("layernorm", layer_norm_fwd, (M,), x, y, w, b, mean, rstd, x.strides[0] // 4, N, 1e-5, BLOCK_SIZE=128)
    ref_mean = x.mean(1)
    ref_rstd = 1 / np.sqrt(x.var(1) + 1e-5)
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rstd, ref_rstd, rtol=1e-4)
    np.testing.assert_allclose(y, (x - ref_mean[:, None]) * ref_rstd[:, None] * w + b, rtol=1e-4, atol=1e-4)


# --- flash-attention style loop (online softmax) -----------------------------------------------------

@triton.jit
def attention_fwd(Q, K, V, Out, seq_len, stride_s, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + offs_m[:, None] * stride_s + offs_d[None, :], mask=offs_m[:, None] < seq_len, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = 1.0 / (HEAD_DIM ** 0.5)
    hi = seq_len
    if CAUSAL:
        hi = min((start_m + 1) * BLOCK_M, seq_len)
    for start_n in range(0, hi, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        kv_mask = offs_n[:, None] < seq_len
        k = tl.load(K + offs_n[:, None] * stride_s + offs_d[None, :], mask=kv_mask, other=0.0)
        v = tl.load(V + offs_n[:, None] * stride_s + offs_d[None, :], mask=kv_mask, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        valid = offs_n[None, :] < seq_len
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= offs_n[None, :])
        qk = tl.where(valid, qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_ij[:, None])
        alpha = tl.exp(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + offs_m[:, None] * stride_s + offs_d[None, :], acc.to(tl.float16), mask=offs_m[:, None] < seq_len)


@pytest.mark.parametrize("causal", [False, True])
def test_flash_attention_loop(causal):
    S, D = 50, 32
    q, k, v = (RNG.standard_normal((S, D)).astype(np.float16) for _ in range(3))
    out = np.full((S, D), np.nan, np.float16)
    launch(f"attention{causal}", attention_fwd, (triton.cdiv(S, 16),), q, k, v, out, S, q.strides[0] // 2,
           HEAD_DIM=D, BLOCK_M=16, BLOCK_N=16, CAUSAL=causal)
    s = (q.astype(np.float32) @ k.astype(np.float32).T) / np.sqrt(D)
    if causal:
        s = np.where(np.tril(np.ones((S, S), bool)), s, -np.inf)
    p = np.exp(s - s.max(1, keepdims=True))
    ref = (p / p.sum(1, keepdims=True)) @ v.astype(np.float32)
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=1e-2, atol=1e-2)


# --- scans, atomics, while loops, runtime ifs, descriptors -------------------------------------------

@triton.jit
def cumsum_rows(X, Y, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < n_cols, other=0)
    tl.store(Y + row * stride + cols, tl.cumsum(x, axis=0), mask=cols < n_cols)


def test_cumsum():
    x = RNG.integers(-50, 50, (6, 60)).astype(np.int32)
    y = np.full_like(x, -999)
    launch("cumsum", cumsum_rows, (6,), x, y, 60, 60, BLOCK=64)
    np.testing.assert_array_equal(y, np.cumsum(x, axis=1))


@triton.jit
def histogram_kernel(X, Hist, n, NUM_BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0)
    tl.atomic_add(Hist + x, 1, mask=mask)


@triton.jit
def atomic_max_kernel(X, Out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=float("-inf"))
    tl.atomic_max(Out, tl.max(x, 0))


def test_atomics():
    x = RNG.integers(0, 10, 1000).astype(np.int32)
    hist = np.zeros(10, np.int32)
    launch("histogram", histogram_kernel, (triton.cdiv(1000, 128),), x, hist, 1000, NUM_BINS=10, BLOCK=128)
    np.testing.assert_array_equal(hist, np.bincount(x, minlength=10))
    f = RNG.standard_normal(1000).astype(np.float32)
    out = np.full(1, -np.inf, np.float32)
    launch("atomic_max", atomic_max_kernel, (8,), f, out, 1000, BLOCK=128)
    assert out[0] == f.max()


@triton.jit
def spin_lock_sum(X, Out, Lock, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    partial = tl.sum(tl.load(X + offs, mask=offs < n, other=0.0), 0)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    tl.store(Out, tl.load(Out) + partial)
    tl.atomic_xchg(Lock, 0)


def test_atomic_cas_spin_lock():
    x = RNG.standard_normal(500).astype(np.float32)
    out, lock = np.zeros(1, np.float32), np.zeros(1, np.int32)
    launch("spin_lock", spin_lock_sum, (4,), x, out, lock, 500, BLOCK=128)
    np.testing.assert_allclose(out[0], x.sum(), rtol=1e-5)
    assert lock[0] == 0


@triton.jit
def collatz_steps(X, Out, n, BLOCK: tl.constexpr):
    # a scalar while loop per element, written with a runtime `if` inside a `while`
    pid = tl.program_id(0)
    for i in range(0, BLOCK):
        idx = pid * BLOCK + i
        if idx < n:
            v = tl.load(X + idx)
            steps = 0
            while v != 1:
                if v % 2 == 0:
                    v = v // 2
                else:
                    v = 3 * v + 1
                steps += 1
            tl.store(Out + idx, steps)


def _collatz(v):
    s = 0
    while v != 1:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        s += 1
    return s


def test_while_loop_and_runtime_if():
    x = RNG.integers(1, 200, 21).astype(np.int32)
    out = np.full(21, -1, np.int32)
    launch("collatz", collatz_steps, (3,), x, out, 21, BLOCK=8)
    np.testing.assert_array_equal(out, [_collatz(int(v)) for v in x])


@triton.jit
def early_exit_copy(X, Y, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs, mask=offs < n) * 2, mask=offs < n)


def test_early_return():
    x = RNG.standard_normal(100).astype(np.float32)
    y = np.full(100, np.nan, np.float32)
    launch("early_exit", early_exit_copy, (10,), x, y, 100, BLOCK=32)   # 6 programs return at once
    np.testing.assert_array_equal(y, 2 * x)


@triton.jit
def descriptor_copy_scale(X, Y, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    x_desc = tl.make_tensor_descriptor(X, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    y_desc = tl.make_tensor_descriptor(Y, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    tile = x_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
    y_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], tile * 3 + 1)


def test_tensor_descriptor():
    M, N = 37, 45
    x = RNG.standard_normal((M, N)).astype(np.float32)
    y = np.full((M + 3, N), np.nan, np.float32)    # rows past M stay poisoned: OOB writes are dropped
    launch("descriptor", descriptor_copy_scale, (triton.cdiv(M, 16), triton.cdiv(N, 16)), x, y, M, N,
           BLOCK_M=16, BLOCK_N=16)
    np.testing.assert_allclose(y[:M], x * 3 + 1, rtol=1e-6)
    assert np.isnan(y[M:]).all()


@triton.jit
def descriptor_padding(X, Y, M, N, BLOCK: tl.constexpr):
    desc = tl.make_tensor_descriptor(X, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    tile = desc.load([M - BLOCK // 2, N - BLOCK // 2])   # straddles the corner: the rest reads 0
    offs = tl.arange(0, BLOCK)
    tl.store(Y + offs[:, None] * BLOCK + offs[None, :], tile)


def test_tensor_descriptor_out_of_bounds_reads_zero():
    M, N = 20, 24
    x = RNG.standard_normal((M, N)).astype(np.float32)
    y = np.full((16, 16), np.nan, np.float32)
    launch("descriptor_pad", descriptor_padding, (1,), x, y, M, N, BLOCK=16)
    ref = np.zeros((16, 16), np.float32)
    ref[:8, :8] = x[M - 8:, N - 8:]
    np.testing.assert_array_equal(y, ref)


@triton.jit
def signed_sqrt(x):
    if x < 0:
        return -tl.sqrt(-x)
    return tl.sqrt(x)


@triton.jit
def early_return_value_kernel(X, Y, n):
    i = tl.program_id(0)
    tl.store(Y + i, signed_sqrt(tl.load(X + i)))


def test_value_returning_early_return_in_a_called_function():
    x = RNG.standard_normal(10).astype(np.float32)
    y = np.full(10, np.nan, np.float32)
    launch("signed_sqrt", early_return_value_kernel, (10,), x, y, 10)
    np.testing.assert_allclose(y, np.sign(x) * np.sqrt(np.abs(x)), rtol=1e-6)


# --- block pointers (legacy tl.make_block_ptr / tl.advance), carried through a loop -------------------

@triton.jit
def matmul_block_ptr_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                            stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                            BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_block = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_block = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                                offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_block, boundary_check=(0, 1))
        b = tl.load(b_block, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b)
        a_block = tl.advance(a_block, (0, BLOCK_K))
        b_block = tl.advance(b_block, (BLOCK_K, 0))
    c_block = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                                offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N),
                                order=(1, 0))
    tl.store(c_block, acc.to(tl.float16), boundary_check=(0, 1))


def test_matmul_with_block_pointers():
    M, N, K = 50, 40, 70
    a = RNG.standard_normal((M, K)).astype(np.float16)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float16)
    launch("matmul_block_ptr", matmul_block_ptr_kernel, (triton.cdiv(M, 16), triton.cdiv(N, 16)), a, b, c, M, N, K,
           K, 1, N, 1, N, 1, BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
    np.testing.assert_allclose(c.astype(np.float32), a.astype(np.float32) @ b.astype(np.float32),
                               rtol=2e-3, atol=2e-2)


@triton.jit
def fib_pairs_kernel(Out, n):
    pair = (0, 1)                      # a tuple carried through the loop
    for i in range(n):
        a, b = pair
        pair = (b, a + b)
    if n > 5:                          # ... and merged by a runtime if
        pair = (pair[0] * 10, pair[1])
    tl.store(Out, pair[0])
    tl.store(Out + 1, pair[1])


def test_tuples_carried_by_loops_and_ifs():
    out = np.zeros(2, np.int32)
    launch("fib", fib_pairs_kernel, (1,), out, 10)
    assert list(out) == [550, 89]
    launch("fib", fib_pairs_kernel, (1,), out, 4)
    assert list(out) == [3, 5]
