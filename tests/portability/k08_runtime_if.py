import triton
import triton.language as tl
import numpy as np

# A runtime `if` on a scalar loaded from memory: each row has a mode word that picks the operation
# applied to it, and a scale that is applied only when it is positive.


@triton.jit
def per_row_mode_kernel(x_ptr, mode_ptr, scale_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mode = tl.load(mode_ptr + row)
    if mode == 0:
        y = tl.maximum(x, 0.0)
    elif mode == 1:
        y = x * x
    else:
        y = -x
    scale = tl.load(scale_ptr + row)
    if scale > 0:
        y = y * scale
    tl.store(y_ptr + row * stride + cols, y, mask=mask)


CASES = [dict(rows=12, cols=100), dict(rows=3, cols=256)]


def make_inputs(rng, rows, cols):
    mode = rng.integers(0, 3, rows).astype(np.int32)
    mode[:3] = [0, 1, 2]
    scale = rng.standard_normal(rows).astype(np.float32)
    scale[:2] = [2.0, -1.0]
    return dict(x=rng.standard_normal((rows, cols)).astype(np.float32), mode=mode, scale=scale)


def host(lib, x, mode, scale):
    rows, cols = x.shape
    y = lib.output((rows, cols), lib.float32)
    h = per_row_mode_kernel[(rows,)](x, mode, scale, y, cols, lib.stride(x, 0),
                                     BLOCK=triton.next_power_of_2(cols))
    return dict(y=y), [h]


def reference(x, mode, scale):
    m = mode[:, None]
    y = np.where(m == 0, np.maximum(x, 0), np.where(m == 1, x * x, -x))
    y = np.where(scale[:, None] > 0, y * scale[:, None], y)
    return dict(y=y.astype(np.float32))


TOLERANCE = dict(y=(1e-6, 0))
