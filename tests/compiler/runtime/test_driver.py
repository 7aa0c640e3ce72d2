"""triton.runtime.driver.active answers GPU host code for the simulator (compiler/runtime/driver.py):
the lines Triton's tutorials open with run unchanged, and a launch on tensors made on its device
computes the right numbers."""
import pytest

import compiler as triton
import compiler.language as tl
from simulator import get_config, use_config

torch = pytest.importorskip("torch")


@triton.jit
def _add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def test_a_tutorial_style_host_script_runs_on_the_active_device():
    device = triton.runtime.driver.active.get_active_torch_device()
    assert device == torch.device("cpu")
    props = triton.runtime.driver.active.utils.get_device_properties(device.index)
    with use_config("mtia-small"):
        x = torch.rand(3000, device=device)
        y = torch.rand(3000, device=device)
        out = torch.full_like(x, float("nan"))
        _add[lambda m: (triton.cdiv(x.numel(), m["BLOCK"]),)](x, y, out, x.numel(), BLOCK=1024)
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    cfg = get_config()
    assert props["multiprocessor_count"] == cfg.num_pes and props["max_shared_mem"] == cfg.ls_bytes
    target = triton.runtime.driver.active.get_current_target()
    assert (target.backend, target.arch, target.warp_size) == ("mtia", cfg.name, 1)
    assert triton.runtime.driver.active.get_current_device() == 0


@pytest.mark.parametrize("config, bits", [("mtia-2i", 16 * 16), ("mtia-300", 32 * 192)])
def test_the_memory_bus_width_follows_the_dram_technology(config, bits):
    # LPDDR5: 16 channels of 16 bits; HBM3E: 6 stacks x 16 channels x 2 pseudo-channels of 32 bits
    with use_config(config):
        props = triton.runtime.driver.active.utils.get_device_properties(0)
        assert props["mem_bus_width"] == bits, (get_config().dram.kind, get_config().dram.channels)
