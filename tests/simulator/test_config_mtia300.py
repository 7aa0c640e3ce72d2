"""The MTIA 300 config holds ISCA'26 Table I: every figure loads, and the peak rates derived from it are the
paper's (560 TFLOPS BF16, 1120 FP8, 6.1 TB/s HBM, 11.4 TB/s SRAM) within rounding; no INT8 on its DPE."""
import argparse
import json

import pytest

from simulator import load_config
from simulator.config import config_from_dict, read_yaml, resolve_path
from simulator.errors import ConfigError


@pytest.fixture(scope="module")
def cfg():
    return load_config("mtia-300")


def test_every_table_figure_loads(cfg):
    assert cfg.clock_ghz == 1.9
    assert (cfg.grid.rows, cfg.grid.cols, cfg.num_pes) == (12, 6, 72)       # the redundant row does not compute
    assert cfg.pe.local_store_kib == 512 and cfg.pe.local_store_gbps == 1900
    d = cfg.pe.dpe
    assert (d.tile_m, d.tile_k_bytes, d.tile_n) == (32, 64, 32)               # two 32 x 64B x 32 tiles
    assert cfg.pe.se.elems_per_cycle == 128
    assert cfg.pe.vector.vlen_bits == 512                                      # 64-byte vector registers
    assert cfg.sram.size_mib == 192 and cfg.sram.gbps == 11400
    assert cfg.dram.kind == "hbm3e" and cfg.dram.capacity_gib == 216 and cfg.dram.bandwidth_gbps == 6100
    h = cfg.dram.hbm
    assert (h.stacks, h.channels_per_stack, h.pseudo_channels) == (6, 16, 2)
    assert cfg.dram.channels == h.total == 192


def test_peak_rates_are_the_papers(cfg):
    assert cfg.dpe_peak_flops("bf16") == pytest.approx(560e12, rel=0.005)
    assert cfg.dpe_peak_flops("f16") == cfg.dpe_peak_flops("bf16")
    assert cfg.dpe_peak_flops("f8e4m3") == pytest.approx(1120e12, rel=0.005)      # FP8 at twice BF16
    assert cfg.dpe_peak_flops("bf16") / cfg.num_pes == pytest.approx(7.82e12, rel=0.01)   # per PE
    assert cfg.dram_bpc * cfg.clock_ghz * 1e9 == pytest.approx(6.1e12, rel=0.005)
    assert cfg.sram_bpc * cfg.clock_ghz * 1e9 == pytest.approx(11.4e12, rel=0.005)
    se_flops = 2 * cfg.pe.se.elems_per_cycle * cfg.num_pes * cfg.clock_ghz * 1e9
    assert cfg.dpe_peak_flops("bf16") / se_flops == pytest.approx(16)              # ISCA'26: GEMM:SIMD 16:1


def test_a_pseudo_channel_is_one_192th_of_the_hbm(cfg):
    per_pc = cfg.dram.bandwidth_gbps / cfg.dram.channels
    assert per_pc == pytest.approx(31.8, abs=0.05)                        # GB/s
    assert cfg.pe.dma.burst_bytes / per_pc == pytest.approx(1.0, abs=0.01)   # a 32-byte burst every ns
    pin_gbps = cfg.dram.bandwidth_gbps * 8 / (cfg.dram.hbm.stacks * 1024)
    assert 7.9 < pin_gbps < 8.0                                             # an HBM3E pin rate


def test_no_int8_on_the_dpe(cfg):
    assert not {"i8", "u8"} & set(cfg.pe.dpe.macs_per_cycle)
    with pytest.raises(ConfigError, match="no throughput for dtype i8"):
        cfg.dpe_peak_flops("i8")


def test_the_networks_carry_the_sram_bandwidth(cfg):
    edge_links = 2 * cfg.grid.rows                      # half-rows into the two edge crossbars
    assert edge_links * cfg.noc.link_gbps >= cfg.sram.gbps
    assert cfg.pe.dma.gbps >= cfg.sram.gbps / cfg.num_pes     # a PE's port can draw its share of the SRAM


@pytest.mark.parametrize("overrides, message", [
    ({"dram.kind": "lpddr5"}, "hbm section .* is required with kind hbm3e and not allowed with another kind"),
    ({"dram.channels": 96}, r"must be the pseudo-channels of the hbm section: 6 stacks x 16 channels x 2 = 192"),
    ({"dram.hbm.pseudo_channels": 5}, r"dram\.hbm\.pseudo_channels = 5: .*less than or equal to 4"),
])
def test_the_hbm_structure_is_checked(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config("mtia-300", overrides)


def test_an_lpddr5_config_has_no_hbm_section():
    data = read_yaml(resolve_path("mtia-2i"))
    data["dram"]["hbm"] = {"stacks": 1, "channels_per_stack": 16, "pseudo_channels": 1}
    with pytest.raises(ConfigError, match="not allowed with another kind"):
        config_from_dict(data)


def test_mtiasim_configs_lists_it(capsys):
    from mtiasim.commands.listing import cmd_configs
    assert cmd_configs(argparse.Namespace(name=None, config=None, json=True)) == 0
    rows = {r["config"]: r for r in json.loads(capsys.readouterr().out)["configs"]}
    assert rows["mtia-300"]["DRAM GB/s"] == 6100 and rows["mtia-300"]["grid"] == "12x6"
    assert rows["mtia-300"]["DRAM"] == "hbm3e" and rows["mtia-2i"]["DRAM"] == "lpddr5"
    assert rows["mtia-300"]["DPE f16 TFLOP/s"] == pytest.approx(560, abs=1)
