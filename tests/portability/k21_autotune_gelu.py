import triton
import triton.language as tl
import numpy as np

# An elementwise GELU (erf form) on fp16 tensors, autotuned over block sizes and with a heuristic
# that drops the bounds mask when the size divides evenly: the host-side decorators a GPU user
# stacks on a kernel.


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 256}, num_warps=8)],
                 key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs).to(tl.float32)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    if EVEN:
        tl.store(y_ptr + offs, y.to(tl.float16))
    else:
        tl.store(y_ptr + offs, y.to(tl.float16), mask=offs < n)


CASES = [dict(n=1000), dict(n=2048)]


def make_inputs(rng, n):
    return dict(x=(rng.standard_normal(n) * 2).astype(np.float16))


def host(lib, x):
    n = lib.numel(x)
    y = lib.output((n,), lib.float16)
    grid = lambda META: (triton.cdiv(n, META["BLOCK"]),)  # noqa: E731
    h = gelu_kernel[grid](x, y, n)
    return dict(y=y), [h]


def _erf(v):
    # Abramowitz-Stegun 7.1.26 is too coarse for a reference: use the float64 series via math.erf
    import math
    return np.vectorize(math.erf)(v)


def reference(x):
    x64 = x.astype(np.float64)
    return dict(y=(0.5 * x64 * (1 + _erf(x64 / np.sqrt(2)))).astype(np.float16))


TOLERANCE = dict(y=(2e-3, 2e-3))
