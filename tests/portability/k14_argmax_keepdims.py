import triton
import triton.language as tl
import numpy as np

# Row-wise max and argmax: tl.max with keep_dims=True stays a [BLOCK_R, 1] column that broadcasts
# back over the row (a max-shifted exponential), and tl.argmax gives each row's index.


@triton.jit
def row_argmax_kernel(x_ptr, idx_ptr, max_ptr, shifted_ptr, n_rows, n_cols, stride,
                      BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_C)
    row_mask = rows < n_rows
    mask = row_mask[:, None] & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=float("-inf"))
    m = tl.max(x, axis=1, keep_dims=True)
    idx = tl.argmax(x, axis=1)
    tl.store(idx_ptr + rows, idx, mask=row_mask)
    tl.store(max_ptr + rows[:, None], m, mask=row_mask[:, None])
    tl.store(shifted_ptr + rows[:, None] * stride + cols[None, :], tl.exp(x - m), mask=mask)


CASES = [dict(rows=10, cols=37), dict(rows=16, cols=64)]


def make_inputs(rng, rows, cols):
    return dict(x=rng.standard_normal((rows, cols)).astype(np.float32))


def host(lib, x):
    rows, cols = x.shape
    idx = lib.output((rows,), lib.int32)
    mx = lib.output((rows,), lib.float32)
    shifted = lib.output((rows, cols), lib.float32)
    h = row_argmax_kernel[(triton.cdiv(rows, 4),)](x, idx, mx, shifted, rows, cols, lib.stride(x, 0),
                                                   BLOCK_R=4, BLOCK_C=triton.next_power_of_2(cols))
    return dict(idx=idx, mx=mx, shifted=shifted), [h]


def reference(x):
    m = x.max(axis=1)
    return dict(idx=x.argmax(axis=1).astype(np.int32), mx=m, shifted=np.exp(x - m[:, None]))


TOLERANCE = dict(shifted=(1e-6, 1e-7))
