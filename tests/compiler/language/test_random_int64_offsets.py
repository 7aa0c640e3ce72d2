"""tl.randint with 64-bit offsets is Philox4x32 with the offset's low and high words as the first two
counter words, as Triton's (since 3.4): Triton's test_random.py::test_randint[*-int64-*] (72 cases)
got 64-bit Philox words from both executors, which ran Philox4x64 on int64 offsets."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch

ROUND_A, ROUND_B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
KEY_A, KEY_B = np.uint32(0x9E3779B9), np.uint32(0xBB67AE85)


def philox4x32_first_word(seed: int, offsets: np.ndarray) -> np.ndarray:
    """Philox4x32-10 of counter (offset low, offset high, 0, 0) and key (seed low, seed high): word 0."""
    u = offsets.astype(np.int64).view(np.uint64)
    c0, c1 = (u & np.uint64(0xFFFFFFFF)).astype(np.uint32), (u >> np.uint64(32)).astype(np.uint32)
    c2, c3 = np.zeros_like(c0), np.zeros_like(c0)
    k0 = np.full_like(c0, np.uint32(seed & 0xFFFFFFFF))
    k1 = np.full_like(c0, np.uint32((seed >> 32) & 0xFFFFFFFF))
    with np.errstate(over="ignore"):
        for _ in range(10):
            pa, pb = ROUND_A * c0.astype(np.uint64), ROUND_B * c2.astype(np.uint64)
            c0, c1, c2, c3 = ((pb >> np.uint64(32)).astype(np.uint32) ^ c1 ^ k0, pb.astype(np.uint32),
                              (pa >> np.uint64(32)).astype(np.uint32) ^ c3 ^ k1, pa.astype(np.uint32))
            k0, k1 = k0 + KEY_A, k1 + KEY_B
    return c0


@triton.jit
def randint_at(out_ptr, uniform_ptr, base, seed, BLOCK: tl.constexpr):
    local = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs = base + local.to(tl.int64)
    tl.store(out_ptr + local, tl.randint(seed, offs))
    tl.store(uniform_ptr + local, tl.rand(seed, offs))


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("base", [0, 3 * 2 ** 32 + 17, 2 ** 40 - 64])
def test_randint_of_int64_offsets_is_philox4x32_of_both_words(executor, base):
    block, seed = 64, 0x0000000FCAFEB0BA
    out = np.full(2 * block, -1, np.int64)
    uniform = np.full(2 * block, np.nan, np.float32)
    launch(randint_at, (2,), out, uniform, base, seed, BLOCK=block, executor=executor)
    ref = philox4x32_first_word(seed, base + np.arange(2 * block, dtype=np.int64))
    assert ((0 <= out) & (out < 2 ** 32)).all()     # uint32 words, zero-extended by the store
    np.testing.assert_array_equal(out.astype(np.uint32), ref)
    signed = ref.view(np.int32).astype(np.int64)
    np.testing.assert_array_equal(uniform, (np.where(signed < 0, -signed - 1, signed).astype(np.float32)
                                            * np.float32(4.6566127342e-10)))
