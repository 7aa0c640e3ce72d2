"""Memory order within a program: two accesses of one program to overlapping bytes happen in program
order, whatever does them: a block access is a DMA command the control core queues and goes on from,
a scalar `tl.load`/`tl.store` of one element the control core does itself, at once. Each kernel below
reads back or overwrites bytes it accessed just before; both executors must give numpy's answer, bit
for bit, on mtia-2i and on mtia-2i-loads-pass (where a store waiting for its data lets later loads of
other bytes start). Outputs are NaN-poisoned before each run; inputs random."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from simulator import use_config

N = 64
RUNS = [("interpreter", None), ("mtia", "mtia-2i"), ("mtia", "mtia-2i-loads-pass")]
IDS = ["interpreter", "mtia-2i", "mtia-2i-loads-pass"]


def _launch(kernel, grid, *args, executor, config, overrides=None, **kw):
    if executor == "interpreter":
        return kernel[grid](*args, executor="interpreter", **kw)
    with use_config(config, overrides):
        rec = kernel[grid](*args, executor="mtia", max_steps=100_000, **kw)
    assert rec.executor == "mtia" and rec.cycles > 0
    return rec


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _nan(*shape):
    return np.full(shape, np.nan, np.float32)


@triton.jit
def _block_store_then_scalar_store(X, P, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(P + o, tl.load(X + o) * 2.0 + 1.0)
    tl.store(P + 3, tl.load(X + 5))


@triton.jit
def _block_store_then_scalar_load(X, P, Out, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(P + o, tl.load(X + o) * 2.0 + 1.0)
    tl.store(Out, tl.load(P + 3))


@triton.jit
def _scalar_store_then_block_load(X, P, Out, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(P + 3, tl.load(X + 5))
    tl.store(Out + o, tl.load(P + o) * 2.0 + 1.0)


@triton.jit
def _block_load_then_scalar_store(X, P, Out, N: tl.constexpr):
    o = tl.arange(0, N)
    y = tl.load(P + o)
    tl.store(P + 3, tl.load(X + 5))
    tl.store(Out + o, y * 2.0 + 1.0)


@triton.jit
def _block_store_then_block_load(X, P, Out, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(P + o, tl.load(X + o) * 2.0 + 1.0)
    h = tl.arange(0, N // 2) + N // 4            # the middle half of what was just stored
    tl.store(Out + h, tl.load(P + h) + 1.0)


@triton.jit
def _block_store_then_block_store(X, P, N: tl.constexpr, M: tl.constexpr):
    """A long store, then a short one into its middle: the short one's bytes must stay."""
    o = tl.arange(0, N)
    tl.store(P + o, tl.load(X + o) * 2.0 + 1.0)
    s = tl.arange(0, M) + 8
    tl.store(P + s, tl.load(X + s))


def _expect_block(x):
    return x * np.float32(2.0) + np.float32(1.0)


@pytest.mark.parametrize("executor,config", RUNS, ids=IDS)
def test_a_scalar_store_after_a_block_store_of_the_same_bytes_lands_last(executor, config):
    x, p = _rand(N), _nan(N)
    _launch(_block_store_then_scalar_store, (1,), x, p, N=N, executor=executor, config=config)
    want = _expect_block(x)
    want[3] = x[5]
    np.testing.assert_array_equal(p, want)


@pytest.mark.parametrize("executor,config", RUNS, ids=IDS)
def test_a_scalar_load_after_a_block_store_reads_the_stored_value(executor, config):
    x, p, out = _rand(N), _nan(N), _nan(1)
    _launch(_block_store_then_scalar_load, (1,), x, p, out, N=N, executor=executor, config=config)
    np.testing.assert_array_equal(p, _expect_block(x))
    np.testing.assert_array_equal(out, _expect_block(x)[3:4])


@pytest.mark.parametrize("executor,config", RUNS, ids=IDS)
def test_a_block_load_after_a_scalar_store_reads_the_stored_value(executor, config):
    x, p, out = _rand(N), _rand(N, seed=1), _nan(N)
    want_p = p.copy()
    want_p[3] = x[5]
    _launch(_scalar_store_then_block_load, (1,), x, p, out, N=N, executor=executor, config=config)
    np.testing.assert_array_equal(p, want_p)
    np.testing.assert_array_equal(out, _expect_block(want_p))


@pytest.mark.parametrize("executor,config", RUNS, ids=IDS)
def test_a_block_load_before_a_scalar_store_reads_the_old_value(executor, config):
    x, p, out = _rand(N), _rand(N, seed=1), _nan(N)
    old = p.copy()
    _launch(_block_load_then_scalar_store, (1,), x, p, out, N=N, executor=executor, config=config)
    np.testing.assert_array_equal(out, _expect_block(old))
    old[3] = x[5]
    np.testing.assert_array_equal(p, old)


@pytest.mark.parametrize("executor,config", RUNS, ids=IDS)
def test_a_block_load_after_a_block_store_of_overlapping_bytes_reads_the_stored_values(executor, config):
    x, p, out = _rand(N), _nan(N), _nan(N)
    _launch(_block_store_then_block_load, (1,), x, p, out, N=N, executor=executor, config=config)
    want = _nan(N)
    want[N // 4: 3 * N // 4] = _expect_block(x)[N // 4: 3 * N // 4] + np.float32(1.0)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("executor,config", RUNS, ids=IDS)
@pytest.mark.parametrize("policy", ["write_back", "write_through"])
def test_a_later_block_store_of_overlapping_bytes_lands_last(executor, config, policy):
    """Write-through, the long store is through once its last DRAM channel is, the short one once its
    one channel is: without an order between them, the short one could land first."""
    n, m = 4096, 8
    x, p = _rand(n), _nan(n)
    _launch(_block_store_then_block_store, (1,), x, p, N=n, M=m, executor=executor, config=config,
            overrides={"sram.llc_policy": policy})
    want = _expect_block(x)
    want[8: 8 + m] = x[8: 8 + m]
    np.testing.assert_array_equal(p, want)


@triton.jit
def _running_rows(X, P, R: tl.constexpr, N: tl.constexpr):
    """Row i of P = row i of X plus P[i-1, 0]: each iteration reads, as a scalar, a byte the previous
    iteration's block store wrote."""
    o = tl.arange(0, N)
    tl.store(P + o, tl.load(X + o))
    for i in range(1, R):
        prev = tl.load(P + (i - 1) * N)
        tl.store(P + i * N + o, tl.load(X + i * N + o) + prev)


@triton.jit
def _scalar_fixups(X, P, R: tl.constexpr, N: tl.constexpr):
    """Each iteration stores a block row, then patches one element of it with a scalar store."""
    o = tl.arange(0, N)
    for i in range(R):
        tl.store(P + i * N + o, tl.load(X + i * N + o) * 2.0 + 1.0)
        tl.store(P + i * N + i, tl.load(X + i * N))


@pytest.mark.parametrize("executor,config", RUNS, ids=IDS)
def test_each_iteration_reads_the_row_the_previous_one_stored(executor, config):
    r = 6
    x, p = _rand(r, N), _nan(r, N)
    _launch(_running_rows, (1,), x, p, R=r, N=N, executor=executor, config=config)
    want = x.copy()
    for i in range(1, r):
        want[i] = x[i] + want[i - 1, 0]
    np.testing.assert_array_equal(p, want)


@pytest.mark.parametrize("executor,config", RUNS, ids=IDS)
def test_each_iterations_scalar_store_lands_after_its_block_store(executor, config):
    r = 6
    x, p = _rand(r, N), _nan(r, N)
    _launch(_scalar_fixups, (1,), x, p, R=r, N=N, executor=executor, config=config)
    want = _expect_block(x)
    for i in range(r):
        want[i, i] = x[i, 0]
    np.testing.assert_array_equal(p, want)


@triton.jit
def _through_two_pointers(X, A, B, Out, N: tl.constexpr):
    """A and B may be the same memory: the scalar load through B reads what the store through A wrote,
    and the scalar store through B lands after it."""
    o = tl.arange(0, N)
    tl.store(A + o, tl.load(X + o) * 2.0 + 1.0)
    tl.store(Out, tl.load(B + 3))
    tl.store(B + 5, tl.load(X + 7))


@pytest.mark.parametrize("executor,config", RUNS, ids=IDS)
@pytest.mark.parametrize("shift", [0, 2])
def test_two_pointer_arguments_to_one_buffer_keep_program_order(executor, config, shift):
    """B is A itself (shift 0), or a view of A's buffer starting `shift` elements later."""
    x, buf, out = _rand(N), _nan(N + shift), _nan(1)
    a, b = buf[:N], buf[shift:]
    _launch(_through_two_pointers, (1,), x, a, b, out, N=N, executor=executor, config=config)
    want = _nan(N + shift)
    want[:N] = _expect_block(x)
    np.testing.assert_array_equal(out, want[shift + 3: shift + 4])
    want[shift + 5] = x[7]
    np.testing.assert_array_equal(buf, want)


@triton.jit
def _scatter_then_scalar_load(X, I, P, Out, N: tl.constexpr):
    """A scatter's offsets come from memory: the scalar load cannot know its bytes before it runs."""
    o = tl.arange(0, N)
    tl.store(P + tl.load(I + o), tl.load(X + o) * 2.0 + 1.0)
    tl.store(Out, tl.load(P + tl.load(I + 3)))


@pytest.mark.parametrize("executor,config", RUNS, ids=IDS)
def test_a_scalar_load_after_a_scatter_reads_the_scattered_value(executor, config):
    x, p, out = _rand(N), _nan(4 * N), _nan(1)
    idx = np.random.default_rng(2).permutation(4 * N)[:N].astype(np.int32)
    _launch(_scatter_then_scalar_load, (1,), x, idx, p, out, N=N, executor=executor, config=config)
    want = _nan(4 * N)
    want[idx] = _expect_block(x)
    np.testing.assert_array_equal(p, want)
    np.testing.assert_array_equal(out, _expect_block(x)[3:4])


KERNELS = {
    "block_store_scalar_store": (_block_store_then_scalar_store, lambda x: (x, _nan(N))),
    "block_store_scalar_load": (_block_store_then_scalar_load, lambda x: (x, _nan(N), _nan(1))),
    "block_load_scalar_store": (_block_load_then_scalar_store, lambda x: (x, _rand(N, seed=1), _nan(N))),
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_both_executors_give_the_same_bits(name):
    kernel, make = KERNELS[name]
    x = _rand(N, seed=3)
    results = []
    for executor, config in RUNS:
        args = make(x)
        _launch(kernel, (1,), *args, N=N, executor=executor, config=config)
        results.append(args[1:])
    for other in results[1:]:
        for got, ref in zip(other, results[0]):
            np.testing.assert_array_equal(got, ref)
