"""Configs load with every published figure, presets extend a base, and bad configs say what is wrong."""
import re
from pathlib import Path

import pytest

from simulator import ConfigError, get_config, load_config, use_config
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
    with pytest.raises(ConfigError, match=r"dram\.bandwith_gbps: unknown key \(known keys here: [a-z_, ]*bandwidth_gbps, "):
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


# ---- what a hostile but realistic file gets (issue 9) --------------------------------------------

def _bomb(levels: int = 9) -> str:
    """Nested anchors: `levels` lines of text that expand to 9**levels strings."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "\n".join(lines)


@pytest.mark.parametrize("where", ["name: *a8", "pe:\n  dpe:\n    macs_per_cycle:\n      f16: *a8"])
def test_a_yaml_alias_bomb_in_a_known_field_is_refused_quickly(tmp_path: Path, where):
    import time
    p = tmp_path / "bomb.yaml"
    p.write_text("extends: mtia-small\n" + _bomb().replace("a0:", "x0:", 1) + "\n" + where + "\n")
    t = time.perf_counter()
    with pytest.raises(ConfigError) as e:
        load_config(p)
    assert time.perf_counter() - t < 5          # was: past 1.8 GB and 100 s printing the expansion
    assert "aliases (*name) expand to more than 100,000 values" in str(e.value) and len(str(e.value)) < 300


def test_an_alias_to_itself_and_a_repeated_key_are_refused(tmp_path: Path):
    p = tmp_path / "loop.yaml"
    p.write_text("extends: mtia-small\nname: &n [*n]\n")
    with pytest.raises(ConfigError, match=r"line 2: an alias refers to the value that contains it"):
        load_config(p)
    p.write_text("extends: mtia-small\nclock_ghz: 1.0\nclock_ghz: 2.0\n")
    with pytest.raises(ConfigError, match=r"(?s)found the key 'clock_ghz' twice.*line 3, column 1"):
        load_config(p)


def test_a_file_larger_than_any_config_is_refused_before_reading(tmp_path: Path):
    p = tmp_path / "huge.yaml"
    p.write_text("extends: mtia-small\n" + "#" * (2 << 20) + "\n")
    with pytest.raises(ConfigError, match=r"huge\.yaml: 2,097,17\d bytes is more than a config or sweep file holds"):
        load_config(p)


def test_error_messages_quote_long_values_cut_short():
    with pytest.raises(ConfigError) as e:
        load_config("mtia-small", {"name": ["x" * 10_000] * 10_000, "grid.rows": 10 ** 5000})
    text = str(e.value)
    assert len(text) < 800, text
    assert "name = ['xxx" in text and "...: Input should be a valid string" in text and "grid.rows = <an integer of about 5,001 digits>" in text


@pytest.mark.parametrize("override, pattern", [
    # the chip model cannot hold these: refused at load with the key, the allowed range and why
    ({"pe.local_store_kib": 1 << 20},
     r"pe\.local_store_kib = 1048576: 64 PEs x 1,048,576 KiB of local store .* take 128 GiB of host memory, over "
     r"the 2 GiB this simulator allows: allowed with 64 PEs: local_store_kib <= 16,384"),
    ({"pe.local_store_kib": 1 << 21}, r"allowed: int >= 1 and <= 1048576: a PE's address map gives the local store"),
    ({"sram.size_mib": 1 << 20, "sram.llc_mib": 1 << 20},           # a 1 TiB LLC
     r"sram\.llc_mib = 1048576: an LLC of 8,589,934,592 lines of 128 B takes 200 GiB of host memory .*"
     r"allowed with line_bytes 128: llc_mib <= 10,485"),
    ({"sram.size_mib": 8192, "sram.llc_mib": 0},
     r"sram\.size_mib = 8192: leaves 8,192 MiB of scratch .* allowed: size_mib - llc_mib <= 3,072"),
    ({"dram.capacity_gib": 1 << 30}, r"dram\.capacity_gib = 1073741824: .*<= 1048576: 1 PiB"),
    # strict types: nothing the user wrote is converted behind their back
    ({"clock_ghz": True}, r"clock_ghz = True: Input should be a valid number \[clock of the PEs \(GHz\)"),
    ({"grid.rows": 8.0}, r"grid\.rows = 8\.0: Input should be a valid integer"),
    ({"dram.bandwidth_gbps": "204.8"}, r"dram\.bandwidth_gbps = '204\.8': Input should be a valid number"),
    ({"pe.dpe.macs_per_cycle.fp16": 1024},
     r"pe\.dpe\.macs_per_cycle\.fp16 = 1024: unknown dtype 'fp16' \(known: f16, bf16, f32, i8, u8, f8e4m3"),
    ({"pe.vector.ops_per_cycle.f17": 8}, r"pe\.vector\.ops_per_cycle\.f17 = 8: unknown dtype 'f17' \(known: i8, i16"),
    ({"pe.vector.vlen_bits": 96}, r"pe\.vector\.vlen_bits = 96: must be a multiple of 64"),
])
def test_values_the_simulator_cannot_hold_or_types_it_would_convert_are_refused(override, pattern):
    with pytest.raises(ConfigError, match=pattern):
        load_config("mtia-2i", override)


def test_the_largest_allowed_values_load():
    assert load_config("mtia-2i", {"pe.local_store_kib": 16384}).ls_bytes == 16 << 20
    assert load_config("mtia-2i", {"sram.size_mib": 10496, "sram.llc_mib": 10464}).sram.llc_mib == 10464
    assert load_config("mtia-2i", {"dram.bandwidth_gbps": 400}).dram.bandwidth_gbps == 400   # an int is a float
