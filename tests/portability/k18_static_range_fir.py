import triton
import triton.language as tl
import numpy as np

# A FIR filter whose taps are unrolled at compile time with tl.static_range: the tap index is a
# constexpr, so taps can be skipped or specialised by ordinary Python `if`s at compile time.


@triton.jit
def fir_kernel(x_ptr, w_ptr, y_ptr, n_out, TAPS: tl.constexpr, SKIP_ODD: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_out
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for t in tl.static_range(TAPS):
        if SKIP_ODD and t % 2 == 1:
            pass
        else:
            w = tl.load(w_ptr + t)
            acc += w * tl.load(x_ptr + offs + t, mask=mask, other=0.0)
    for t in tl.static_range(0, 3, 2):                       # start, end, step: t = 0, 2
        acc += 0.5 * t
    tl.store(y_ptr + offs, acc, mask=mask)


CASES = [dict(n=400, taps=5, skip_odd=False), dict(n=100, taps=8, skip_odd=True)]


def make_inputs(rng, n, taps, skip_odd):
    return dict(x=rng.standard_normal(n + taps - 1).astype(np.float32),
                w=rng.standard_normal(taps).astype(np.float32), skip_odd=skip_odd)


def host(lib, x, w, skip_odd):
    taps = lib.numel(w)
    n_out = lib.numel(x) - taps + 1
    y = lib.output((n_out,), lib.float32)
    h = fir_kernel[(triton.cdiv(n_out, 128),)](x, w, y, n_out, TAPS=taps, SKIP_ODD=skip_odd, BLOCK=128)
    return dict(y=y), [h]


def reference(x, w, skip_odd):
    taps = w.size
    n_out = x.size - taps + 1
    y = np.zeros(n_out, np.float64)
    for t in range(taps):
        if not (skip_odd and t % 2 == 1):
            y += w[t] * x[t:t + n_out].astype(np.float64)
    return dict(y=(y + 1.0).astype(np.float32))


TOLERANCE = dict(y=(1e-5, 1e-5))
