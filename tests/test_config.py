"""Configs load with every published figure, presets extend a base, and bad configs say what is wrong."""
import re
from pathlib import Path

import pytest

from simulator import ConfigError, load_config, use_config, get_config
from simulator.config import CONFIG_DIR


def test_mtia_2i_published_figures():
    c = load_config("mtia-2i")
    assert c.clock_ghz == 1.35 and c.num_pes == 64
    assert c.dpe_peak_flops("f16") == pytest.approx(177e12, rel=0.01)
    assert c.dpe_peak_flops("i8") == pytest.approx(354e12, rel=0.01)
    assert c.pe.local_store_kib == 384 and c.sram.size_mib == 256 and c.sram.gbps == 2700
    assert c.dram.bandwidth_gbps == 204.8 and c.dram.channels == 16
    assert c.dram_bpc == pytest.approx(151.7, abs=0.1)       # DESIGN.md: ~152 B/cycle
    assert c.sram_bpc == pytest.approx(2000, rel=0.01)       # ~2000 B/cycle
    se_tops = c.pe.se.elems_per_cycle * 2 * 64 * 1.35e9
    assert se_tops == pytest.approx(5.5e12, rel=0.02)


def test_mtia_v1_extends_2i_and_overrides():
    v1 = load_config("mtia-v1")
    assert v1.clock_ghz == 0.8 and v1.pe.local_store_kib == 128
    assert v1.dpe_peak_flops("f16") == pytest.approx(51.2e12, rel=0.001)
    assert v1.dpe_peak_flops("i8") == pytest.approx(102.4e12, rel=0.001)
    assert v1.dram.bandwidth_gbps == 176 and v1.sram.size_mib == 128
    assert v1.pe.dpe.tile_m == 32                       # inherited from mtia-2i


def test_every_number_in_the_yaml_files_has_a_reason():
    for path in CONFIG_DIR.glob("*.yaml"):
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if re.match(r"^\s*\w+:\s*[-\d.]+\s*(#.*)?$", line):
                assert "#" in line and len(line.split("#", 1)[1].strip()) > 8, f"{path.name}:{i} has no reason: {line}"


def test_overrides_by_dotted_key():
    c = load_config("mtia-2i", {"dram.bandwidth_gbps": 409.6, "pe.local_store_kib": 512})
    assert c.dram.bandwidth_gbps == 409.6 and c.ls_bytes == 512 * 1024


@pytest.mark.parametrize("override, pattern", [
    ({"dram.bandwidth_gbps": -5}, r"dram\.bandwidth_gbps = -5: Input should be greater than 0 .*GB/s.*allowed: float > 0"),
    ({"pe.local_store_kib": 0}, r"pe\.local_store_kib = 0: .*allowed: int >= 1 and <= 1048576"),
    ({"grid.rows": "eight"}, r"grid\.rows = 'eight': Input should be a valid integer"),
    ({"sram.llc_mib": 48}, r"llc_mib = 48: must be a multiple of unit_mib \(32\)"),
])
def test_bad_values_name_the_key_and_range(override, pattern):
    with pytest.raises(ConfigError, match=pattern):
        load_config("mtia-2i", override)


def test_unknown_keys_are_named(tmp_path: Path):
    p = tmp_path / "bad.yaml"
    p.write_text("extends: mtia-2i\ndram:\n  bandwith_gbps: 100\n")
    with pytest.raises(ConfigError, match=r"dram\.bandwith_gbps: unknown key \(known keys here: bandwidth_gbps, "):
        load_config(p)
    with pytest.raises(ConfigError, match=r"override 'dram\.bandwith_gbps': unknown key"):
        load_config("mtia-2i", {"dram.bandwith_gbps": 1})


def test_malformed_yaml_and_missing_files(tmp_path: Path):
    p = tmp_path / "broken.yaml"
    p.write_text("name: x\ngrid: [1, 2\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(p)
    with pytest.raises(ConfigError, match=r"no config named 'mtia-9'.*mtia-2i"):
        load_config("mtia-9")
    q = tmp_path / "missing.yaml"
    q.write_text("name: m\nclock_ghz: 1.0\n")
    with pytest.raises(ConfigError, match=r"grid: missing"):
        load_config(q)


def test_current_config_context():
    assert get_config().name == "mtia-2i"
    with use_config("mtia-v1") as c:
        assert get_config() is c
    assert get_config().name == "mtia-2i"
