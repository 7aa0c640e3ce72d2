import triton
import triton.language as tl
import numpy as np

# Fused row softmax over strided rows: the input is every other row of a wider buffer, starting at
# a column offset, so its row stride is neither the row length nor a power of two. Programs loop
# over rows with a stride of num_programs (the persistent style of the GPU tutorial).


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols, BLOCK_SIZE: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step):
        row_ptr = in_ptr + row_idx * in_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(row_ptr + col_offsets, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        tl.store(out_ptr + row_idx * out_row_stride + col_offsets, softmax_output, mask=mask)


CASES = [dict(rows=13, cols=70, programs=4), dict(rows=8, cols=128, programs=8)]


def make_inputs(rng, rows, cols, programs):
    return dict(buf=(rng.standard_normal((2 * rows, cols + 11)) * 3).astype(np.float32), cols=cols,
                programs=programs)


def host(lib, buf, cols, programs):
    x = buf[::2, 5:5 + cols]                           # strided rows, offset start
    rows = x.shape[0]
    y = lib.output((rows, cols), lib.float32)
    h = softmax_kernel[(programs,)](y, x, lib.stride(x, 0), lib.stride(y, 0), rows, cols,
                                    BLOCK_SIZE=triton.next_power_of_2(cols))
    return dict(y=y), [h]


def reference(buf, cols, programs):
    x = buf[::2, 5:5 + cols].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return dict(y=(e / e.sum(axis=1, keepdims=True)).astype(np.float32))


TOLERANCE = dict(y=(1e-5, 1e-7))
