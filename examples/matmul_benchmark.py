"""The benchmark section of Triton's matmul tutorial, on simulated MTIA chips: the same
`@triton.testing.perf_report` code, with one line per hardware config instead of per library.

    python examples/matmul_benchmark.py                  # prints the table, writes matmul-performance.png
    python examples/matmul_benchmark.py --sizes 256 512  # other square sizes

`do_bench` returns simulated milliseconds, so the TFLOP/s are the chip's, not this host's.
"""
import argparse

import numpy as np

import compiler as triton  # was: import triton
import compiler.language as tl  # was: import triton.language as tl
from simulator import use_config


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    pid_m, pid_n = tl.swizzle2d(pid // tl.cdiv(N, BLOCK_N), pid % tl.cdiv(N, BLOCK_N),
                                tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N), GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k * BLOCK_K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BLOCK_K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def matmul(a, b, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8):
    M, K = a.shape
    _, N = b.shape
    c = np.empty((M, N), np.float16)
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    matmul_kernel[grid](a, b, c, M, N, K, *(s // a.itemsize for s in a.strides), *(s // b.itemsize for s in b.strides),
                        *(s // c.itemsize for s in c.strides), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                        GROUP_M=GROUP_M)
    return c


CONFIGS = ["mtia-2i", "mtia-v1"]


def make_benchmark(sizes):
    @triton.testing.perf_report(triton.testing.Benchmark(
        x_names=["M", "N", "K"], x_vals=sizes, line_arg="config", line_vals=CONFIGS,
        line_names=["MTIA 2i", "MTIA v1"], styles=[("blue", "-"), ("orange", "-")], ylabel="TFLOP/s",
        plot_name="matmul-performance", args={}))
    def benchmark(M, N, K, config):
        rng = np.random.default_rng(0)
        a = rng.standard_normal((M, K)).astype(np.float16)
        b = rng.standard_normal((K, N)).astype(np.float16)
        with use_config(config):
            ms = triton.testing.do_bench(lambda: matmul(a, b))
        return 2 * M * N * K * 1e-12 / (ms * 1e-3)
    return benchmark


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024, 2048], help="square sizes M = N = K")
    p.add_argument("--save", default=".", help="folder for the table (csv) and the plot (png)")
    a = p.parse_args(argv)
    make_benchmark(a.sizes).run(print_data=True, save_path=a.save)


if __name__ == "__main__":
    main()
