"""Compile errors: each message names the kernel file:line:col, shows the source line and a caret
under the column, and carries no trace of the compiler's own code."""
import inspect

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.errors import CompilationError

# launched on the reference interpreter unless MTIASIM_EXECUTOR names another (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("interpreter_by_default")

F32 = np.zeros(128, np.float32)
I32 = np.zeros(128, np.int32)
THIS_FILE = inspect.getsourcefile(lambda: None)
COMPILER_DIR = inspect.getsourcefile(triton).rsplit("/", 1)[0] + "/"
SOURCE = open(THIS_FILE).read().splitlines()


def where(marker: str) -> tuple[int, str]:
    """Line number and text of the unique source line containing `marker`."""
    hits = [i for i, line in enumerate(SOURCE) if marker in line and f"\"{marker}\"" not in line]
    assert len(hits) == 1, marker
    return hits[0] + 1, SOURCE[hits[0]]


def expect(fn, marker: str, col_of: str, message: str):
    """Launch `fn` expecting a CompilationError at the line holding `marker`, column of `col_of`."""
    line, text = where(marker)
    col = text.index(col_of) + 1
    with pytest.raises(CompilationError) as info:
        fn()
    err = info.value
    stripped = text.strip()
    caret = " " * (col - 1 - (len(text) - len(text.lstrip()))) + "^"
    assert str(err) == f"{THIS_FILE}:{line}:{col}: error: {message}\n    {stripped}\n    {caret}"
    assert (err.file, err.line, err.col) == (THIS_FILE, line, col)
    # the cause, as in Triton, is the plain error without the compiler's frames (or none)
    cause = err.__cause__
    assert err.__suppress_context__ and (cause is None or (cause.__traceback__ is None and str(cause) in message))
    assert "Traceback" not in str(err) and COMPILER_DIR not in str(err)
    return err


@triton.jit
def break_kernel(X, n):
    for i in range(n):
        if i > 3:
            break  # MARK-break
        tl.store(X + i, 1.0)


def test_break_is_unsupported():
    expect(lambda: break_kernel[(1,)](F32, 8), "MARK-break", "break", "unsupported AST node type: Break")


@triton.jit
def continue_kernel(X, n):
    i = 0
    while i < n:
        i += 1
        continue  # MARK-continue


def test_continue_is_unsupported():
    expect(lambda: continue_kernel[(1,)](F32, 8), "MARK-continue", "continue", "unsupported AST node type: Continue")


@triton.jit
def pointer_plus_float_kernel(X):
    p = X + 1.5  # MARK-ptr-float
    tl.store(p, 0.0)


def test_type_error_pointer_plus_float():
    expect(lambda: pointer_plus_float_kernel[(1,)](F32), "MARK-ptr-float", "X + 1.5",
           "invalid operands of type pointer<fp32> and fp32")


@triton.jit
def shape_mismatch_kernel(X):
    a = tl.load(X + tl.arange(0, 32))
    b = tl.load(X + tl.arange(0, 64))
    tl.store(X + tl.arange(0, 32), a + b)  # MARK-shape


def test_shape_mismatch():
    expect(lambda: shape_mismatch_kernel[(1,)](F32), "MARK-shape", "a + b",
           "Cannot make_shape_compatible: incompatible dimensions at index 0: 32 and 64")


@triton.jit
def loop_type_change_kernel(X, n):
    acc = 0
    for i in range(n):  # MARK-loop
        acc += tl.load(X + i)
    tl.store(X, acc)


def test_loop_carried_type_change():
    expect(lambda: loop_type_change_kernel[(1,)](F32, 4), "MARK-loop", "for",
           "Loop-carried variable acc has initial type int32 but is re-assigned to fp32 in loop! "
           "Please make sure that the type stays consistent.")


@triton.jit
def if_type_mismatch_kernel(X, n):
    if n > 0:  # MARK-if
        v = 1
    else:
        v = 2.0
    tl.store(X, v)


def test_if_branches_with_different_types():
    expect(lambda: if_type_mismatch_kernel[(1,)](F32, 4), "MARK-if", "if",
           "Mismatched type for v between then block (int32) and else block (fp32)")


@triton.jit
def unknown_builtin_kernel(X):
    tl.store(X, sum([1, 2]))  # MARK-sum


def test_unknown_python_builtin():
    expect(lambda: unknown_builtin_kernel[(1,)](F32), "MARK-sum", "sum",
           "unsupported function 'sum' in a @jit function")


def host_helper(x):
    return x + 1


@triton.jit
def host_function_call_kernel(X):
    tl.store(X, host_helper(tl.load(X)))  # MARK-host


def test_calling_a_plain_python_function():
    expect(lambda: host_function_call_kernel[(1,)](F32), "MARK-host", "host_helper(",
           "'host_helper' is a plain Python function called with a tensor: it runs at compile time, on "
           "compile-time values only; decorate it with @triton.jit to call it on tensors")


@triton.jit
def undefined_name_kernel(X):
    tl.store(X, not_defined_anywhere)  # noqa: F821  MARK-undefined


def test_undefined_name():
    expect(lambda: undefined_name_kernel[(1,)](F32), "MARK-undefined", "not_defined_anywhere",
           "NameError: 'not_defined_anywhere' is not defined")


@triton.jit
def runtime_arange_kernel(X, n):
    tl.store(X + tl.arange(0, n), 1.0)  # MARK-arange


def test_arange_needs_constexpr_bounds():
    expect(lambda: runtime_arange_kernel[(1,)](F32, 8), "MARK-arange", "tl.arange",
           "arange's arguments must be of type tl.constexpr")


@triton.jit
def non_pow2_kernel(X, B: tl.constexpr):
    tl.store(X + tl.arange(0, B), 1.0)  # MARK-pow2


def test_arange_power_of_two():
    expect(lambda: non_pow2_kernel[(1,)](F32, B=12), "MARK-pow2", "tl.arange", "arange's range must be a power of 2")


@triton.jit
def return_in_loop_kernel(X, n):
    for i in range(n):
        return  # MARK-return


def test_return_inside_loop():
    err = expect(lambda: return_in_loop_kernel[(1,)](F32, 3), "MARK-return", "return",
                 "Cannot have `return` statements inside `while` or `for` statements in triton (note that this "
                 "also applies to `return` statements that are inside functions transitively called from within "
                 "`while`/`for` statements)")
    assert err.line > 0


@triton.jit
def add_one_or_ten(a, i):
    if i % 2 == 0:
        return a + 10          # an early return in a runtime if of the helper
    return a + 1


@triton.jit
def helper_in_loops_kernel(X, n, B: tl.constexpr):
    x = tl.load(X + tl.arange(0, B))
    for i in range(n):
        x = add_one_or_ten(x, i)
    for i in tl.static_range(3):
        x = add_one_or_ten(x, i)
    tl.store(X + tl.arange(0, B), x)


def test_return_in_a_helper_called_from_loops_is_allowed():
    """Only a `return` inside the function's own loops is refused: helpers that return (the library's
    tl.sort/tl.flip are built from them) can be called in any loop, as in Triton."""
    x = np.zeros(8, np.int32)
    helper_in_loops_kernel[(1,)](x, 5, B=8)
    np.testing.assert_array_equal(x, 3 * 10 + 2 * 1 + 10 + 1 + 10)


@triton.jit
def static_assert_kernel(X, B: tl.constexpr):
    tl.static_assert(B % 16 == 0, "B must be a multiple of 16")  # MARK-static


def test_static_assert():
    expect(lambda: static_assert_kernel[(1,)](F32, B=8), "MARK-static", "tl.static_assert",
           "Static assertion failed: B must be a multiple of 16")
    static_assert_kernel[(1,)](F32, B=32)


@triton.jit
def bad_helper(x):
    return x // 2.0  # MARK-callee


@triton.jit
def calls_bad_helper_kernel(X):
    tl.store(X, bad_helper(tl.load(X)))


def test_error_in_a_called_function_points_at_the_call_then_the_callee():
    # as in Triton: reported at the call (what it passed may be the cause), the helper's line below it
    message = "unexpected type fp32 for floordiv; // is only defined for integers"
    call_line, call_text = where("tl.store(X, bad_helper(")
    line, text = where("MARK-callee")
    with pytest.raises(CompilationError) as info:
        calls_bad_helper_kernel[(1,)](F32)
    err = info.value
    call_col = call_text.index("bad_helper(") + 1
    assert (err.file, err.line, err.col, err.error_message) == (THIS_FILE, call_line, call_col, message)
    col = text.index("x // 2.0") + 1
    assert str(err) == (f"{THIS_FILE}:{call_line}:{call_col}: error: {message}\n    {call_text.strip()}\n"
                        f"    {' ' * (call_col - 1 - call_text.index('tl.store'))}^\n"
                        f"{THIS_FILE}:{line}:{col}: in bad_helper()\n    {text.strip()}\n"
                        f"    {' ' * (col - 1 - text.index('return'))}^")
    assert err.__cause__.__traceback__ is None and err.__cause__.line == line


@triton.jit
def assign_constexpr_in_loop_kernel(X, n, B: tl.constexpr):
    for i in range(n):  # MARK-constexpr-loop
        B = B + 1
    tl.store(X, B)


def test_reassigning_a_constexpr_in_a_runtime_loop():
    expect(lambda: assign_constexpr_in_loop_kernel[(1,)](F32, 3, B=4), "MARK-constexpr-loop", "for",
           "cannot reassign constexpr B in the loop")


@triton.jit
def unsupported_index_kernel(X):
    x = tl.load(X + tl.arange(0, 16))
    tl.store(X, x[3])  # MARK-index


def test_tensor_indexing_with_an_int():
    expect(lambda: unsupported_index_kernel[(1,)](F32), "MARK-index", "x[3]", "unsupported tensor index: 3")


def test_launch_argument_errors_are_plain_type_errors():
    with pytest.raises(TypeError, match="missing required argument 'n'"):
        break_kernel[(1,)](F32)
    with pytest.raises(TypeError, match="unsupported argument type list"):
        break_kernel[(1,)]([1, 2], 3)
    with pytest.raises(RuntimeError, match="outside of the scope of a kernel"):
        break_kernel(F32, 3)


@triton.jit
def k_triton2_math_asin(x_ptr, o_ptr):
    r = tl.arange(0, 128)
    tl.store(o_ptr + r, tl.math.asin(tl.load(x_ptr + r)))  # MARK-asin


def test_a_triton2_math_function_points_at_libdevice():
    """Triton 2's tl.math.asin (a fork's math-functions tutorial) lives in libdevice in Triton 3."""
    expect(lambda: k_triton2_math_asin[(1,)](F32, F32.copy()), "MARK-asin", "tl.math.asin",
           "'tl.math' has no attribute 'asin' (Triton 3 keeps asin in libdevice: `from compiler.language.extra "
           "import libdevice`, as `triton.language.extra.libdevice`, then `libdevice.asin(...)`)")
