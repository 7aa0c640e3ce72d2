"""Triton-compatibility details that running Triton's own language tests through an alias harness
turned up (issue 8): kernels defined by exec() of a string, `tl.dtype(name)`, `triton.TritonError`,
`x.item()` / `tl.squeeze` / `tl.unsqueeze`, dots smaller than 16, Python ints as weak scalars
against unsigned tensors. Each runs on both executors against numpy on random inputs."""
import textwrap

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from executors import EXECUTORS, launch

RNG = np.random.default_rng(8)

TEMPLATE = textwrap.dedent('''
    @triton.jit
    def generated(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        tl.store(Z + offs, EXPR)
''')


def make_kernel(expr: str):
    """A kernel from a template string, the way test generators patch one (the source exists only
    in this function's `src` while exec() runs)."""
    src = TEMPLATE.replace("EXPR", expr)
    namespace = {}
    exec(src, {"triton": triton, "tl": tl}, namespace)
    return namespace["generated"]


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("expr,ref", [("x * 2.0 + 1.0", lambda x: x * 2 + 1), ("tl.exp(x) - x", lambda x: np.exp(x) - x)])
def test_a_kernel_made_by_exec_of_a_string_compiles(executor, expr, ref):
    kernel = make_kernel(expr)
    x = RNG.standard_normal(64).astype(np.float32)
    z = np.full_like(x, np.nan)
    launch(kernel, (1,), x, z, N=64, executor=executor)
    np.testing.assert_allclose(z, ref(x), rtol=1e-5, atol=1e-6)


def test_two_exec_copies_of_one_template_keep_their_own_source():
    """Code objects compare by value: the source must be kept per function, not per code object."""
    first, second = make_kernel("x + 1.0"), make_kernel("x + 1.0")
    del first
    import gc
    gc.collect()
    x = RNG.standard_normal(16).astype(np.float32)
    z = np.full_like(x, np.nan)
    second[(1,)](x, z, N=16, executor="interpreter")
    np.testing.assert_allclose(z, x + 1)


def test_an_exec_kernel_error_points_at_its_line():
    kernel = make_kernel("x + undefined_name")
    x = np.ones(16, np.float32)
    with pytest.raises(triton.CompilationError, match="undefined_name") as e:
        kernel[(1,)](x, x.copy(), N=16, executor="interpreter")
    assert "<string>:6" in str(e.value) and "^" in str(e.value)


def test_dtype_by_name_and_name_lists():
    assert tl.dtype("int8") is tl.int8 and tl.dtype("fp16") is tl.float16 and tl.dtype("uint64") is tl.uint64
    assert [tl.dtype(n) for n in tl.dtype.STANDARD_FP_TYPES] == [tl.float16, tl.bfloat16, tl.float32, tl.float64]
    assert all(tl.dtype(n).is_int_signed() for n in tl.dtype.SINT_TYPES)
    assert isinstance(tl.float32, tl.dtype)
    with pytest.raises(ValueError, match="unknown type name"):
        tl.dtype("fp7")


@triton.jit
def bad_index_kernel(X):
    x = tl.load(X + tl.arange(0, 16))
    tl.store(X + tl.arange(0, 16), x[3:])


def test_triton_error_is_the_base_of_compile_and_run_errors():
    assert issubclass(triton.CompilationError, triton.TritonError)
    assert issubclass(triton.OutOfResources, triton.TritonError)
    assert issubclass(triton.KernelRuntimeError, triton.TritonError)
    with pytest.raises(triton.TritonError):
        bad_index_kernel[(1,)](np.zeros(16, np.float32))


@triton.jit
def item_squeeze_kernel(X, Y, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    total = tl.sum(x[:, None], 0).item()          # a [1] block to a scalar
    row = tl.squeeze(tl.reshape(x, (1, N)), 0)
    col = tl.unsqueeze(x, 1)                       # [N, 1]
    tl.static_assert(len(col.shape) == 2 and col.shape[1] == 1)
    tl.store(Y + tl.arange(0, N), row * total + tl.reshape(col, (N,)))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_item_squeeze_unsqueeze(executor):
    x = RNG.standard_normal(32).astype(np.float32)
    y = np.full_like(x, np.nan)
    launch(item_squeeze_kernel, (1,), x, y, N=32, executor=executor)
    np.testing.assert_allclose(y, x * x.sum() + x, rtol=1e-5, atol=1e-5)


@triton.jit
def item_of_many_kernel(X):
    tl.load(X + tl.arange(0, 4)).item()


def test_item_of_more_than_one_element_is_refused():
    with pytest.raises(triton.CompilationError, match="one-element tensor"):
        item_of_many_kernel[(1,)](np.zeros(4, np.float32))


@triton.jit
def small_dot_kernel(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = tl.load(A + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(B + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(C + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], tl.dot(a, b))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("m,n,k", [(1, 2, 32), (4, 4, 8), (16, 1, 16), (8, 8, 1)])
def test_dots_smaller_than_16(executor, m, n, k):
    """Triton's interpreter (and so its language tests) accepts any dot size; the DPE pads."""
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float32)
    launch(small_dot_kernel, (1,), a, b, c, M=m, N=n, K=k, executor=executor)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-2, atol=1e-2)


@triton.jit
def weak_unsigned_kernel(X, Z, S: tl.constexpr, OP: tl.constexpr, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    if OP == "floordiv":
        z = x // S
    else:
        z = x % S
    tl.static_assert(z.dtype == x.dtype)
    tl.store(Z + tl.arange(0, N), z)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("op", ["floordiv", "mod"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
def test_python_ints_are_weak_against_unsigned_tensors_in_div_and_mod(executor, op, dtype):
    x = RNG.integers(0, np.iinfo(dtype).max, 64, endpoint=True, dtype=np.uint64).astype(dtype)
    z = np.full_like(x, 1)
    launch(weak_unsigned_kernel, (1,), x, z, S=7, OP=op, N=64, executor=executor)
    np.testing.assert_array_equal(z, x // dtype(7) if op == "floordiv" else x % dtype(7))
