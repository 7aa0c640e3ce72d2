import triton
import triton.language as tl
import numpy as np

# Dropout with tl.rand (Philox: the same seed and offsets give the same bits on every device) and
# Gaussian noise with tl.randn. The random values themselves are outputs too, so that a GPU run can
# record them as golden data.


@triton.jit
def dropout_noise_kernel(x_ptr, out_ptr, keep_ptr, u_ptr, z_ptr, noisy_ptr, n, p, sigma, seed,
                         BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    u = tl.rand(seed, offs)
    keep = u > p
    out = tl.where(keep, x / (1 - p), 0.0)
    tl.store(out_ptr + offs, out, mask=mask)
    tl.store(keep_ptr + offs, keep.to(tl.int8), mask=mask)
    tl.store(u_ptr + offs, u, mask=mask)
    z = tl.randn(seed + 1, offs)
    tl.store(z_ptr + offs, z, mask=mask)
    tl.store(noisy_ptr + offs, x + sigma * z, mask=mask)


CASES = [dict(n=1000, p=0.3, seed=1234), dict(n=4096, p=0.5, seed=987654321)]


def make_inputs(rng, n, p, seed):
    return dict(x=rng.standard_normal(n).astype(np.float32), p=p, seed=seed)


def host(lib, x, p, seed):
    n = lib.numel(x)
    outs = dict(out=lib.output((n,), lib.float32), keep=lib.output((n,), lib.int8),
                u=lib.output((n,), lib.float32), z=lib.output((n,), lib.float32),
                noisy=lib.output((n,), lib.float32))
    h = dropout_noise_kernel[(triton.cdiv(n, 256),)](x, outs["out"], outs["keep"], outs["u"], outs["z"],
                                                     outs["noisy"], n, p, 0.1, seed, BLOCK=256)
    return outs, [h]


def _philox(seed, counters):
    """Philox4x32-10 with counter (c, 0, 0, 0) and key (seed low, seed high): the first word."""
    c0 = counters.astype(np.uint32)
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0 = np.uint32(seed & 0xFFFFFFFF)
    k1 = np.uint32((seed >> 32) & 0xFFFFFFFF)
    with np.errstate(over="ignore"):
        for _ in range(10):
            pa = np.uint64(0xD2511F53) * c0.astype(np.uint64)
            pb = np.uint64(0xCD9E8D57) * c2.astype(np.uint64)
            c0, c1, c2, c3 = ((pb >> np.uint64(32)).astype(np.uint32) ^ c1 ^ k0, pb.astype(np.uint32),
                              (pa >> np.uint64(32)).astype(np.uint32) ^ c3 ^ k1, pa.astype(np.uint32))
            k0 = np.uint32(k0 + np.uint32(0x9E3779B9))
            k1 = np.uint32(k1 + np.uint32(0xBB67AE85))
    return c0, c1


def _uniform(bits):
    x = bits.view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def reference(x, p, seed):
    n = x.size
    offs = np.arange(n, dtype=np.uint32)
    u = _uniform(_philox(int(seed), offs)[0])
    keep = u > np.float32(p)
    out = np.where(keep, x / (np.float32(1) - np.float32(p)), np.float32(0)).astype(np.float32)
    a, b = _philox(int(seed) + 1, offs)
    u1 = np.maximum(_uniform(a), np.float32(1e-7))
    u2 = _uniform(b)
    z = (np.sqrt(-2.0 * np.log(u1.astype(np.float64))) * np.cos(2 * np.pi * u2.astype(np.float64))).astype(np.float32)
    return dict(out=out, keep=keep.astype(np.int8), u=u, z=z, noisy=(x + np.float32(0.1) * z).astype(np.float32))


TOLERANCE = dict(out=(1e-6, 1e-7), z=(1e-4, 1e-4), noisy=(1e-5, 1e-5))
GOLDEN = ("u", "keep", "z")
GOLDEN_TOLERANCE = dict(z=(1e-6, 1e-6))   # randn goes through log/cos: the GPU differs by ~1 ulp
