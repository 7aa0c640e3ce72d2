"""The runtime: launching, the compile cache, grids, launch options, executors, memory safety,
compile() stages, autotuning and heuristics."""
import time

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler import runtime
from compiler.errors import DeviceAssertionError, KernelRuntimeError, OutOfBoundsError

# launched on the reference interpreter unless MTIASIM_EXECUTOR names another (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("interpreter_by_default")

RNG = np.random.default_rng(3)


@triton.jit
def scale_kernel(X, Y, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(Y + offs, tl.load(X + offs, mask=mask) * factor, mask=mask)


def fresh(kernel):
    kernel.cache.clear()
    kernel.compile_count = 0
    return kernel


def test_second_launch_with_same_specialization_does_not_recompile():
    k = fresh(scale_kernel)
    x = RNG.standard_normal(100).astype(np.float32)
    for factor in (2.0, 3.0):
        y = np.full_like(x, np.nan)
        k[(4,)](x, y, 100, factor, BLOCK=32)
        np.testing.assert_allclose(y, x * factor, rtol=1e-6)
    assert k.compile_count == 1 and len(k.cache) == 1
    k[(4,)](x, y, 100, 2.0, BLOCK=64)                                # new constexpr
    k[(4,)](x.astype(np.float16), y.astype(np.float16), 100, 2.0, BLOCK=64)   # new dtype
    k[(4,)](x, y, 96, 2.0, BLOCK=64)                                 # n % 16 == 0: new specialization
    k[(4,)](x, y, 1, 2.0, BLOCK=64)                                  # n == 1: constexpr
    k[(4,)](x, y, 100, 2.0, BLOCK=64)                                # seen before
    assert k.compile_count == 5 and len(k.cache) == 5


def test_do_not_specialize():
    @triton.jit(do_not_specialize=["n"])
    def kern(X, n):
        tl.store(X, n.to(tl.float32))

    x = np.zeros(1, np.float32)
    for n in (1, 16, 17):
        kern[(1,)](x, n)
        assert x[0] == n
    assert kern.compile_count == 1


def test_grid_callable_gets_the_meta_parameters():
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    x = RNG.standard_normal(100).astype(np.float32)
    y = np.full_like(x, np.nan)
    scale_kernel[grid](x, y, 100, 2.0, BLOCK=16)
    assert seen["BLOCK"] == 16 and seen["n"] == 100 and seen["X"] is x
    np.testing.assert_allclose(y, 2 * x)


def test_grid_validation():
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="at most 3"):
        scale_kernel[(1, 1, 1, 2)](x, x, 4, 1.0, BLOCK=16)     # Triton would launch half the programs
    assert scale_kernel[(1, 1, 1, 1)](x, x, 4, 1.0, BLOCK=16).programs == 1   # as Triton: the rest ignored
    with pytest.raises(ValueError, match="non-negative"):
        scale_kernel[(-1,)](x, x, 4, 1.0, BLOCK=16)
    rec = scale_kernel[(0,)](x, x, 4, 1.0, BLOCK=16)
    assert rec.programs == 0


class RecordingExecutor:
    """An executor that records what it was given and delegates to the interpreter."""
    name = "recording"

    def __init__(self, cycles=None):
        self.calls = []
        self.cycles = cycles

    def launch(self, compiled, grid, args, options):
        self.calls.append((compiled, grid, args, options))
        rec = runtime.get_executor("interpreter").launch(compiled, grid, args, options)
        if self.cycles is not None:
            rec.cycles = self.cycles(compiled, options)
        rec.executor = self.name
        return rec


def test_launch_options_reach_the_executor_and_executors_are_pluggable():
    ex = RecordingExecutor()
    x = np.ones(8, np.float32)
    y = np.zeros(8, np.float32)
    with runtime.use_executor(ex):
        rec = scale_kernel[(1,)](x, y, 8, 2.0, BLOCK=8, num_warps=8, num_stages=2, pe_mapping="zigzag")
    assert rec.executor == "recording" and (y == 2).all()
    compiled, grid, args, options = ex.calls[0]
    assert grid == (1, 1, 1)
    assert (options.num_warps, options.num_stages, options.pe_mapping) == (8, 2, "zigzag")
    assert args.names == ["X", "Y", "n", "factor"]
    assert args.values[0].address % 256 == 0 and args.values[0].elem == tl.float32
    assert runtime.get_executor().name == "interpreter"            # use_executor restored the default
    runtime.register_executor("recording", ex)
    scale_kernel[(1,)](x, y, 8, 2.0, BLOCK=8, executor="recording")
    assert len(ex.calls) == 2
    with pytest.raises(ValueError, match="pe_mapping"):
        scale_kernel[(1,)](x, y, 8, 2.0, BLOCK=8, pe_mapping="diagonal")


def test_run_record_is_plain_data():
    x = np.ones(8, np.float32)
    rec = scale_kernel[(2, 1)](x, x, 8, 1.0, BLOCK=8)
    d = rec.to_dict()
    assert d["kernel"] == "scale_kernel" and d["grid"] == (2, 1, 1) and d["cycles"] is None and d["programs"] == 2
    assert set(rec.as_row()) >= {"kernel", "executor", "cycles"}


@triton.jit
def oob_kernel(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs, mask=offs < n) + 1)   # store not masked: overruns Y


def test_out_of_bounds_is_reported_and_user_arrays_are_unchanged():
    x = RNG.standard_normal(100).astype(np.float32)
    y = np.full(100, 5.0, np.float32)
    x0, y0 = x.copy(), y.copy()
    with pytest.raises(OutOfBoundsError) as info:
        oob_kernel[(4,)](x, y, 100, BLOCK=32)
    msg = str(info.value)
    assert "out-of-bounds store" in msg and "past the end of array 'Y'" in msg
    assert "program id (3, 0, 0)" in msg and "kernel 'oob_kernel'" in msg
    assert "test_runtime_launch.py:" in msg                     # the kernel line of the store
    np.testing.assert_array_equal(y, y0)                         # programs 0..2 wrote, but nothing was copied back
    np.testing.assert_array_equal(x, x0)


@triton.jit
def assert_kernel(X, n):
    v = tl.load(X + tl.program_id(0))
    tl.device_assert(v < n, "value too large")
    tl.store(X + tl.program_id(0), v + 1)


def test_device_assert_fails_the_launch():
    x = np.array([1, 2, 30, 4], np.int32)
    with pytest.raises(DeviceAssertionError, match="value too large.*program id \\(2, 0, 0\\)"):
        assert_kernel[(4,)](x, 10)
    np.testing.assert_array_equal(x, [1, 2, 30, 4])
    assert_kernel[(4,)](x, 100)
    np.testing.assert_array_equal(x, [2, 3, 31, 5])
    assert issubclass(DeviceAssertionError, KernelRuntimeError)


@triton.jit
def rows_kernel(X, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    v = tl.load(X + row * stride + cols, mask=cols < n_cols)
    tl.store(X + row * stride + cols, v * 10, mask=cols < n_cols)


def test_strided_views_write_through_to_the_base_array():
    base = RNG.standard_normal((6, 8)).astype(np.float32)
    ref = base.copy()
    view = base[1::2, 2:7]                                       # rows 1, 3, 5; columns 2..6
    rows_kernel[(3,)](view, view.strides[0] // 4, 5, BLOCK=8)
    ref[1::2, 2:7] *= 10
    np.testing.assert_allclose(base, ref)


@triton.jit
def copy_kernel(Src, Dst, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Dst + offs, tl.load(Src + offs, mask=offs < n), mask=offs < n)


def test_aliasing_arguments_share_memory():
    buf = np.arange(16, dtype=np.float32)
    copy_kernel[(1,)](buf[:8], buf[8:], 8, BLOCK=8)             # two views of one allocation
    np.testing.assert_array_equal(buf, np.concatenate([np.arange(8), np.arange(8)]))


def test_read_only_arrays_can_be_read():
    src = np.arange(8, dtype=np.float32)
    src.flags.writeable = False
    dst = np.zeros(8, np.float32)
    copy_kernel[(1,)](src, dst, 8, BLOCK=8)
    np.testing.assert_array_equal(dst, src)
    with pytest.raises(ValueError, match="read-only"):
        copy_kernel[(1,)](dst * 2, src, 8, BLOCK=8)
    np.testing.assert_array_equal(src, np.arange(8))


def test_compile_exposes_stages_and_backends_can_register_more():
    c = triton.compile(scale_kernel, signature={"X": "*fp32", "Y": "*fp32", "n": "i32", "factor": "fp32"},
                       constexprs={"BLOCK": 64})
    assert {"source", "ir.frontend", "ir", "ir.dce"} <= set(c.asm)
    assert c.signature == {"X": "ptr<f32>", "Y": "ptr<f32>", "n": "i32", "factor": "f32"}
    calls = []

    def fake_asm(compiled):
        calls.append(compiled)
        return f"; mtia assembly for {compiled.name}"

    runtime.register_stage("example-asm", fake_asm)
    try:
        assert "example-asm" in list(c.asm)
        assert c.asm["example-asm"] == "; mtia assembly for scale_kernel"
        c.asm["example-asm"]
        assert len(calls) == 1                                   # produced once, then cached
    finally:
        runtime.unregister_stage("example-asm")
    w = scale_kernel.warmup(np.zeros(4, np.float32), np.zeros(4, np.float32), 4, 1.0, BLOCK=64, grid=(1,))
    assert w.asm["ir"].startswith("module {")


def test_compile_is_fast():
    @triton.jit
    def fresh_softmax(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        num = tl.exp(x - tl.max(x, 0))
        tl.store(out_ptr + row * n_cols + cols, num / tl.sum(num, 0), mask=cols < n_cols)

    start = time.perf_counter()
    triton.compile(fresh_softmax, signature={"out_ptr": "*fp32", "in_ptr": "*fp32", "n_cols": "i32"},
                   constexprs={"BLOCK": 1024})
    assert time.perf_counter() - start < 0.5


@triton.jit
def tunable_kernel(X, Y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs, mask=offs < n) + 1, mask=offs < n)


def make_tuned(calls):
    configs = [triton.Config({"BLOCK": 16}, num_warps=2), triton.Config({"BLOCK": 64}, num_stages=4),
               triton.Config({"BLOCK": 32}, pe_mapping="round_robin")]

    def pre_hook(args):
        calls.append(args["BLOCK"])

    configs[1].pre_hook = pre_hook
    # workers=1: these tests count the executor's calls, and trials in worker processes happen there
    return triton.autotune(configs=configs, key=["n"], workers=1)(tunable_kernel)


def grid_of(meta):
    return (triton.cdiv(meta["n"], meta["BLOCK"]),)


def test_autotune_without_a_clock_picks_the_first_config():
    tuned = make_tuned([])
    x = RNG.standard_normal(100).astype(np.float32)
    y = np.full_like(x, np.nan)
    tuned[grid_of](x, y, 100)
    np.testing.assert_allclose(y, x + 1)
    assert tuned.best_config.kwargs == {"BLOCK": 16}


def test_autotune_picks_the_fewest_cycles_and_caches_per_key():
    hooks = []
    tuned = make_tuned(hooks)
    # a fake clock: cycles depend on the block size; BLOCK=64 is fastest
    ex = RecordingExecutor(cycles=lambda compiled, options: {16: 900, 64: 100, 32: 500}[compiled.constexprs["BLOCK"]])
    x = RNG.standard_normal(100).astype(np.float32)
    y = np.full_like(x, np.nan)
    with runtime.use_executor(ex):
        tuned[grid_of](x, y, 100)
        assert tuned.best_config.kwargs == {"BLOCK": 64} and tuned.bench_runs == 3
        np.testing.assert_allclose(y, x + 1)
        tuned[grid_of](x, y, 100)                                # same key: no benchmarking
        assert tuned.bench_runs == 3
        tuned[grid_of](x[:50], y[:50], 50)                       # new key: benchmark again
        assert tuned.bench_runs == 6
    # BLOCK=64's pre_hook runs before its trial under each of the two keys and before each of the three
    # launches, as Triton's autotuner runs a config's pre_hook before every benchmark of it
    assert ex.calls[-1][3].num_stages == 4 and hooks == [64] * 5


def test_autotune_benchmarks_do_not_touch_user_arrays():
    writes = []

    class CountingExecutor(RecordingExecutor):
        def launch(self, compiled, grid, args, options):
            rec = super().launch(compiled, grid, args, options)
            writes.append(args.values[1].buffer.data.view(np.float32).copy())
            return rec

    tuned = make_tuned([])
    ex = CountingExecutor(cycles=lambda c, o: 10)
    x = np.ones(40, np.float32)
    y = np.zeros(40, np.float32)
    with runtime.use_executor(ex):
        tuned[grid_of](x, y, 40)
    assert len(writes) == 4 and all((w == 2).all() for w in writes)   # 3 benchmarks + the real run
    assert (y == 2).all()


def test_heuristics_compute_meta_parameters():
    @triton.heuristics({"BLOCK": lambda meta: triton.next_power_of_2(meta["n"])})
    @triton.jit
    def kern(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(Y + offs, tl.load(X + offs, mask=offs < n) * 3, mask=offs < n)

    x = RNG.standard_normal(37).astype(np.float32)
    y = np.full_like(x, np.nan)
    kern[(1,)](x, y, 37)
    np.testing.assert_allclose(y, 3 * x, rtol=1e-6)
    assert list(kern.cache.values())[0].constexprs["BLOCK"] == 64


def test_autotune_on_top_of_heuristics():
    @triton.autotune(configs=[triton.Config({"SCALE": 2}), triton.Config({"SCALE": 3})], key=[])
    @triton.heuristics({"BLOCK": lambda meta: triton.next_power_of_2(meta["n"])})
    @triton.jit
    def kern(X, n, SCALE: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(X + offs, tl.load(X + offs, mask=offs < n) * SCALE, mask=offs < n)

    x = np.ones(5, np.float32)
    kern[(1,)](x, 5)
    assert (x == 2).all()


def test_python_helpers():
    assert triton.cdiv(10, 4) == 3 and triton.next_power_of_2(33) == 64 and triton.next_power_of_2(1) == 1
    assert tl.next_power_of_2(5) == 8


@triton.jit
def spec_kernel(Out, flag, big, maybe, f):
    if maybe is None:
        v = big.to(tl.float64) + f
    else:
        v = big.to(tl.float64) - f
    tl.store(Out, tl.where(flag, v, -v))


def test_argument_specialization_types():
    out = np.zeros(1, np.float64)
    c = spec_kernel.compile(out, True, 2**40, None, 0.5)
    assert c.signature == {"Out": "ptr<f64>", "flag": "i1", "big": "i64", "f": "f32"}
    assert c.constexprs == {"maybe": None}
    spec_kernel[(1,)](out, True, 2**40, None, 0.5)
    assert out[0] == 2**40 + 0.5
    spec_kernel[(1,)](out, False, 3, 7, 0.5)
    assert out[0] == -(3 - 0.5)
    c2 = spec_kernel.compile(out, False, 2**63 + 5, None, 1.0)
    assert c2.signature["big"] == "u64"


def test_executors_can_register_extra_launch_keywords():
    ex = RecordingExecutor()
    x = np.ones(8, np.float32)
    runtime.register_launch_keyword("numerics")
    with runtime.use_executor(ex):
        scale_kernel[(1,)](x, x, 8, 1.0, BLOCK=8, numerics=False)
    assert ex.calls[-1][3].extra == {"numerics": False}
