import triton
import triton.language as tl
import numpy as np

# Vector add over a 2-D view whose columns are strided: `x` is every other column of a wider
# array, so its column stride is 2 elements and its row stride is the parent's row length.


@triton.jit
def add_2d_kernel(x_ptr, y_ptr, out_ptr, M, N,
                  stride_xm, stride_xn, stride_ym, stride_yn, stride_om, stride_on,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask)
    y = tl.load(y_ptr + rows[:, None] * stride_ym + cols[None, :] * stride_yn, mask=mask)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, x + y, mask=mask)


CASES = [dict(M=19, N=45), dict(M=8, N=64)]


def make_inputs(rng, M, N):
    return dict(x_parent=rng.standard_normal((M, 2 * N + 3)).astype(np.float32),
                y=rng.standard_normal((M, N)).astype(np.float32))


def host(lib, x_parent, y):
    x = x_parent[:, 1:1 + 2 * y.shape[1]:2]          # every other column: a non-contiguous view
    M, N = y.shape
    out = lib.output((M, N), lib.float32)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))
    h = add_2d_kernel[grid](x, y, out, M, N,
                            lib.stride(x, 0), lib.stride(x, 1), lib.stride(y, 0), lib.stride(y, 1),
                            lib.stride(out, 0), lib.stride(out, 1), BLOCK_M=16, BLOCK_N=32)
    return dict(out=out), [h]


def reference(x_parent, y):
    N = y.shape[1]
    return dict(out=x_parent[:, 1:1 + 2 * N:2] + y)


TOLERANCE = dict(out=(0, 0))
