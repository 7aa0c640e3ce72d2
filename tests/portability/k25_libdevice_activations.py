import triton
import triton.language as tl
import numpy as np

# Activations through CUDA libdevice, as GPU kernels call it: GELU in its tanh form, a stable softplus
# (log1p of exp(-|x|)) and ELU (expm1), on one row block per program. `tl.extra.libdevice` is the
# module `from triton.language.extra import libdevice` imports, reached without a third import line.


@triton.jit
def activations_kernel(x_ptr, gelu_ptr, softplus_ptr, elu_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    gelu = 0.5 * x * (1.0 + tl.extra.libdevice.tanh(inner))
    softplus = tl.maximum(x, 0.0) + tl.extra.libdevice.log1p(tl.exp(-tl.abs(x)))
    elu = tl.where(x > 0.0, x, tl.extra.libdevice.expm1(x))
    tl.store(gelu_ptr + offs, gelu, mask=mask)
    tl.store(softplus_ptr + offs, softplus, mask=mask)
    tl.store(elu_ptr + offs, elu, mask=mask)


CASES = [dict(n=1000), dict(n=4096)]


def make_inputs(rng, n):
    return dict(x=(rng.standard_normal(n) * 3).astype(np.float32))


def host(lib, x):
    n = lib.numel(x)
    gelu, softplus, elu = (lib.output((n,), lib.float32) for _ in range(3))
    h = activations_kernel[(triton.cdiv(n, 512),)](x, gelu, softplus, elu, n, BLOCK=512)
    return dict(gelu=gelu, softplus=softplus, elu=elu), [h]


def reference(x):
    x64 = x.astype(np.float64)
    gelu = 0.5 * x64 * (1 + np.tanh(np.sqrt(2 / np.pi) * (x64 + 0.044715 * x64 ** 3)))
    softplus = np.logaddexp(0.0, x64)
    elu = np.where(x64 > 0, x64, np.expm1(x64))
    return dict(gelu=gelu.astype(np.float32), softplus=softplus.astype(np.float32), elu=elu.astype(np.float32))


TOLERANCE = dict(gelu=(1e-5, 1e-6), softplus=(1e-5, 1e-6), elu=(1e-5, 1e-6))
