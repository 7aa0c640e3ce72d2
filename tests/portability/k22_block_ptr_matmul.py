import triton
import triton.language as tl
import numpy as np

# Matmul with block pointers (tl.make_block_ptr / tl.advance): boundary_check pads the edge tiles
# with zeros on loads and clips the store; B is read through a column-major view.


@triton.jit
def block_ptr_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                            stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_block = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_block = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                                offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(0, 1))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_block, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_block, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b)
        a_block = tl.advance(a_block, (0, BLOCK_K))
        b_block = tl.advance(b_block, (BLOCK_K, 0))
    c_block = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                                offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N),
                                order=(1, 0))
    tl.store(c_block, acc, boundary_check=(0, 1))


CASES = [dict(M=50, N=40, K=70), dict(M=32, N=32, K=64)]


def make_inputs(rng, M, N, K):
    return dict(a=rng.standard_normal((M, K)).astype(np.float16),
                bt=rng.standard_normal((N, K)).astype(np.float16))     # B is stored transposed


def host(lib, a, bt):
    M, K = a.shape
    N = bt.shape[0]
    b = bt.T                                                          # a column-major [K, N] view
    c = lib.output((M, N), lib.float32)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    h = block_ptr_matmul_kernel[grid](a, b, c, M, N, K, lib.stride(a, 0), lib.stride(a, 1), lib.stride(b, 0),
                                      lib.stride(b, 1), lib.stride(c, 0), lib.stride(c, 1),
                                      BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    return dict(c=c), [h]


def reference(a, bt):
    return dict(c=a.astype(np.float32) @ bt.T.astype(np.float32))


TOLERANCE = dict(c=(1e-5, 1e-5))
