"""`@triton.aggregate` (Triton's composable kernels), on both executors, against numpy.

Aggregates built inside kernels (generated and user constructors, @jit / constexpr_function / plain
methods, inheritance, passing to and returning from @jit helpers, carried through loops and ifs,
`tl.aggregate_replace`), host-built aggregates passed as kernel arguments (their runtime fields
lifted to parameters, their class and constexpr fields in the cache key), and the misuse errors,
which point at the kernel line. Every output is poisoned with NaN before the launch.
"""
import re

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.errors import CompilationError

from executors import EXECUTORS, launch

RNG = np.random.default_rng(20261202)


def poisoned(n, dtype=np.float32):
    return np.full(n, np.nan, dtype)


# --- aggregates built in kernels ----------------------------------------------------------------------

@triton.aggregate
class Span:
    """A block of offsets clipped to `limit`: the generated constructor takes the fields in order."""
    offs: tl.tensor
    limit: tl.tensor
    WIDTH: tl.constexpr

    @triton.jit
    def mask(self):
        return self.offs < self.limit

    @triton.jit
    def load(self, ptr, other):
        return tl.load(ptr + self.offs, mask=self.mask(), other=other)

    @triton.jit
    def store(self, ptr, value):
        tl.store(ptr + self.offs, value, mask=self.mask())

    @triton.constexpr_function
    def halves(self):
        return self.WIDTH // 2


@triton.jit
def span_axpy(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    span = Span(tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), n, BLOCK)
    tl.static_assert(span.halves() == BLOCK // 2)
    span.store(out_ptr, alpha * span.load(x_ptr, 0.0) + span.load(y_ptr, 0.0))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_kernel_built_aggregate_with_jit_methods_computes_axpy(executor):
    n, block = 1000, 256
    x, y = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    out = poisoned(n)
    launch(span_axpy, (triton.cdiv(n, block),), x, y, out, 1.5, n, BLOCK=block, executor=executor)
    np.testing.assert_allclose(out, np.float32(1.5) * x + y, rtol=1e-6, atol=1e-6)


@triton.aggregate
class Affine:
    """A user constructor (plain Python, run at compile time) deriving one field from its arguments."""
    scale: tl.tensor
    shift: tl.tensor
    CLAMP: tl.constexpr

    def __init__(self, scale, shift, clamp=None):
        self.scale = scale
        self.shift = shift
        self.CLAMP = tl.constexpr(clamp)

    @triton.jit
    def apply(self, x):
        y = x * self.scale + self.shift
        if self.CLAMP is not None:
            y = tl.minimum(y, self.CLAMP)
        return y

    def describe(self):          # plain Python method: runs at compile time, on constexpr objects
        return "clamped" if self.CLAMP.value is not None else "free"


@triton.aggregate
class ScaledAffine(Affine):
    """Inherits Affine's fields (first) and adds one; overrides apply and calls the parent's."""
    gain: tl.tensor

    def __init__(self, scale, shift, gain):
        super().__init__(scale, shift)
        self.gain = gain

    @triton.jit
    def apply(self, x):
        return Affine.apply(self, x) * self.gain


@triton.jit
def make_affine(p_ptr, CLAMP: tl.constexpr):
    return Affine(tl.load(p_ptr), tl.load(p_ptr + 1), CLAMP)


@triton.jit
def apply_twice(f, x):
    return f.apply(f.apply(x))


@triton.jit
def affine_kernel(x_ptr, p_ptr, out_ptr, BLOCK: tl.constexpr, CLAMP: tl.constexpr, DERIVED: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if DERIVED:
        f = ScaledAffine(tl.load(p_ptr), tl.load(p_ptr + 1), tl.load(p_ptr + 2))
    else:
        f = make_affine(p_ptr, CLAMP)        # built in a @jit helper and returned
    tl.static_assert(f.describe() == ("clamped" if CLAMP is not None else "free"))
    tl.store(out_ptr + offs, apply_twice(f, tl.load(x_ptr + offs)))   # passed to a @jit helper


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("clamp, derived", [(None, False), (0.75, False), (None, True)])
def test_user_constructors_inheritance_and_helpers_agree_with_numpy(executor, clamp, derived):
    x = RNG.standard_normal(128).astype(np.float32)
    p = np.array([0.5, -0.25, 3.0], np.float32)
    out = poisoned(128)
    launch(affine_kernel, (1,), x, p, out, BLOCK=128, CLAMP=clamp, DERIVED=derived, executor=executor)
    once = lambda v: (v * p[0] + p[1]) * (p[2] if derived else np.float32(1))  # noqa: E731
    ref = once(once(x)) if clamp is None else np.minimum(once(np.minimum(once(x), np.float32(clamp))),
                                                         np.float32(clamp))
    np.testing.assert_allclose(out, ref.astype(np.float32), rtol=1e-6, atol=1e-6)


@triton.aggregate
class RunningMax:
    """Online max and sum of exp (a softmax denominator), carried through a loop."""
    m: tl.tensor
    s: tl.tensor

    @triton.jit
    def update(self, x):
        m_new = tl.maximum(self.m, tl.max(x, 0))
        return RunningMax(m_new, self.s * tl.exp(self.m - m_new) + tl.sum(tl.exp(x - m_new), 0))


@triton.jit
def logsumexp_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    state = RunningMax(tl.full((), float("-inf"), tl.float32), tl.zeros((), tl.float32))
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=float("-inf"))
        state = state.update(x)
    if n == 0:                                       # a runtime if merging two aggregates
        state = tl.aggregate_replace(state, m=tl.zeros((), tl.float32))
    tl.store(out_ptr, state.m + tl.log(state.s))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_an_aggregate_carried_through_a_loop_and_an_if(executor):
    n = 700
    x = RNG.standard_normal(n).astype(np.float32) * 4
    out = poisoned(1)
    launch(logsumexp_kernel, (1,), x, out, n, BLOCK=128, executor=executor)
    ref = np.log(np.sum(np.exp(x.astype(np.float64))))
    np.testing.assert_allclose(out[0], ref, rtol=1e-5)


@triton.aggregate
class Pair:
    first: tl.tensor
    second: tl.tensor

    @triton.jit
    def __getitem__(self, i: tl.constexpr):
        return self.first if i == 0 else self.second

    @triton.jit
    def __add__(self, other):
        return Pair(self.first + other.first, self.second + other.second)


@triton.jit
def pair_kernel(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = Pair(tl.load(a_ptr + offs), tl.load(b_ptr + offs))
    q = p + Pair(p[1], p[0])
    tl.store(out_ptr + offs, q[0] * q[1])


@pytest.mark.parametrize("executor", EXECUTORS)
def test_jit_dunder_methods_index_and_add(executor):
    a, b = RNG.standard_normal(64).astype(np.float32), RNG.standard_normal(64).astype(np.float32)
    out = poisoned(64)
    launch(pair_kernel, (1,), a, b, out, BLOCK=64, executor=executor)
    np.testing.assert_allclose(out, (a + b) * (b + a), rtol=1e-6)


@triton.aggregate
class Ramp:
    """Triton-style: a constructor taking `_semantic` and forwarding it to builtins; static makers."""
    values: tl.tensor
    parts: tl.tuple
    STEP: tl.constexpr

    def __init__(self, step, _semantic=None):
        self.values = tl.arange(0, 32, _semantic=_semantic) * step
        self.parts = (self.values, self.values + 1)
        self.STEP = tl.constexpr(step)

    @staticmethod
    def doubled():
        return Ramp(2)

    @staticmethod
    @triton.jit
    def tripled():
        return Ramp(3)

    def __getitem__(self, i, _semantic=None):       # plain Python: runs at compile time
        return self.parts[i]


@triton.jit
def ramp_kernel(out_ptr):
    a = Ramp.doubled()
    b = Ramp.tripled()
    offs = tl.arange(0, 32)
    tl.store(out_ptr + offs, (a[1] + b[0] + a.STEP * b.STEP).to(tl.float32))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_semantic_taking_constructors_static_makers_and_tuple_fields(executor):
    out = poisoned(32)
    launch(ramp_kernel, (1,), out, executor=executor)
    np.testing.assert_array_equal(out, (np.arange(32) * 2 + 1 + np.arange(32) * 3 + 6).astype(np.float32))


# --- host-built aggregates as kernel arguments --------------------------------------------------------

@triton.aggregate
class RowBias:
    bias: tl.tensor
    n_cols: tl.constexpr

    def __init__(self, bias, n_cols):
        self.bias = bias
        self.n_cols = tl.constexpr(n_cols)

    @triton.jit
    def apply(self, acc, cols):
        return acc + tl.load(self.bias + cols, mask=cols < self.n_cols, other=0.0)[None, :]


@triton.aggregate
class Scale:
    factor: tl.tensor
    OFFSET: tl.constexpr


@triton.aggregate
class RowBiasThenScale(RowBias):
    post: Scale

    def __init__(self, bias, n_cols, post):
        self.bias = bias
        self.n_cols = tl.constexpr(n_cols)
        self.post = post

    @triton.jit
    def apply(self, acc, cols):
        return RowBias.apply(self, acc, cols) * self.post.factor + self.post.OFFSET


@triton.jit
def epilogue_kernel(x_ptr, out_ptr, n_rows, n_cols, epilogue, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    ptrs = rows[:, None] * n_cols + cols[None, :]
    acc = tl.load(x_ptr + ptrs, mask=mask, other=0.0)
    if epilogue is not None:
        acc = epilogue.apply(acc, cols)
    tl.store(out_ptr + ptrs, acc, mask=mask)


def _run_epilogue(x, epilogue, executor):
    out = np.full_like(x, np.nan)
    launch(epilogue_kernel, (triton.cdiv(x.shape[0], 16),), x, out, x.shape[0], x.shape[1], epilogue, 16, 64,
           executor=executor)
    return out


@pytest.mark.parametrize("executor", EXECUTORS)
def test_host_built_aggregates_lift_their_runtime_fields(executor):
    x = RNG.standard_normal((40, 48)).astype(np.float32)
    bias = RNG.standard_normal(48).astype(np.float32)
    np.testing.assert_array_equal(_run_epilogue(x, None, executor), x)
    np.testing.assert_allclose(_run_epilogue(x, RowBias(bias, 48), executor), x + bias, rtol=1e-6)
    nested = RowBiasThenScale(bias, 48, Scale(0.5, 2.0))
    np.testing.assert_allclose(_run_epilogue(x, nested, executor), (x + bias) * np.float32(0.5) + 2,
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_device_arrays_reinterpreted_tensors_and_views_as_runtime_fields(executor):
    from compiler.runtime.device import device_array
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    bias = RNG.standard_normal(80).astype(np.float32)
    for field, ref in ((device_array(bias[:64]), bias[:64]), (bias[16:], bias[16:]),
                       (triton.reinterpret(bias[:64].view(np.int32), tl.float32), bias[:64])):
        np.testing.assert_allclose(_run_epilogue(x, RowBias(field, 64), executor), x + ref, rtol=1e-6)


def test_runtime_fields_reuse_the_compiled_kernel_and_constexpr_fields_do_not():
    x = RNG.standard_normal((16, 64)).astype(np.float32)
    b1, b2 = RNG.standard_normal(64).astype(np.float32), RNG.standard_normal(64).astype(np.float32)
    epilogue_kernel.cache.clear()
    np.testing.assert_allclose(_run_epilogue(x, RowBias(b1, 64), "interpreter"), x + b1, rtol=1e-6)
    np.testing.assert_allclose(_run_epilogue(x, RowBias(b2, 64), "interpreter"), x + b2, rtol=1e-6)
    assert len(epilogue_kernel.cache) == 1                 # another bias array: the same kernel
    np.testing.assert_allclose(_run_epilogue(x, RowBias(b1, 32), "interpreter"),
                               x + np.where(np.arange(64) < 32, b1, 0), rtol=1e-6)
    assert len(epilogue_kernel.cache) == 2                 # another n_cols: compiled anew
    compiled = next(iter(epilogue_kernel.cache.values()))
    assert compiled.arg_names == ["x_ptr", "out_ptr", "n_rows", "n_cols", "epilogue.bias"]
    assert "%epilogue.bias: ptr<f32>" in compiled.asm["ir"]
    for factor, offset in ((0.5, 1.0), (0.25, 1.0)):
        _run_epilogue(x, RowBiasThenScale(b1, 64, Scale(factor, offset)), "interpreter")
    assert len(epilogue_kernel.cache) == 3                 # a new scalar factor reuses the kernel too


# --- misuse -------------------------------------------------------------------------------------------

def _error_at(kernel, *args, **kwargs):
    """The CompilationError's (message line, source line) from launching `kernel` on the interpreter."""
    with pytest.raises(CompilationError) as e:
        kernel[(1,)](*args, executor="interpreter", **kwargs)
    head, src, caret = str(e.value).splitlines()[:3]
    assert caret.strip() == "^"
    return head, src.strip()


@triton.jit
def constexpr_into_tensor_field(out_ptr, n, BLOCK: tl.constexpr):
    span = Span(tl.arange(0, BLOCK), 100, BLOCK)
    span.store(out_ptr, 1.0)


@triton.jit
def tensor_into_constexpr_field(out_ptr, n, BLOCK: tl.constexpr):
    span = Span(tl.arange(0, BLOCK), n, n)
    span.store(out_ptr, 1.0)


@triton.jit
def unknown_field(out_ptr, n, BLOCK: tl.constexpr):
    span = Span(tl.arange(0, BLOCK), n, BLOCK)
    tl.store(out_ptr, span.length)


@triton.jit
def assigns_a_field(out_ptr, n, BLOCK: tl.constexpr):
    span = Span(tl.arange(0, BLOCK), n, BLOCK)
    span.limit = n + 1
    span.store(out_ptr, 1.0)


@triton.jit
def changes_carried_type(out_ptr, n, BLOCK: tl.constexpr):
    pair = Pair(tl.zeros((BLOCK,), tl.float32), tl.zeros((BLOCK,), tl.float32))
    for i in range(n):
        pair = Pair(pair.first, tl.zeros((BLOCK,), tl.int32))
    tl.store(out_ptr + tl.arange(0, BLOCK), pair.first)


@pytest.mark.parametrize("kernel, pattern, line", [
    (constexpr_into_tensor_field, r"field 'limit' of Span is declared tl\.tensor, got a compile-time value "
                                  r"constexpr\[100\]", "span = Span(tl.arange(0, BLOCK), 100, BLOCK)"),
    (tensor_into_constexpr_field, r"field 'WIDTH' of Span is declared tl\.constexpr, got a runtime tensor of "
                                  r"type int32", "span = Span(tl.arange(0, BLOCK), n, n)"),
    (unknown_field, r"Span has no field or method 'length' \(its fields: offs, limit, WIDTH\)",
     "tl.store(out_ptr, span.length)"),
    (assigns_a_field, r"cannot assign to field 'limit' of Span: an aggregate is immutable once built; make a "
                      r"modified copy with tl\.aggregate_replace", "span.limit = n + 1"),
    (changes_carried_type, r"Loop-carried variable pair has initial type Pair\(.*\) but is re-assigned to "
                           r"Pair\(.*int32.*\) in loop", "for i in range(n):"),
])
def test_misuse_in_a_kernel_points_at_the_kernel_line(kernel, pattern, line):
    head, src = _error_at(kernel, poisoned(64), 7, BLOCK=64)
    assert re.search(r"test_aggregate\.py:\d+:\d+: error: " + pattern, head), head
    assert src == line


def test_a_constructor_that_leaves_a_field_unset_is_refused():
    @triton.aggregate
    class Half:
        a: tl.tensor
        b: tl.tensor

        def __init__(self, a):
            self.a = a

    @triton.jit
    def kernel(out_ptr):
        h = Half(tl.arange(0, 16))
        tl.store(out_ptr + h.a, 1.0)

    head, src = _error_at(kernel, poisoned(16))
    assert "constructor for Half did not initialize field 'b'" in head
    assert src == "h = Half(tl.arange(0, 16))"


def test_host_side_misuse_raises_where_it_happens():
    with pytest.raises(TypeError, match=r"field 'bias' of RowBias is declared tl\.tensor, got a value of type str"):
        RowBias("not an array", 4)
    # a Python value for a constexpr field is taken as the constructor takes it (upstream test_aggregate_replace)
    assert tl.aggregate_replace(Scale(0.5, 1.0), OFFSET=2.0).OFFSET.value == 2.0
    with pytest.raises(AttributeError, match="cannot assign to field 'bias' of RowBias"):
        RowBias(np.zeros(4, np.float32), 4).bias = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="Scale has no field 'gain'"):
        tl.aggregate_replace(Scale(0.5, 1.0), gain=2.0)
    with pytest.raises(TypeError, match=r"Scale\(\) missing required argument: 'OFFSET'"):
        Scale(0.5)


def test_declarations_triton_refuses_are_refused():
    with pytest.raises(TypeError, match=r"__init__ cannot be a @triton\.jit function"):
        @triton.aggregate
        class JitInit:
            x: tl.tensor

            @triton.jit
            def __init__(self, x):
                pass

    class Plain:
        pass

    with pytest.raises(TypeError, match="Aggregates can only inherit from other aggregates"):
        @triton.aggregate
        class FromPlain(Plain):
            x: tl.tensor
