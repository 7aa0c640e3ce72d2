"""Kernels and helpers that tests in more than one folder use (import them as `from shared_kernels import
...`; tests/ is on the path)."""
import compiler as triton
import compiler.language as tl


def dma_lines(compiled) -> list[str]:
    return [ln.strip() for ln in compiled.asm["mtia-asm"].splitlines() if ln.strip().startswith("dma.")]


@triton.jit
def pairs_kernel(i_ptr, j_ptr, z_ptr, out_ptr, R, P, F: tl.constexpr, OUT: tl.constexpr, GUARDED: tl.constexpr,
                  OTHER: tl.constexpr, WRITE: tl.constexpr, YB: tl.constexpr, XB: tl.constexpr):
    # out[r, p] = z[r, i[p], j[p]], z: [R, F, F]; indices as Inductor checks them (negative ones wrap)
    y = tl.program_id(1) * YB + tl.arange(0, YB)[:, None]
    x = tl.program_id(0) * XB + tl.arange(0, XB)[None, :]
    ymask = y < R
    xmask = x < P
    i = tl.load(i_ptr + x, xmask)
    j = tl.load(j_ptr + x, xmask)
    i = tl.where(i < 0, i + F, i)
    j = tl.where(j < 0, j + F, j)
    if GUARDED:                         # the assert's own mask is the load's x mask
        tl.device_assert(((0 <= i) & (i < F)) | ~xmask, "index out of bounds: 0 <= i < F")
        tl.device_assert(((0 <= j) & (j < F)) | ~xmask, "index out of bounds: 0 <= j < F")
    else:                               # checked everywhere
        tl.device_assert((0 <= i) & (i < F), "index out of bounds: 0 <= i < F")
        tl.device_assert((0 <= j) & (j < F), "index out of bounds: 0 <= j < F")
    if WRITE:                           # z[r, 1, 0] = 5 between the checks and the load: the load sees it
        tl.store(z_ptr + (F + F * F * y), tl.full([YB, 1], 5.0, tl.float32), ymask)
    if OTHER:                           # lanes past P read `other`, and are stored
        v = tl.load(z_ptr + (j + F * i + F * F * y), xmask & ymask, other=-1.0)
        tl.store(out_ptr + (x + OUT * y), v, ymask & (x < OUT))
    else:
        v = tl.load(z_ptr + (j + F * i + F * F * y), xmask & ymask)
        tl.store(out_ptr + (x + OUT * y), v, xmask & ymask)


@triton.jit
def wrapped_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # the matmul tutorial's addressing: rows and columns wrapped with `% M` / `% N`, a K mask,
    # pointer blocks advanced each K step, a masked store of the unwrapped tile
    pid = tl.program_id(0)
    num_n = tl.cdiv(N, BN)
    pid_m = pid // num_n
    pid_n = pid % num_n
    offs_am = (pid_m * BM + tl.arange(0, BM)) % M
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    offs_cm = pid_m * BM + tl.arange(0, BM)
    offs_cn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :], acc.to(tl.float16),
             mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))
