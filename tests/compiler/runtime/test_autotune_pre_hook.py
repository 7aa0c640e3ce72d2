"""`Config.pre_hook` runs before every autotune trial of its config and before the launch with the chosen
one, as in Triton. Upstream tutorial 09 gives host TensorDescriptors a dummy [1, 1] block and sets the real
one in the pre_hook; the trials used to skip the hook, so they compiled [1, 1] blocks and were refused."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.tools.tensor_descriptor import TensorDescriptor
from simulator import use_config
from tests.executors import EXECUTORS

CALLS = []


def _set_blocks(nargs):
    CALLS.append(nargs["BLOCK"])
    nargs["x_desc"].block_shape = [nargs["BLOCK"], nargs["BLOCK"]]
    nargs["y_desc"].block_shape = [nargs["BLOCK"], nargs["BLOCK"]]


@triton.autotune([triton.Config({"BLOCK": b}, pre_hook=_set_blocks) for b in (8, 16)], key=["N"], workers=1)
@triton.jit
def _copy_tiles(x_desc, y_desc, N, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK
    j = tl.program_id(1) * BLOCK
    y_desc.store([i, j], x_desc.load([i, j]) * 2.0)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_pre_hook_runs_before_each_trial_and_the_chosen_launch(executor):
    N = 32
    x = np.random.default_rng(3).standard_normal((N, N)).astype(np.float32)
    y = np.full_like(x, np.nan)
    xd, yd = TensorDescriptor.from_tensor(x, [1, 1]), TensorDescriptor.from_tensor(y, [1, 1])
    CALLS.clear()
    _copy_tiles.best_configs.clear()
    with use_config("mtia-small"):
        _copy_tiles[lambda m: (N // m["BLOCK"], N // m["BLOCK"])](xd, yd, N, executor=executor)
    np.testing.assert_array_equal(y, x * 2.0)
    chosen = _copy_tiles.best_config.kwargs["BLOCK"]
    assert not _copy_tiles.failures[(N,)]            # no trial was refused for a [1, 1] block
    tried = [8, 16] if executor == "mtia" else [8]   # the interpreter has no clock: only the first is tried
    assert CALLS == tried + [chosen]
