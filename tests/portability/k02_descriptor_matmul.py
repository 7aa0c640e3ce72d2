import triton
import triton.language as tl
import numpy as np

# Matmul through tensor descriptors: the tiles of A, B and C are read and written with
# desc.load / desc.store at block offsets; tiles that hang over the edges read zeros and
# write nothing outside the tensor.


@triton.jit
def descriptor_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, k])
        b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc)


CASES = [dict(M=48, N=40, K=72), dict(M=32, N=64, K=32)]


def make_inputs(rng, M, N, K):
    return dict(a=rng.standard_normal((M, K)).astype(np.float16),
                b=rng.standard_normal((K, N)).astype(np.float16))


def host(lib, a, b):
    M, K = a.shape
    N = b.shape[1]
    c = lib.output((M, N), lib.float32)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    h = descriptor_matmul_kernel[grid](a, b, c, M, N, K, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    return dict(c=c), [h]


def reference(a, b):
    return dict(c=a.astype(np.float32) @ b.astype(np.float32))


TOLERANCE = dict(c=(1e-5, 1e-5))
