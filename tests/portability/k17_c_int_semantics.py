import triton
import triton.language as tl
import numpy as np

# Integer `//` and `%` follow C on the device (truncate toward zero; the remainder takes the
# dividend's sign) for runtime scalars and tensors, while constexpr operands fold with Python's
# rules (floor). Negative operands make the difference visible.


@triton.jit
def int_div_kernel(x_ptr, q_ptr, r_ptr, s_ptr, n, a, b, d, A_C: tl.constexpr, B_C: tl.constexpr,
                   BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    tl.store(q_ptr + offs, x // d, mask=mask)
    tl.store(r_ptr + offs, x % d, mask=mask)
    if pid == 0:
        tl.store(s_ptr + 0, a // b)
        tl.store(s_ptr + 1, a % b)
        tl.store(s_ptr + 2, (a * 3 - 1) // (b + 1))
        tl.store(s_ptr + 3, A_C // B_C)                    # folded in Python: floor
        tl.store(s_ptr + 4, A_C % B_C)
        tl.store(s_ptr + 5, -a // 4 + a % -3)


CASES = [dict(n=500, a=-7, b=2, d=-3, A_C=-7, B_C=2), dict(n=77, a=23, b=-5, d=7, A_C=23, B_C=-5)]


def make_inputs(rng, n, a, b, d, A_C, B_C):
    return dict(x=rng.integers(-1000, 1000, n).astype(np.int32), a=a, b=b, d=d, A_C=A_C, B_C=B_C)


def host(lib, x, a, b, d, A_C, B_C):
    n = lib.numel(x)
    q = lib.output((n,), lib.int32)
    r = lib.output((n,), lib.int32)
    s = lib.output((6,), lib.int32)
    h = int_div_kernel[(triton.cdiv(n, 128),)](x, q, r, s, n, a, b, d, A_C=A_C, B_C=B_C, BLOCK=128)
    return dict(q=q, r=r, s=s), [h]


def _cdiv(x, y):
    return np.trunc(np.asarray(x, np.float64) / y).astype(np.int32)


def reference(x, a, b, d, A_C, B_C):
    s = [_cdiv(a, b), np.fmod(a, b), _cdiv(a * 3 - 1, b + 1), A_C // B_C, A_C % B_C,
         _cdiv(-a, 4) + np.fmod(a, -3)]
    return dict(q=_cdiv(x, d), r=np.fmod(x, d).astype(np.int32), s=np.array(s, np.int32))
