"""The MTIA executor's compile step: one backend compile per kernel and config, on a copy of the IR."""
import numpy as np

import compiler as triton
import compiler.language as tl
from compiler.ir import print_module
from compiler.runtime.executor import use_executor
from simulator import use_config
from simulator.config import load_config
from simulator.machine import Machine


@triton.jit
def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


def test_a_launch_on_a_callers_machine_compiles_once_for_that_machines_config():
    x = np.arange(1000, dtype=np.float32)
    out = np.full_like(x, np.nan)
    machine = Machine(load_config("mtia-small"))
    with use_executor("mtia"), use_config("mtia-2i"):          # the machine's config wins over the current one
        double_kernel[(1,)](x, out, x.size, BLOCK=1024, machine=machine)
    (compiled,) = [c for c in double_kernel.cache.values() if c.constexprs["BLOCK"] == 1024]
    assert compiled.mtia.compiles == 1
    assert [key[0] for key in compiled.mtia.programs] == [machine.cfg.model_dump_json()]   # (config, stages, switches)
    np.testing.assert_array_equal(out, 2 * x)


def test_the_backend_rewrites_a_copy_and_leaves_the_kernels_ir_as_it_was():
    x = np.arange(1000, dtype=np.float32)
    compiled = double_kernel.compile(x, x, x.size, BLOCK=512)
    before = print_module(compiled.module, with_locs=True)
    assert "mtia.load_box" in compiled.asm["mtia.lower-memory"]
    assert print_module(compiled.module, with_locs=True) == before
