"""`prune_configs_by={'early_config_prune': f}` calls f(configs, named_args, **kwargs) as Triton does:
the launch's keyword arguments reach it by keyword (Triton's tutorial 09 reads FLATTEN from them, and
failed here with KeyError: 'FLATTEN'), and only the configs it keeps are tried."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from simulator import use_config

SEEN = []


def keep_small_blocks(configs, named_args, **kwargs):
    SEEN.append((sorted(k for k in named_args if k != "LIMIT"), kwargs["LIMIT"]))
    return [c for c in configs if c.kwargs["BLOCK"] <= kwargs["LIMIT"]]


@triton.autotune([triton.Config({"BLOCK": b}) for b in (64, 128, 256, 512)], key=["n"],
                 prune_configs_by={"early_config_prune": keep_small_blocks}, workers=1)
@triton.jit
def _scaled(x_ptr, out_ptr, n, LIMIT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * LIMIT, mask=mask)


def test_the_prune_function_gets_the_launch_keywords_and_decides_what_is_tried():
    x = np.random.default_rng(1).random(3000, dtype=np.float32)
    out = np.full_like(x, np.nan)
    with use_config("mtia-small"):
        _scaled[lambda m: (triton.cdiv(m["n"], m["BLOCK"]),)](x, out, x.size, LIMIT=128)
    np.testing.assert_array_equal(out, x * 128)
    assert SEEN[-1] == (["n", "out_ptr", "x_ptr"], 128)        # named args positional; LIMIT by keyword
    assert len(next(iter(_scaled.timings.values()))) == 2          # only BLOCK 64 and 128 were tried
    assert _scaled.best_config.kwargs["BLOCK"] in (64, 128)


def test_a_prune_that_keeps_nothing_says_so():
    x = np.zeros(100, np.float32)
    with use_config("mtia-small"), pytest.raises(ValueError, match="early_config_prune left no config"):
        _scaled[(1,)](x, np.zeros_like(x), x.size, LIMIT=1)
