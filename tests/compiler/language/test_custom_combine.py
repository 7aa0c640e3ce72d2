"""tl.reduce / tl.associative_scan with user combine functions, on both executors.

The RE runs the combines it knows (sum, max, argmax, ...); the expand-combine pass rewrites any
other into SE/MLU steps (a halving tree for reduce, Hillis-Steele for scan). The reduce tree pairs
adjacent elements like the interpreter's, so even non-associative reduces agree exactly; scans agree
for associative combines (the last test documents the order for a non-associative one).
"""

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.backend.passes.expand_combine import ExpandCombine
from compiler.errors import CompilationError
from compiler.ir import parse_module, print_module, verify
from simulator import use_config

from executors import EXECUTORS, launch
from filecheck import check_ir

INT_POISON = -12345


# ---- combine functions ----------------------------------------------------------------------------

@triton.jit
def _welford(m1, s1, n1, m2, s2, n2):
    n = n1 + n2
    d = m2 - m1
    w = tl.where(n == 0, 0.0, n2 / tl.where(n == 0, 1.0, n))
    return m1 + d * w, s1 + s2 + d * d * n1 * w, n


@triton.jit
def _argmin_first(v1, i1, v2, i2):
    left = (v1 < v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(left, v1, v2), tl.where(left, i1, i2)


@triton.jit
def _argmax_first(v1, i1, v2, i2):
    left = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(left, v1, v2), tl.where(left, i1, i2)


@triton.jit
def _argmax_last(v1, i1, v2, i2):
    left = (v1 > v2) | ((v1 == v2) & (i1 > i2))
    return tl.where(left, v1, v2), tl.where(left, i1, i2)


@triton.jit
def _affine(a1, b1, a2, b2):          # x -> a1 x + b1, then x -> a2 x + b2
    return a2 * a1, a2 * b1 + b2


@triton.jit
def _segmented_sum(v1, f1, v2, f2):   # a set flag starts a new segment
    return tl.where(f2 != 0, v2, v1 + v2), f1 | f2


@triton.jit
def _max_abs(a, b):
    return tl.maximum(tl.abs(a), tl.abs(b))


@triton.jit
def _add_mul(a, b):                   # not associative
    return a + b * 2


# ---- kernels --------------------------------------------------------------------------------------

@triton.jit
def _grid2(M: tl.constexpr, N: tl.constexpr):
    return tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]


@triton.jit
def _out_offsets(M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, KEEP: tl.constexpr):
    if AXIS == 0:
        o = tl.arange(0, N)
        if KEEP:
            o = o[None, :]
    else:
        o = tl.arange(0, M)
        if KEEP:
            o = o[:, None]
    return o


@triton.jit
def welford_2d(x_ptr, mean_ptr, var_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr,
               KEEP: tl.constexpr):
    x = tl.load(x_ptr + _grid2(M, N))
    m, s, n = tl.reduce((x, tl.zeros_like(x), tl.full(x.shape, 1.0, tl.float32)), AXIS, _welford, keep_dims=KEEP)
    o = _out_offsets(M, N, AXIS, KEEP)
    tl.store(mean_ptr + o, m)
    tl.store(var_ptr + o, s / n)


@triton.jit
def welford_1d(x_ptr, stats_ptr, centred_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    m, s, n = tl.reduce((x, tl.zeros_like(x), tl.full(x.shape, 1.0, tl.float32)), 0, _welford)
    tl.store(stats_ptr, m)                       # 0-d results, read by scalar code ...
    tl.store(stats_ptr + 1, s / n)
    tl.store(centred_ptr + offs, x - m)          # ... and by block code


@triton.jit
def arg_2d(x_ptr, i_ptr, v_ptr, j_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr,
           KEEP: tl.constexpr, FN: tl.constexpr, IOTA: tl.constexpr):
    offs = _grid2(M, N)
    x = tl.load(x_ptr + offs)
    if IOTA:                                     # the index along the axis: tl.argmin's own pattern
        if AXIS == 0:
            idx = tl.broadcast_to(tl.arange(0, M)[:, None], (M, N))
        else:
            idx = tl.broadcast_to(tl.arange(0, N)[None, :], (M, N))
    else:                                        # indices from memory: any payload
        idx = tl.load(i_ptr + offs)
    if FN == 0:
        v, j = tl.reduce((x, idx), AXIS, _argmin_first, keep_dims=KEEP)
    elif FN == 1:
        v, j = tl.reduce((x, idx), AXIS, _argmax_first, keep_dims=KEEP)
    else:
        v, j = tl.reduce((x, idx), AXIS, _argmax_last, keep_dims=KEEP)
    o = _out_offsets(M, N, AXIS, KEEP)
    tl.store(v_ptr + o, v)
    tl.store(j_ptr + o, j)


@triton.jit
def arg_1d(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    v, j = tl.reduce((x, offs), 0, _argmax_last)
    tl.store(out_ptr, j)
    v, j = tl.reduce((x, offs), 0, _argmin_first)
    tl.store(out_ptr + 1, j)


@triton.jit
def scan_2d(a_ptr, b_ptr, oa_ptr, ob_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr,
            REV: tl.constexpr, FN: tl.constexpr):
    offs = _grid2(M, N)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    if FN == 0:
        a, b = tl.associative_scan((a, b), AXIS, _affine, reverse=REV)
    elif FN == 1:
        a, b = tl.associative_scan((a, b), AXIS, _segmented_sum, reverse=REV)
    else:
        a = tl.associative_scan(a, AXIS, _max_abs, reverse=REV)
    tl.store(oa_ptr + offs, a)
    tl.store(ob_ptr + offs, b)


@triton.jit
def scan_1d(x_ptr, o_ptr, r_ptr, N: tl.constexpr, FN: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    if FN == 0:
        tl.store(o_ptr + offs, tl.associative_scan(x, 0, _add_mul))
        tl.store(r_ptr, tl.reduce(x, 0, _add_mul))
    else:
        tl.store(o_ptr + offs, tl.associative_scan(x, 0, _max_abs, reverse=True))
        tl.store(r_ptr, tl.reduce(x, 0, _max_abs))


# ---- references -----------------------------------------------------------------------------------

def _rng(seed):
    return np.random.default_rng(seed)


def _nonzero(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal(shape).astype(dtype)
    else:
        x = rng.integers(-5, 6, shape).astype(dtype)
    x.flat[0] = 3                                    # never all zero
    return x


def _poison(shape, dtype):
    return np.full(shape, np.nan if np.dtype(dtype).kind == "f" else INT_POISON, dtype)


def _keep(r, axis, keep):
    return np.expand_dims(r, axis) if keep else r


def _seq_scan(fn, cols, axis, reverse):
    """The sequential inclusive scan (the interpreter's order) of tuples of arrays along axis; reverse
    scans the flipped axis, as Triton defines it: the accumulated later elements are the left operand."""
    xs = [np.moveaxis(c, axis, -1).copy() for c in cols]
    n = xs[0].shape[-1]
    order = range(n - 1, -1, -1) if reverse else range(n)
    acc, outs = None, [np.empty_like(x) for x in xs]
    for i in order:
        cur = [x[..., i] for x in xs]
        acc = cur if acc is None else fn(*acc, *cur)
        for o, a in zip(outs, acc):
            o[..., i] = a
    return [np.moveaxis(o, -1, axis) for o in outs]


SHAPES_2D = [(1, 1), (1, 8), (4, 16), (16, 4), (8, 32), (2, 256)]


# ---- reduce ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape", SHAPES_2D)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("keep", [False, True])
def test_welford_mean_and_variance_along_each_axis(executor, shape, axis, keep):
    M, N = shape
    x = _rng(M * N + axis).standard_normal(shape).astype(np.float32) + 3
    mean, var = _poison(shape[1 - axis], np.float32), _poison(shape[1 - axis], np.float32)
    launch(welford_2d, (1,), x, mean, var, M=M, N=N, AXIS=axis, KEEP=keep, executor=executor)
    np.testing.assert_allclose(mean, x.mean(axis), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(var, x.var(axis), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("n", [1, 2, 16, 256])
def test_welford_of_a_1d_block_is_a_scalar(executor, n):
    x = _rng(n).standard_normal(n).astype(np.float32) + 1
    stats, centred = _poison(2, np.float32), _poison(n, np.float32)
    launch(welford_1d, (1,), x, stats, centred, N=n, executor=executor)
    np.testing.assert_allclose(stats, [x.mean(), x.var()], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(centred, x - x.mean(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("fn", [0, 1, 2], ids=["argmin_first", "argmax_first", "argmax_last"])
@pytest.mark.parametrize("shape,axis,keep", [((4, 16), 1, False), ((16, 4), 0, True), ((8, 32), 0, False),
                                             ((2, 64), 1, True)])
def test_hand_written_arg_reductions_carry_any_payload(executor, dtype, fn, shape, axis, keep):
    M, N = shape
    rng = _rng(fn + M)
    x = rng.integers(0, 4, shape).astype(dtype)      # many ties
    perm = rng.permutation(M * N).reshape(shape).astype(np.int32)
    v, j = _poison(shape[1 - axis], dtype), _poison(shape[1 - axis], np.int32)
    launch(arg_2d, (1,), x, perm, v, j, M=M, N=N, AXIS=axis, KEEP=keep, FN=fn, IOTA=False, executor=executor)
    better = {0: lambda a, b: a < b, 1: lambda a, b: a > b, 2: lambda a, b: a > b}[fn]
    tie_left = (lambda p, q: p < q) if fn < 2 else (lambda p, q: p > q)
    xs, ps = np.moveaxis(x, axis, -1), np.moveaxis(perm, axis, -1)
    for r in range(xs.shape[0]):                     # the extreme value; ties go to the preferred payload
        best = 0
        for k in range(1, xs.shape[1]):
            a, b = xs[r, best], xs[r, k]
            if better(b, a) or (a == b and tie_left(ps[r, k], ps[r, best])):
                best = k
        assert v[r] == xs[r, best] and j[r] == ps[r, best], (r, v[r], j[r], xs[r], ps[r])


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape,axis", [((4, 16), 1), ((16, 4), 0)])
def test_hand_written_argmin_over_the_index_runs_on_the_re(executor, shape, axis):
    M, N = shape
    x = _rng(M).integers(0, 3, shape).astype(np.float32)
    v, j = _poison(shape[1 - axis], np.float32), _poison(shape[1 - axis], np.int32)
    launch(arg_2d, (1,), x, x, v, j, M=M, N=N, AXIS=axis, KEEP=False, FN=0, IOTA=True, executor=executor)
    np.testing.assert_array_equal(j, np.argmin(x, axis))     # first index of the minimum, like tl.argmin
    np.testing.assert_array_equal(v, x.min(axis))
    if executor == "mtia":
        c = arg_2d.compile(x, x, v, j, M=M, N=N, AXIS=axis, KEEP=False, FN=0, IOTA=True)
        with use_config("mtia-small"):
            asm = c.asm["mtia-asm"]
        assert "re.reduce" in asm and "mlu.slice" not in asm


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("n", [1, 4, 64])
def test_last_index_ties_are_not_mistaken_for_argmax(executor, n):
    x = np.zeros(n, np.float32)
    x[n // 2:] = 1                                   # the max is tied from n/2 on
    out = np.full(2, INT_POISON, np.int32)
    launch(arg_1d, (1,), x, out, N=n, executor=executor)
    assert out.tolist() == [n - 1, 0]


# ---- scan -----------------------------------------------------------------------------------------

def _affine_ref(a1, b1, a2, b2):
    return a2 * a1, a2 * b1 + b2


def _segmented_ref(v1, f1, v2, f2):
    return np.where(f2 != 0, v2, v1 + v2), f1 | f2


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("fn", [0, 1, 2], ids=["affine", "segmented_sum", "max_abs"])
@pytest.mark.parametrize("shape,axis", [((1, 1), 1), ((1, 256), 1), ((4, 16), 0), ((4, 16), 1), ((32, 8), 0)])
@pytest.mark.parametrize("reverse", [False, True])
def test_associative_scans_match_the_sequential_scan(executor, dtype, fn, shape, axis, reverse):
    M, N = shape
    rng = _rng(fn * 7 + M + N + axis)
    bdtype = np.int32 if fn == 1 else dtype          # segment flags are integers
    if fn == 0:                                      # |a| <= 1 keeps the compositions exact / bounded
        a = rng.choice([-1, 1], shape).astype(dtype) if dtype == np.int32 else \
            rng.uniform(0.5, 1.0, shape).astype(dtype)
        b = _nonzero(rng, shape, dtype)
    elif fn == 1:
        a = _nonzero(rng, shape, dtype)
        b = (rng.random(shape) < 0.2).astype(bdtype)
    else:
        a, b = _nonzero(rng, shape, dtype), np.zeros(shape, dtype)
    oa, ob = _poison(shape, dtype), _poison(shape, bdtype)
    launch(scan_2d, (1,), a, b, oa, ob, M=M, N=N, AXIS=axis, REV=reverse, FN=fn, executor=executor)
    if fn == 0:
        ra, rb = _seq_scan(_affine_ref, [a, b], axis, reverse)
    elif fn == 1:
        ra, rb = _seq_scan(_segmented_ref, [a, b], axis, reverse)
    else:
        ra, = _seq_scan(lambda p, q: (np.maximum(np.abs(p), np.abs(q)),), [a], axis, reverse)
        rb = b                                       # stored as loaded
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=0, atol=0)
    np.testing.assert_allclose(oa, ra.astype(dtype), **tol)
    np.testing.assert_allclose(ob, rb.astype(bdtype), **tol)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("shape,axis", [((1, 16), 1), ((8, 4), 0), ((4, 32), 1)])
def test_reverse_scan_is_the_scan_of_the_flipped_axis(executor, shape, axis):
    """Triton defines reverse=True as flip, scan, flip: with a non-commutative combine (composing
    affine maps) the accumulated later elements must be the left operand, not the right."""
    M, N = shape
    rng = _rng(M * 31 + N)
    a = rng.uniform(0.5, 1.5, shape).astype(np.float32)
    b = rng.uniform(-1, 1, shape).astype(np.float32)
    oa, ob = _poison(shape, np.float32), _poison(shape, np.float32)
    launch(scan_2d, (1,), a, b, oa, ob, M=M, N=N, AXIS=axis, REV=True, FN=0, executor=executor)
    fa, fb = _seq_scan(_affine_ref, [np.flip(a, axis), np.flip(b, axis)], axis, False)
    np.testing.assert_allclose(oa, np.flip(fa, axis), rtol=1e-5)
    np.testing.assert_allclose(ob, np.flip(fb, axis), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n", [2, 8, 32])
def test_non_associative_combines_follow_the_documented_order(n):
    """a + 2b: the reduce tree pairs (0,1), (2,3), ... like the interpreter, so both give one answer;
    the MTIA scan is Hillis-Steele: y_d[i] = y[i - d] + 2 y[i] for d = 1, 2, 4, ... (lanes i >= d)."""
    x = np.arange(1, n + 1, dtype=np.float32)
    res = {}
    for executor in EXECUTORS:
        o, r = _poison(n, np.float32), _poison(1, np.float32)
        launch(scan_1d, (1,), x, o, r, N=n, FN=0, executor=executor)
        res[executor] = o, r
    tree = x.copy()
    while tree.size > 1:
        tree = tree[0::2] + 2 * tree[1::2]
    hillis = x.copy()
    d = 1
    while d < n:
        hillis = np.where(np.arange(n) >= d, np.roll(hillis, d) + 2 * hillis, hillis)
        d *= 2
    seq, = _seq_scan(lambda a, b: (a + 2 * b,), [x], 0, False)
    assert res["interpreter"][1][0] == res["mtia"][1][0] == tree[0]
    np.testing.assert_array_equal(res["interpreter"][0], seq)
    np.testing.assert_array_equal(res["mtia"][0], hillis)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("n", [1, 2, 128])
def test_1d_reverse_scan_and_scalar_reduce(executor, n):
    x = _nonzero(_rng(n), n, np.float32)
    o, r = _poison(n, np.float32), _poison(1, np.float32)
    launch(scan_1d, (1,), x, o, r, N=n, FN=1, executor=executor)
    ref, = _seq_scan(lambda p, q: (np.maximum(np.abs(p), np.abs(q)),), [x], 0, True)
    np.testing.assert_array_equal(o, ref)                    # the last lane is x's own (never combined)
    assert r[0] == (np.abs(x).max() if n > 1 else x[0])


# ---- cost -----------------------------------------------------------------------------------------

def _mtia_asm(kernel, *args, **kw):
    c = kernel.compile(*args, **kw)
    with use_config("mtia-small"):
        return c.asm["mtia-asm"]


def test_expanded_reduce_costs_log2_n_steps_of_the_combine():
    """Welford's region has 13 SE ops (constants are scalar operands): log2(n) steps of them, on
    n/2 + n/4 + ... + 1 = n - 1 lanes in all, plus two MLU slices per operand per step."""
    counts = {}
    for n in (16, 256):
        x = np.ones(n, np.float32)
        stats, centred = _poison(2, np.float32), _poison(n, np.float32)
        rec = launch(welford_1d, (1,), x, stats, centred, N=n, executor="mtia")
        asm = _mtia_asm(welford_1d, x, stats, centred, N=n)
        steps = n.bit_length() - 1
        se = sum(1 for line in asm.splitlines() if line.strip().startswith("se."))
        mlu = sum(1 for line in asm.splitlines() if line.strip().startswith("mlu."))
        assert se <= 13 * steps + 4 and mlu <= 2 * 3 * steps      # the constant operands need no slices
        assert rec.report.ops["se"] <= 13 * n + 4 * n        # the centring: one op over n lanes, and slack
        counts[n] = rec.cycles
    assert counts[256] < 4 * counts[16]                       # 16x the data, 2x the steps


def test_expanded_scan_is_a_loop_of_log2_n_steps():
    n = 256
    a, f = np.ones((4, n), np.float32), np.zeros((4, n), np.int32)
    asm = _mtia_asm(scan_2d, a, f, a, f, M=4, N=n, AXIS=1, REV=False, FN=1)
    assert asm.count("mlu.gather") == 2 and "re.scan" not in asm     # in the loop body, once per operand
    with use_config("mtia-small"):
        rec = scan_2d[(1,)](a, f, a.copy(), f.copy(), M=4, N=n, AXIS=1, REV=False, FN=1, executor="mtia")
    # per step: the combine's 4 SE ops, 2 selects and 2 copies over 4n lanes, the indices over n
    assert rec.report.ops["se"] <= 8 * (8 * 4 * n + 8 * n)


# ---- the pass on IR text --------------------------------------------------------------------------

CUSTOM = """module {
  tt.func @k(%x: tensor<4x8xf32>, %f: tensor<8xi32>) {
    %m, %n = tt.reduce %x, %x {axis = 1} : tensor<4xf32>, tensor<4xf32> {
    ^bb0(%a: f32, %b: f32, %c: f32, %d: f32):
      %two = arith.constant {value = 2.0} : f32
      %e = arith.mulf %c, %two : f32
      %s = arith.addf %a, %e : f32
      tt.reduce.return %s, %d
    }
    %r = tt.reduce %x {axis = 0} : tensor<8xf32> {
    ^bb0(%p: f32, %q: f32):
      %t = arith.maxnumf %p, %q : f32
      tt.reduce.return %t
    }
    %y = tt.scan %f {axis = 0, reverse = true} : tensor<8xi32> {
    ^bb0(%u: i32, %v: i32):
      %w = arith.subi %u, %v : i32
      tt.scan.return %w
    }
    tt.return
  }
}"""


def test_expand_combine_on_ir_text():
    m = parse_module(CUSTOM)
    ExpandCombine().run(m)
    verify(m)
    check_ir(print_module(m), """
        CHECK: tt.extract_slice %x {offsets = [0, 0], sizes = [4, 4], strides = [1, 2]} : tensor<4x4xf32>
        CHECK: tt.extract_slice %x {offsets = [0, 1], sizes = [4, 4], strides = [1, 2]} : tensor<4x4xf32>
        CHECK: arith.constant {value = 2.0} : tensor<4x4xf32>
        CHECK: arith.mulf
        CHECK: arith.addf {{.*}} : tensor<4x4xf32>
        CHECK: sizes = [4, 2]
        CHECK: sizes = [4, 1]
        CHECK: %m = tt.reshape {{%\\w+}} : tensor<4xf32>
        CHECK: tt.reduce %x {axis = 0}
        CHECK: arith.maxnumf %p, %q
        CHECK: tt.make_range {start = 0, end = 8}
        CHECK: scf.for
        CHECK: arith.shli
        CHECK: arith.addi
        CHECK: arith.minsi
        CHECK: arith.cmpi {{.*}} {predicate = "slt"}
        CHECK: tt.gather
        CHECK: arith.subi {{%\\w+}}, {{%\\w+}} : tensor<8xi32>
        CHECK: arith.select
        CHECK: scf.yield
        CHECK-NOT: tt.scan
    """)


@triton.jit
def _pick(a, b):
    r = b
    if a > b:
        r = a
    return r


@triton.jit
def control_flow_combine(x_ptr, o_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(o_ptr, tl.reduce(x, 0, _pick))


def test_a_combine_with_control_flow_points_at_the_users_line():
    x = np.ones(16, np.float32)
    with use_config("mtia-small"), pytest.raises(CompilationError) as e:
        control_flow_combine[(1,)](x, np.zeros(1, np.float32), N=16, executor="mtia")
    msg = str(e.value)
    assert "test_custom_combine.py" in msg and "if a > b:" in msg and "^" in msg and "tl.where" in msg


@triton.jit
def uniform_scan(x_ptr, o_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    v, f = tl.associative_scan((x, tl.zeros_like(offs)), 0, _segmented_sum)       # no flags: a cumsum
    tl.store(o_ptr + offs, v)
    w, g = tl.associative_scan((tl.full((N,), 1.0, tl.float32), tl.zeros_like(offs)), 0, _segmented_sum,
                               reverse=True)                                      # both operands constant
    tl.store(o_ptr + N + offs, w)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_scans_of_constant_operands(executor):
    n = 32
    x = _nonzero(_rng(n), n, np.float32)
    o = _poison(2 * n, np.float32)
    launch(uniform_scan, (1,), x, o, N=n, executor=executor)
    np.testing.assert_allclose(o[:n], np.cumsum(x), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(o[n:], np.arange(n, 0, -1))
