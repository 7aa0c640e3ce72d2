"""Arithmetic on int1 (bool) tensors wraps mod 2, as every integer width does on a GPU: True + True
is False, False - True is True (Triton's test_int1_bin_op_wraparound). Both executors used to compute
`+` as a logical or (True + True = True), and the interpreter raised on `-`."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch

POISON = -7   # no path stores it: every result is 0 or 1


@triton.jit
def bool_arith(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(out_ptr + 0 * N + offs, (a + b).to(tl.int8))
    tl.store(out_ptr + 1 * N + offs, (a - b).to(tl.int8))
    tl.store(out_ptr + 2 * N + offs, (a * b).to(tl.int8))
    tl.store(out_ptr + 3 * N + offs, (-a).to(tl.int8))
    tl.store(out_ptr + 4 * N + offs, (a + True).to(tl.int8))
    acc = a
    acc += b
    acc -= a
    tl.store(out_ptr + 5 * N + offs, acc.to(tl.int8))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_bool_add_and_sub_wrap_mod_2(executor):
    rng = np.random.default_rng(11)
    n = 64
    a = rng.integers(0, 2, n).astype(bool)
    b = rng.integers(0, 2, n).astype(bool)
    out = np.full(6 * n, POISON, np.int8)
    launch(bool_arith, (1,), a, b, out, N=n, executor=executor)
    ai, bi = a.astype(np.int8), b.astype(np.int8)
    expected = np.concatenate([(ai + bi) % 2, (ai - bi) % 2, ai * bi, (-ai) % 2, (ai + 1) % 2,
                               ((ai + bi) % 2 - ai) % 2])
    np.testing.assert_array_equal(out, expected)
    assert (a & b).any() and (~a & b).any()   # the cases that wrap are there
