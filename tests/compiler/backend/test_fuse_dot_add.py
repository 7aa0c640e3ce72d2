"""`acc += tl.dot(a, b)` compiles to the same program as `acc = tl.dot(a, b, acc)` (the fuse-dot-add
pass, compiler/ir/passes/fuse_dot_add.py), as Triton's combine pass makes it on a GPU.

Unfused, the dot's result was a second accumulator-sized tile: at 128x256 with an f32 accumulator the
`+=` form was refused with OutOfResources on MTIA 2i while the fused form ran (found running a fork's
`indirected_loads` tutorial). Results are checked against numpy on random inputs with NaN-poisoned
outputs, the two forms against each other bit for bit, and each executor against the other.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.ir import print_module


@triton.jit
def k_loop(a_ptr, b_ptr, c_ptr, K, FORM: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        if FORM == "fused":
            acc = tl.dot(a, b, acc)
        elif FORM == "plus_equals":
            acc += tl.dot(a, b)
        else:                                       # the dot on the left of the add
            acc = tl.dot(a, b) + acc
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def dot_used_twice(a_ptr, b_ptr, x_ptr, c_ptr, d_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + r[None, :])
    b = tl.load(b_ptr + r[:, None] * N + r[None, :])
    x = tl.load(x_ptr + r[:, None] * N + r[None, :])
    d = tl.dot(a, b)
    tl.store(c_ptr + r[:, None] * N + r[None, :], x + d)
    tl.store(d_ptr + r[:, None] * N + r[None, :], d)


@triton.jit
def int8_plus_equals(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    acc = tl.load(c_ptr + r[:, None] * N + r[None, :])
    acc += tl.dot(tl.load(a_ptr + r[:, None] * N + r[None, :]), tl.load(b_ptr + r[:, None] * N + r[None, :]))
    tl.store(c_ptr + r[:, None] * N + r[None, :], acc)


def _inputs(bm, bn, k, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((bm, k)).astype(np.float16), rng.standard_normal((k, bn)).astype(np.float16)


def _run(form, a, b, executor, **blocks):
    c = np.full((a.shape[0], b.shape[1]), np.nan, np.float32)
    rec = k_loop[(1,)](a, b, c, a.shape[1], FORM=form, executor=executor, **blocks)
    return c, rec


def test_plus_equals_fits_where_the_fused_form_does():
    """128x256x64 with an f32 accumulator on MTIA 2i: both forms run, give the same bits and cycles."""
    a, b = _inputs(128, 256, 128)
    blocks = dict(BM=128, BN=256, BK=64)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    fused, rec_fused = _run("fused", a, b, "mtia", **blocks)
    for form in ("plus_equals", "dot_first"):
        c, rec = _run(form, a, b, "mtia", **blocks)
        np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-4)
        assert np.array_equal(c.view(np.uint32), fused.view(np.uint32)), form
        assert rec.cycles == rec_fused.cycles, form


@pytest.mark.parametrize("form", ["fused", "plus_equals", "dot_first"])
def test_executors_agree_bitwise(form):
    a, b = _inputs(64, 64, 96, seed=1)
    blocks = dict(BM=64, BN=64, BK=32)
    on_mtia, _ = _run(form, a, b, "mtia", **blocks)
    interp, _ = _run(form, a, b, "interpreter", **blocks)
    assert not np.isnan(on_mtia).any()
    assert np.array_equal(on_mtia.view(np.uint32), interp.view(np.uint32))


def test_the_ir_holds_one_dot_with_the_accumulator():
    a, b = _inputs(32, 32, 64)
    kernel = k_loop.compile(a, b, np.empty((32, 32), np.float32), 64, FORM="plus_equals", BM=32, BN=32, BK=32)
    text = print_module(kernel.module)
    assert text.count("tt.dot") == 1 and "arith.addf" not in text


@pytest.mark.parametrize("executor", ["mtia", "interpreter"])
def test_a_dot_read_twice_is_left_alone(executor):
    rng = np.random.default_rng(2)
    n = 32
    a, b = (rng.standard_normal((n, n)).astype(np.float16) for _ in range(2))
    x = rng.standard_normal((n, n)).astype(np.float32)
    c, d = np.full((n, n), np.nan, np.float32), np.full((n, n), np.nan, np.float32)
    dot_used_twice[(1,)](a, b, x, c, d, N=n, executor=executor)
    prod = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(d, prod, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(c, x + prod, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("executor", ["mtia", "interpreter"])
def test_int8_plus_equals(executor):
    rng = np.random.default_rng(3)
    n = 32
    a, b = (rng.integers(-128, 128, (n, n)).astype(np.int8) for _ in range(2))
    c0 = rng.integers(-2**20, 2**20, (n, n)).astype(np.int32)
    c = c0.copy()
    int8_plus_equals[(1,)](a, b, c, N=n, executor=executor)
    assert np.array_equal(c, c0 + a.astype(np.int32) @ b.astype(np.int32))
