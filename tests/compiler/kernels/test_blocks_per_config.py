"""Library kernels pick their blocks for the config they run on (a PE's local store, its PE count), as GPU host
code sizes tiles by the device's shared memory; `-p BLOCK_M=...` overrides them from the command line."""
import json

import numpy as np
import pytest

from compiler.kernels import library
from compiler.kernels.matmul import fits, pick_blocks
from simulator.config import load_config, use_config

from cli_run import mtiasim_main


@pytest.mark.parametrize("ls_kib, tile", [(128, (128, 128)), (256, (256, 128)), (384, (256, 256)), (512, (256, 256))])
def test_matmul_takes_the_largest_tile_that_fits_the_local_store(ls_kib, tile):
    with use_config(load_config("mtia-2i", {"pe.local_store_kib": ls_kib})):
        blocks = pick_blocks(2048, 2048, 512)
    assert (blocks["BLOCK_M"], blocks["BLOCK_N"]) == tile
    assert fits(*tile, blocks["BLOCK_K"], ls_kib << 10)


def test_matmul_runs_and_is_right_at_v1s_local_store():
    """At 128 KiB the 2i default tile (256x256) does not fit; the picked one runs and computes A @ B."""
    k = library()["matmul"]
    a, b = k.make_inputs((256, 256, 64), np.random.default_rng(1))
    with use_config(load_config("mtia-small", {"pe.local_store_kib": 128})):
        (c,), runs = k.run(a, b)
    np.testing.assert_allclose(c.astype(np.float32), k.reference(a, b)[0].astype(np.float32), rtol=2e-2, atol=2e-2)


def test_block_overrides_from_the_command_line(capsys):
    def run(*params):
        return json.loads(mtiasim_main(capsys, "run", "matmul", "--shape", "256", "256", "64", "--config", "mtia-small",
                                       "--timing-only", "--json", *params).stdout)
    picked, given = run(), run("-p", "BLOCK_M=64", "-p", "BLOCK_N=32")
    assert given["grid"][0] == (256 // 64) * (256 // 32) != picked["grid"][0]
