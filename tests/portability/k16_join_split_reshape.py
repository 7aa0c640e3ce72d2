import triton
import triton.language as tl
import numpy as np

# Complex multiply on interleaved (re, im) pairs: a flat block of 2*BLOCK floats is reshaped to
# [BLOCK, 2], tl.split into real and imaginary parts, multiplied, tl.join'ed back and reshaped flat.


@triton.jit
def complex_mul_kernel(a_ptr, b_ptr, out_ptr, n_complex, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * 2 * BLOCK + tl.arange(0, 2 * BLOCK)
    mask = offs < 2 * n_complex
    a = tl.load(a_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    a_re, a_im = tl.split(tl.reshape(a, (BLOCK, 2)))
    b_re, b_im = tl.split(tl.reshape(b, (BLOCK, 2)))
    re = a_re * b_re - a_im * b_im
    im = a_re * b_im + a_im * b_re
    out = tl.reshape(tl.join(re, im), (2 * BLOCK,))
    tl.store(out_ptr + offs, out, mask=mask)


CASES = [dict(n=300), dict(n=64)]


def make_inputs(rng, n):
    return dict(a=rng.standard_normal(2 * n).astype(np.float32), b=rng.standard_normal(2 * n).astype(np.float32))


def host(lib, a, b):
    n = lib.numel(a) // 2
    out = lib.output((2 * n,), lib.float32)
    h = complex_mul_kernel[(triton.cdiv(n, 64),)](a, b, out, n, BLOCK=64)
    return dict(out=out), [h]


def reference(a, b):
    ca = a[0::2] + 1j * a[1::2].astype(np.complex64)
    cb = b[0::2] + 1j * b[1::2].astype(np.complex64)
    c = ca * cb
    out = np.empty_like(a)
    out[0::2], out[1::2] = c.real, c.imag
    return dict(out=out)


TOLERANCE = dict(out=(1e-5, 1e-6))
