"""Patterns of Triton's tutorials that once failed here, each as a small kernel of ours, checked on
both executors against numpy on random inputs, outputs poisoned with NaN.

- a range defined before a loop and compared inside it for a mask is read again in every iteration:
  the comparison may not overwrite it in place (the persistent matmul's `offs_k_for_mask` became a
  mask after the first K step, a silent wrong answer on MTIA; tests/compiler/backend/test_wrapped_offsets.py has the
  arithmetic case);
- a kernel parameter named like a launch option (`num_stages`) binds to the kernel, and a kernel
  compiled by `warmup(...)` launches with `compiled[grid](...)` (the fused-softmax tutorial);
- a @jit helper's parameter annotated `tl.constexpr` takes a runtime value as a runtime value, as in
  Triton (the fused-attention tutorial passes its `offs_m` block and `N_CTX` so);
- tiles that are never live at once share the local store when one slot each does not fit (the
  layer-norm and attention backward kernels at the tutorials' own blocks were refused);
- `extern_libs=` (the extern-functions tutorial) is accepted for the libraries libdevice stands for.
"""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.language.extra import libdevice
from simulator import use_config

from executors import EXECUTORS, launch


@triton.jit
def _lanes_masked_in_loop(x_ptr, out_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    lanes = tl.arange(0, BLOCK)                    # the persistent matmul's offs_k_for_mask
    rows = tl.where(lanes < n_rows, lanes, 0)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for i in range(tl.cdiv(n_cols, BLOCK)):
        offs = i * BLOCK + lanes
        # the mask compares lanes' view: the comparison must not overwrite lanes
        acc += tl.load(x_ptr + rows[:, None] * n_cols + offs[None, :], mask=lanes[None, :] < n_cols - i * BLOCK,
                       other=0.0)
    tl.store(out_ptr + lanes[:, None] * BLOCK + lanes[None, :], acc, mask=lanes[:, None] < n_rows)


def _row_block_sums(x, block):
    """out[r, c] = sum over column blocks i of x[r, i * block + c] (zero past the last column)."""
    n_rows, n_cols = x.shape
    padded = np.zeros((n_rows, -(-n_cols // block) * block), np.float64)
    padded[:, :n_cols] = x
    return padded.reshape(n_rows, -1, block).sum(axis=1)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_mask_made_in_a_loop_leaves_the_range_it_compares(executor):
    rng = np.random.default_rng(2)
    block, n_rows, n_cols = 16, 16, 40             # the last of three column blocks is partial
    x = rng.standard_normal((n_rows, n_cols)).astype(np.float32)
    out = np.full((n_rows, block), np.nan, np.float32)
    launch(_lanes_masked_in_loop, (1,), x, out, n_rows, n_cols, BLOCK=block, executor=executor)
    np.testing.assert_allclose(out, _row_block_sums(x, block), rtol=1e-5, atol=1e-5)


@triton.jit
def _scaled_rows(x_ptr, out_ptr, n_rows, n_cols, BLOCK: tl.constexpr, num_stages: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=num_stages):
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols)
        tl.store(out_ptr + row * n_cols + cols, x * num_stages, mask=cols < n_cols)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_parameter_named_like_a_launch_option_binds_to_the_kernel(executor):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((7, 20)).astype(np.float32)
    out = np.full_like(x, np.nan)
    launch(_scaled_rows, (3,), x, out, 7, 20, BLOCK=32, num_stages=3, executor=executor)
    np.testing.assert_array_equal(out, x * 3)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_warmed_up_kernel_launches_with_all_its_arguments(executor):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((9, 20)).astype(np.float32)
    out = np.full_like(x, np.nan)
    kernel = _scaled_rows.warmup(out, x, 9, 20, BLOCK=32, num_stages=2, num_warps=8, grid=(1,))
    assert kernel.constexprs["num_stages"] == 2
    launch(kernel, (4, 1, 1), x, out, 9, 20, 32, 2, executor=executor)
    np.testing.assert_array_equal(out, x * 2)
    with pytest.raises(TypeError, match="specialise _scaled_rows differently"):
        kernel[(1,)](x, out, 9, 20, 32, 4)


@triton.jit
def _masked_band(acc, rows: tl.constexpr, cols: tl.constexpr, start, N: tl.constexpr, BLOCK: tl.constexpr):
    for lo in range(start, N, BLOCK):           # N, rows and cols are runtime values here
        acc += tl.where(rows[:, None] >= lo + cols[None, :], 1, 0)
    return acc


@triton.jit
def _band_counts(out_ptr, n, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.int32)
    acc = _masked_band(acc, rows, cols, 0, n, BLOCK)
    tl.store(out_ptr + rows[:, None] * BLOCK + cols[None, :], acc)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_constexpr_parameter_of_a_helper_takes_runtime_values(executor):
    block, n = 8, 20
    out = np.full((2 * block, block), -1, np.int32)
    launch(_band_counts, (2,), out, n, BLOCK=block, executor=executor)
    rows, cols = np.arange(2 * block)[:, None], np.arange(block)[None, :]
    want = sum((rows >= lo + cols).astype(np.int32) for lo in range(0, n, block))
    np.testing.assert_array_equal(out, want)


@triton.jit
def _arcsin(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, libdevice.asin(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_extern_libs_naming_libdevice_is_accepted(executor):
    x = np.random.default_rng(5).uniform(-1, 1, 100).astype(np.float32)
    out = np.full_like(x, np.nan)
    # the extern-functions tutorial's option: a path to CUDA's bitcode, which the backend does not need
    launch(_arcsin, (2,), x, out, x.size, BLOCK=64, executor=executor,
           extern_libs={"libdevice": "/nowhere/libdevice.10.bc"})
    np.testing.assert_allclose(out, np.arcsin(x.astype(np.float64)), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("libs, error", [({"mylib": "/tmp/mylib.bc"}, "extern_libs\\['mylib'\\]: the MTIA backend "
                                                                       "cannot link LLVM bitcode"),
                                         ("libdevice.10.bc", "extern_libs must be a dict")])
def test_extern_libs_of_another_library_is_refused_by_name(libs, error):
    x = np.zeros(8, np.float32)
    with pytest.raises((ValueError, TypeError), match=error):
        _arcsin[(1,)](x, x.copy(), 8, BLOCK=8, extern_libs=libs)


@triton.jit
def _tiles_one_after_another(x_ptr, out_ptr, n_iter, BLOCK: tl.constexpr, PARTS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    scale = tl.load(x_ptr + offs)                  # read in every iteration of the loop below
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for p in tl.static_range(PARTS):               # PARTS loaded tiles, each dead after its add
        acc += tl.load(x_ptr + (p + 1) * BLOCK + offs) * (p + 1)
    for i in range(n_iter):
        acc += tl.load(x_ptr + (PARTS + 1 + i) * BLOCK + offs) * scale
    if n_iter > 1:
        acc = acc - tl.load(x_ptr + (PARTS + n_iter) * BLOCK + offs)
    tl.store(out_ptr + offs, acc)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_tiles_never_live_at_once_share_the_local_store(executor):
    # 18 tiles of 32 KiB (the layer-norm backward and attention backward tutorials at their own blocks
    # have such chains): one slot each is 576 KiB, more than the 384 KiB local store, but at most three
    # are live at once
    block, parts, n_iter = 8192, 14, 3
    x = np.random.default_rng(6).standard_normal((parts + 1 + n_iter) * block).astype(np.float32)
    out = np.full(block, np.nan, np.float32)
    launch(_tiles_one_after_another, (1,), x, out, n_iter, BLOCK=block, PARTS=parts, executor=executor)
    t = x.reshape(-1, block).astype(np.float64)
    want = sum(t[p + 1] * (p + 1) for p in range(parts)) + sum(t[parts + 1 + i] * t[0] for i in range(n_iter))
    np.testing.assert_allclose(out, want - t[parts + n_iter], rtol=1e-5, atol=1e-4)
    if executor == "mtia":
        with use_config("mtia-small"):
            asm = _tiles_one_after_another.compile(x, out, n_iter, BLOCK=block, PARTS=parts).asm["mtia-asm"]
        cbs = [line for line in asm.splitlines() if line.startswith(".cb ")]
        assert len(cbs) < parts and any("|" in line for line in cbs), cbs
