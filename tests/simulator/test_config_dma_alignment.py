"""`pe.dma.align_bytes` is checked when the config loads: a value no array placement can meet is refused
there, naming the key, the value and the allowed range, rather than failing every kernel's first box
transfer at run time with an ISA message about an address."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from simulator import ConfigError, load_config, use_config


@triton.jit
def _copy_plus_one(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + 1)


@pytest.mark.parametrize("value", [3, 24, 512, 4096])
def test_an_alignment_arrays_cannot_meet_is_refused_at_load(value):
    with pytest.raises(ConfigError, match=rf"pe\.dma\.align_bytes = {value}: allowed: a power of two from 1 to 256"):
        load_config("mtia-2i", {"pe.dma.align_bytes": value})


@pytest.mark.parametrize("value", [1, 4, 32, 256])
def test_every_allowed_alignment_runs_a_kernel(value):
    x = np.random.default_rng(value).standard_normal(64).astype(np.float32)
    out = np.full_like(x, np.nan)
    with use_config("mtia-2i", {"pe.dma.align_bytes": value}):
        _copy_plus_one[(1,)](x, out, BLOCK=64)
    np.testing.assert_array_equal(out, x + 1)
