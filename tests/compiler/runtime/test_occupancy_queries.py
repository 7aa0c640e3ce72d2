"""GPU host code that sizes a persistent grid from occupancy (the fused-softmax tutorial's way: device
properties, `kernel.warmup(...)`, `kernel._init_handles()`, `kernel.n_regs`, `kernel.metadata.shared`)
runs unchanged: the answers give one program per PE, and the persistent kernel's results are right."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.runtime.driver import driver
from simulator import get_config


@triton.jit
def _rows_softmax(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr,
                  num_stages: tl.constexpr):
    start = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(start, n_rows, step, num_stages=num_stages):
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * out_stride + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


def _occupancy_grid(kernel, props, num_warps: int) -> int:
    """The CUDA branch of the tutorial's formula, as GPU host code writes it."""
    occupancy = props["max_num_regs"] // (kernel.n_regs * props["warpSize"] * num_warps)
    occupancy = min(occupancy, props["max_shared_mem"] // kernel.metadata.shared)
    return props["multiprocessor_count"] * occupancy


@pytest.mark.parametrize("num_warps", [1, 4, 8, 32])
def test_the_occupancy_formula_gives_one_program_per_pe(num_warps):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((200, 100)).astype(np.float32)
    y = np.full_like(x, np.nan)
    props = driver.active.utils.get_device_properties(0)
    kernel = _rows_softmax.warmup(y, x, x.shape[1], y.shape[1], *x.shape, BLOCK=128, num_stages=2,
                                  num_warps=num_warps, grid=(1,))
    kernel._init_handles()
    assert 0 < kernel.metadata.shared <= props["max_shared_mem"]
    programs = _occupancy_grid(kernel, props, num_warps)
    assert programs == get_config().num_pes
    kernel[(min(programs, x.shape[0]), 1, 1)](y, x, x.shape[1], y.shape[1], *x.shape, 128, 2)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_metadata_names_what_it_has_when_a_field_is_missing():
    x = np.ones((4, 8), np.float32)
    kernel = _rows_softmax.warmup(x, x, 8, 8, 4, 8, BLOCK=8, num_stages=1, grid=(1,))
    with pytest.raises(AttributeError, match=r"_init_handles"):
        kernel.metadata.shared_bytes
    assert kernel.metadata["num_warps"] == 4            # Triton's default, as a launch records it
