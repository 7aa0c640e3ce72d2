"""Cast folding (`fold_casts`, on by default): a widening cast read only by SE arithmetic is no
command (the SE converts the narrow tile as it computes), a narrowing cast of SE arithmetic's f32
result is that result written narrow, and `tl.dot(a, b)` without an accumulator writes fresh (no
zero fill). The numbers are the same bits with the switch on and off, and match numpy."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.runtime.mtia_executor import mtia_program
from simulator import get_config


@triton.jit
def _dequant(Acc, S, T, X, Out, Cmp, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    acc = tl.load(Acc + r[:, None] * BLOCK + r[None, :])               # i32
    x = tl.load(X + r[:, None] * BLOCK + r[None, :])                   # f16
    s = tl.load(S + r)
    t = tl.load(T + r)
    y = acc.to(tl.float32) * s[:, None] + tl.abs(x.to(tl.float32)) * t[None, :]
    tl.store(Out + r[:, None] * BLOCK + r[None, :], y.to(tl.float16))
    xf = tl.load(X + r[None, :] * BLOCK + r[:, None]).to(tl.float32)   # read by a compare: stays a copy
    tl.store(Cmp + r[:, None] * BLOCK + r[None, :], (xf > 0.5).to(tl.int32) + xf.to(tl.int32))


@triton.jit
def _fresh_dot(A, B, C, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(A + r[:, None] * BLOCK + r[None, :])
    b = tl.load(B + r[:, None] * BLOCK + r[None, :])
    tl.store(C + r[:, None] * BLOCK + r[None, :], tl.dot(a, b))


def _inputs(n=32):
    rng = np.random.default_rng(11)
    acc = rng.integers(-(1 << 26), 1 << 26, (n, n)).astype(np.int32)     # beyond f32's exact integers
    x = (rng.standard_normal((n, n)) * 3).astype(np.float16)
    s = (rng.standard_normal(n) * 1e-4).astype(np.float32)          # keeps acc * s inside f16's range
    return acc, s, rng.standard_normal(n).astype(np.float32), x


def _run(opts, executor="mtia"):
    acc, s, t, x = _inputs()
    out = np.full(acc.shape, np.nan, np.float16)
    cmp = np.full(acc.shape, -7, np.int32)
    _dequant[(1,)](acc, s, t, x, out, cmp, BLOCK=32, mtia_options=opts, executor=executor)
    return out, cmp


def test_folded_casts_give_the_same_bits_as_copies_and_as_the_interpreter():
    on, off, ref = _run({}), _run({"fold_casts": False}), _run({}, "interpreter")
    for a, b, c in zip(on, off, ref):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    acc, s, t, x = _inputs()
    y = acc.astype(np.float32) * s[:, None] + np.abs(x.astype(np.float32)) * t[None, :]
    np.testing.assert_array_equal(on[0], y.astype(np.float16))


def _asm(kernel, args, opts=None, **meta):
    return mtia_program(kernel.compile(*args, **meta), get_config(), 3, opts)[0].to_asm()


def test_widening_and_narrowing_casts_become_no_commands_unless_a_reader_needs_the_copy():
    acc, s, t, x = _inputs()
    args = (acc, s, t, x, np.zeros(acc.shape, np.float16), np.zeros(acc.shape, np.int32))
    on = [ln.split()[0] for ln in _asm(_dequant, args, BLOCK=32).splitlines() if ln.strip().startswith("se.")]
    off = [ln.split()[0] for ln in _asm(_dequant, args, {"fold_casts": False}, BLOCK=32).splitlines()
           if ln.strip().startswith("se.")]
    # off: i32->f32, f16->f32 twice (the arithmetic's and the compare's), f32->f16, i1->i32, f32->i32;
    # on: the compare's f16->f32 copy and the conversions to integers remain
    assert (off.count("se.mov"), on.count("se.mov")) == (6, 3)
    mul = next(ln for ln in _asm(_dequant, args, BLOCK=32).splitlines() if "se.mul" in ln and ":i32[" in ln)
    assert ":f32[32x32]" in mul.split(",")[0]


@pytest.mark.parametrize("opts", [{}, {"fold_casts": False}])
def test_a_dot_without_accumulator_writes_fresh(opts):
    rng = np.random.default_rng(2)
    a, b = (rng.standard_normal((32, 32)).astype(np.float16) for _ in range(2))
    c = np.full((32, 32), np.nan, np.float32)
    asm = _asm(_fresh_dot, (a, b, c), opts, BLOCK=32)
    assert "se.fill" not in asm and "dpe.mm cb" in asm and ".push:f32[32x32]" in asm
    _fresh_dot[(1,)](a, b, c, BLOCK=32, mtia_options=opts)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-5)


@triton.jit
def _narrowed_while_input_lives(X, Out, Keep, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(X + r)
    y = (x * 1.0009765625).to(tl.float16)       # the multiply writes f16 (a folded narrowing cast)...
    tl.store(Out + r, y.to(tl.float32) * 3.0)
    tl.store(Keep + r, x)                        # ...into a new slot, since x is still read after it


@pytest.mark.parametrize("executor", ["mtia", "interpreter"])
def test_a_narrowed_result_in_a_fresh_slot_is_rounded(executor):
    """Failed before on MTIA, silently: a result written narrow got a fresh slot of its wide type when
    its input lived on, so the f16 rounding was lost (0.29 off). The difftest found it through a
    tl.dot that then saw f32 operands ("tl.dot of f32 by f16")."""
    x = (np.random.default_rng(5).standard_normal(256) * 100).astype(np.float32)
    out, keep = np.full_like(x, np.nan), np.full_like(x, np.nan)
    _narrowed_while_input_lives[(1,)](x, out, keep, BLOCK=256, executor=executor)
    np.testing.assert_array_equal(out, (x * np.float32(1.0009765625)).astype(np.float16).astype(np.float32) * 3)
    np.testing.assert_array_equal(keep, x)
