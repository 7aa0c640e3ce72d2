"""Pieces of Triton's language that its own tests use and we lacked (test_if[if_exp_dynamic_void],
test_short_circuiting, test_where[*int32], test_expand_dims_error_cases, test_load_scope_sem_coop_grid_*),
each on both executors. Outputs are poisoned (NaN, or a value no path writes) before every run."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from simulator import use_config

from executors import EXECUTORS, launch


@triton.jit
def store_one_of_two(flag_ptr, out_ptr):
    # a conditional expression whose branches are both stores: an if run for its side effects
    tl.store(out_ptr, 1.5) if tl.load(flag_ptr) != 0 else tl.store(out_ptr + 1, 2.5)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("flag", [0, 3])
def test_a_conditional_expression_of_two_stores_runs_one_of_them(executor, flag):
    out = np.full(2, np.nan, np.float32)
    launch(store_one_of_two, (1,), np.array([flag], np.int32), out, executor=executor)
    np.testing.assert_array_equal(np.isnan(out), [flag == 0, flag != 0])
    assert out[0] == 1.5 if flag else out[1] == 2.5


@triton.jit
def value_in_one_branch(flag_ptr, out_ptr):
    x = 1.0 if tl.load(flag_ptr) != 0 else tl.store(out_ptr, 2.0)
    tl.store(out_ptr, x)


def test_a_conditional_expression_with_a_value_in_one_branch_only_is_refused_at_its_line():
    with pytest.raises(triton.CompilationError, match="value in one branch only") as e:
        value_in_one_branch[(1,)](np.zeros(1, np.int32), np.zeros(1, np.float32), executor="interpreter")
    assert "x = 1.0 if" in str(e.value)


@triton.jit
def clamp_int32_pointees(x, Y, N: tl.constexpr):
    # Triton's test_short_circuiting: isinstance on types inside a kernel, `and` stopping at the first False
    if (x is not None) and hasattr(x, "dtype") and isinstance(x.dtype, tl.pointer_type) and \
            (x.dtype.element_ty == tl.int32) and (tl.load(x) > 42):
        tl.store(x, 42)
    offs = tl.arange(0, N)
    blocked = isinstance(offs.type, tl.block_type) and not isinstance(offs.dtype, tl.pointer_type)
    tl.store(Y + offs, tl.where(blocked, offs, -1))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("x, expected", [(None, None), (5, None), (np.array([100], np.int32), 42),
                                         (np.array([7], np.int32), 7), (np.array([100], np.int64), 100),
                                         (np.array([100.0], np.float32), 100.0)])
def test_isinstance_of_tl_pointer_type_and_block_type_in_a_kernel(executor, x, expected):
    y = np.full(4, -7, np.int32)
    launch(clamp_int32_pointees, (1,), x, y, 4, executor=executor)
    np.testing.assert_array_equal(y, np.arange(4))
    if expected is not None:
        assert x[0] == expected
    assert isinstance(tl.pi32_t, tl.pointer_type) and tl.pi32_t == tl.pointer_type(tl.int32)
    assert not isinstance(tl.int32, tl.pointer_type) and isinstance(tl.block_type(tl.int8, [2]), tl.block_type)


@triton.jit
def select_addresses(cond_ptr, a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    # int64 values made pointers, selected as pointers, stored back as int64 (Triton's test_where[*int32])
    offs = tl.arange(0, N)
    a = tl.load(a_ptr + offs).to(tl.pi32_t)
    b = tl.load(b_ptr + offs).to(tl.pi32_t)
    tl.store(out_ptr + offs, tl.where(tl.load(cond_ptr + offs) != 0, a, b))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_pointers_selected_and_stored_as_integers(executor):
    rng = np.random.default_rng(3)
    n = 64
    cond = rng.integers(0, 2, n).astype(np.int8)
    a = rng.integers(1, 2 ** 40, n, dtype=np.int64)
    b = rng.integers(1, 2 ** 40, n, dtype=np.int64)
    out = np.full(n, -1, np.int64)
    launch(select_addresses, (1,), cond, a, b, out, n, executor=executor)
    np.testing.assert_array_equal(out, np.where(cond != 0, a, b))


@triton.jit
def expand(x_ptr, AXES: tl.constexpr):
    tl.expand_dims(tl.arange(0, 8), AXES)


@pytest.mark.parametrize("axes, message", [(-3, "invalid axis -3 "), (2, "invalid axis 2 "),
                                           ((0, 0), r"duplicate axes, normalized axes = \[0, 0\]"),
                                           ((0, -3), r"duplicate axes, normalized axes = \[0, 0\]")])
def test_expand_dims_errors_name_the_axis_as_written(axes, message):
    with pytest.raises(triton.CompilationError, match=message):
        expand[(1,)](np.zeros(1, np.float32), axes, executor="interpreter")


@triton.jit
def copy_one(x_ptr, y_ptr):
    pid = tl.program_id(0)
    tl.store(y_ptr + pid, tl.load(x_ptr + pid) + 1.0)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_cooperative_grid_runs_when_every_program_has_a_pe_and_is_refused_otherwise(executor):
    x = np.random.default_rng(0).standard_normal(8).astype(np.float32)
    with use_config("mtia-small"):                                  # 4 PEs
        for cooperative in (True, False):
            y = np.full(8, np.nan, np.float32)
            copy_one[(4,)](x, y, launch_cooperative_grid=cooperative, executor=executor)
            np.testing.assert_array_equal(y[:4], x[:4] + 1.0)
            assert np.isnan(y[4:]).all()
        copy_one[(8,)](x, y, launch_cooperative_grid=False, executor=executor)
        np.testing.assert_array_equal(y, x + 1.0)
        with pytest.raises(ValueError, match=r"launch_cooperative_grid=True: the grid \(5, 1, 1\) has 5 programs, "
                                             r"but only 4"):
            copy_one[(5,)](x, y, launch_cooperative_grid=True, executor=executor)


def test_triton_version_names_the_release_we_follow():
    """Libraries pick paths by `triton.__version__` (Liger-Kernel compares it at import)."""
    from packaging.version import Version
    assert Version(triton.__version__) >= Version("3.0")
    assert triton.__version__ in open(__file__.rsplit("/tests/", 1)[0] + "/README.md").read()


@triton.jit
def _copy_kernel(x_ptr, o_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(o_ptr + r, tl.load(x_ptr + r))


@pytest.mark.parametrize("executor", ["mtia", "interpreter"])
def test_a_launch_result_shows_the_kernels_stages(executor):
    """Tutorial 03 prints `kernel[grid](...).asm[...]`: Triton's launch returns the compiled kernel."""
    x = np.arange(16, dtype=np.float32)
    out = np.full(16, np.nan, np.float32)
    h = _copy_kernel[(1,)](x, out, BLOCK=16, executor=executor)
    assert np.array_equal(out, x)
    assert "tt.store" in h.asm["ttir"]
    assert "compiled_kernel" not in h.to_dict()          # the record's table rows stay plain values
    with pytest.raises(KeyError, match="no stage 'ptx'; available: .*ir"):
        h.asm["ptx"]


@pytest.mark.parametrize("executor", EXECUTORS)
def test_amd_tuning_hints_are_accepted_and_change_nothing(executor):
    """Triton's matmul tutorial gives every backend that is not CUDA its HIP configs, whose
    waves_per_eu / matrix_instr_nonkdim / kpack were refused as unknown keywords."""
    x = np.random.default_rng(1).standard_normal(8).astype(np.float32)
    y = np.full(8, np.nan, np.float32)
    with use_config("mtia-small"):
        copy_one[(8,)](x, y, waves_per_eu=2, matrix_instr_nonkdim=16, kpack=2, executor=executor)
    np.testing.assert_array_equal(y, x + 1.0)


@triton.jit
def constexpr_min_max(out_ptr, A: tl.constexpr, B: tl.constexpr):
    tl.store(out_ptr, min(A, B))
    tl.store(out_ptr + 1, max(A, B))


@pytest.mark.parametrize("a, b, message", [(1.0, float("nan"), "constexpr min does not support NaN values"),
                                           (1.0, -0.0, "constexpr min does not support negative zero")])
def test_constexpr_min_max_refuse_nan_and_negative_zero(a, b, message):
    """As Triton 3.9 (upstream test_constexpr_min_error / _max_error): Python's min and max order NaN and
    the zeros unlike IEEE's, so compile-time ones refuse them at the kernel line."""
    with pytest.raises(triton.CompilationError, match=r"test_language_compat.py:\d+:\d+: error: " + message):
        constexpr_min_max[(1,)](np.zeros(2, np.float32), A=a, B=b, executor="interpreter")


@pytest.mark.parametrize("executor", EXECUTORS)
def test_constexpr_min_max_of_ordinary_numbers(executor):
    out = np.full(2, np.nan, np.float32)
    launch(constexpr_min_max, (1,), out, executor=executor, A=2.5, B=-1.0)
    np.testing.assert_array_equal(out, [-1.0, 2.5])
