import triton
import triton.language as tl
import numpy as np

# Row-wise inclusive prefix sums with tl.cumsum along axis 1 of a [rows, cols] block, for floats
# and for int32 (whose sums wrap like C ints).


@triton.jit
def cumsum_rows_kernel(x_ptr, y_ptr, n_rows, n_cols, stride_x, stride_y,
                       BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * stride_x + cols[None, :], mask=mask, other=0)
    y = tl.cumsum(x, axis=1)
    tl.store(y_ptr + rows[:, None] * stride_y + cols[None, :], y, mask=mask)


CASES = [dict(rows=10, cols=50), dict(rows=4, cols=128)]


def make_inputs(rng, rows, cols):
    return dict(xf=rng.standard_normal((rows, cols)).astype(np.float32),
                xi=rng.integers(-1000, 1000, (rows, cols)).astype(np.int32))


def host(lib, xf, xi):
    rows, cols = xf.shape
    block_c = triton.next_power_of_2(cols)
    yf = lib.output((rows, cols), lib.float32)
    yi = lib.output((rows, cols), lib.int32)
    grid = (triton.cdiv(rows, 4),)
    h1 = cumsum_rows_kernel[grid](xf, yf, rows, cols, lib.stride(xf, 0), lib.stride(yf, 0),
                                  BLOCK_R=4, BLOCK_C=block_c)
    h2 = cumsum_rows_kernel[grid](xi, yi, rows, cols, lib.stride(xi, 0), lib.stride(yi, 0),
                                  BLOCK_R=4, BLOCK_C=block_c)
    return dict(yf=yf, yi=yi), [h1, h2]


def reference(xf, xi):
    return dict(yf=np.cumsum(xf, axis=1, dtype=np.float32), yi=np.cumsum(xi, axis=1, dtype=np.int32))


TOLERANCE = dict(yf=(1e-5, 1e-5))
