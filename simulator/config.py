"""Hardware configs: typed models of the YAML files in `configs/`, their loader and validation.

Every field has a unit and a description here; the YAML files give each value its reason in a
comment. A preset names a base with `extends:` and overrides only what differs. Published units are
kept (GB/s, GHz, KiB); `Config` derives the per-cycle budgets the model runs on.

    cfg = load_config("mtia-2i")                                   # a name in configs/ or a path
    cfg = load_config("mtia-2i", {"dram.bandwidth_gbps": 409.6})   # dotted overrides (sweeps)
"""
from __future__ import annotations

import contextlib
import copy
import math
from pathlib import Path
from typing import Any, Iterator, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import ConfigError

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"
DEFAULT_CONFIG = "mtia-2i"


class _Model(BaseModel):
    # allow_inf_nan=False: an infinite bandwidth or a NaN latency is not hardware
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


def _f(description: str, **bounds) -> Any:
    return Field(..., description=description, **bounds)


class Grid(_Model):
    rows: int = _f("PE rows of the grid", ge=1, le=64)
    cols: int = _f("PE columns of the grid", ge=1, le=64)


class ScalarCore(_Model):
    cpi: float = _f("cycles per scalar RISC-V instruction", gt=0, le=100)
    branch_taken_cycles: int = _f("extra cycles when a branch is taken", ge=0, le=100)
    issue_cycles: int = _f("cycles the core spends issuing one custom instruction to the CP", ge=0, le=1000)
    ls_load_cycles: int = _f("cycles of a scalar load from the local store", ge=0, le=1000)
    global_load_cycles: int = _f("cycles of a scalar load from SRAM/DRAM (round trip)", ge=0, le=100000)


class Dpe(_Model):
    macs_per_cycle: dict[str, int] = _f("multiply-accumulates per cycle per PE, by input dtype")
    tile_m: int = _f("rows of the MAC array: M is rounded up to a multiple (elements)", ge=1)
    tile_n: int = _f("columns of the MAC array: N is rounded up to a multiple (elements)", ge=1)
    tile_k_bytes: int = _f("bytes of K per MAC lane: K is rounded up to this many bytes", ge=1)
    latency_cycles: int = _f("pipeline latency before a result is visible to other engines (cycles)", ge=0)
    command_cycles: int = _f("fixed cost of each matmul command (cycles)", ge=0)

    @model_validator(mode="after")
    def _dtypes(self):
        for k, v in self.macs_per_cycle.items():
            if k not in ("f16", "bf16", "f32", "i8", "u8", "f8e4m3", "f8e5m2", "f64"):
                raise ValueError(f"macs_per_cycle: unknown dtype {k!r}")
            if v < 1:
                raise ValueError(f"macs_per_cycle.{k} = {v}: must be >= 1")
        return self


class Engine(_Model):
    elems_per_cycle: int = _f("output elements per cycle", ge=1, le=65536)
    latency_cycles: int = _f("pipeline latency (cycles)", ge=0)
    command_cycles: int = _f("fixed cost of each command (cycles)", ge=0)


class Re(Engine):
    network_gbps: float = _f("reduction-network link bandwidth between neighbouring PEs (GB/s)", gt=0)
    network_hop_cycles: int = _f("reduction-network latency per hop (cycles)", ge=0)


class Mlu(_Model):
    bytes_per_cycle: int = _f("bytes moved per cycle", ge=1)
    latency_cycles: int = _f("pipeline latency (cycles)", ge=0)
    command_cycles: int = _f("fixed cost of each command (cycles)", ge=0)


class Vector(_Model):
    vlen_bits: int = _f("RVV vector register length (bits)", ge=64, le=65536)
    ops_per_cycle: dict[str, int] = _f("element operations per cycle by element width name (i8/f16/f32/...)")
    load_cycles: int = _f("latency of a vector load/store to the local store (cycles)", ge=0)


class Dma(_Model):
    gbps: float = _f("fabric-interface (DMA to NoC) bandwidth per PE (GB/s)", gt=0)
    max_outstanding: int = _f("DMA commands in flight per PE", ge=1, le=1024)
    setup_cycles: int = _f("descriptor processing per command (cycles)", ge=0)
    burst_bytes: int = _f("memory transaction size: contiguous runs are rounded up to it (bytes)", ge=1)
    align_bytes: int = _f("address alignment box transfers require (bytes)", ge=1)


class Pe(_Model):
    local_store_kib: int = _f("local store per PE (KiB)", ge=1, le=1 << 20)
    local_store_gbps: float = _f("local store bandwidth, reads plus writes (GB/s)", gt=0)
    queue_depth: int = _f("commands each engine's queue in the command processor holds", ge=1, le=4096)
    scalar: ScalarCore
    dpe: Dpe
    se: Engine
    re: Re
    mlu: Mlu
    vector: Vector
    dma: Dma


class Noc(_Model):
    hop_cycles: int = _f("latency per mesh hop (cycles)", ge=0)


class Sram(_Model):
    size_mib: int = _f("on-chip SRAM (MiB)", ge=1)
    unit_mib: int = _f("granule of the LLC/scratch split (MiB)", ge=1)
    llc_mib: int = _f("part of SRAM used as a hardware-managed cache of DRAM (MiB); the rest is scratch", ge=0)
    gbps: float = _f("SRAM bandwidth, reads plus writes, chip-wide (GB/s)", gt=0)
    latency_cycles: int = _f("access latency (cycles)", ge=0)
    line_bytes: int = _f("LLC line size (bytes)", ge=16)
    ways: int = _f("LLC associativity", ge=1, le=64)
    arbitration: Literal["round_robin", "fifo"] = _f(
        "how the SRAM serves PEs that want it at once: in turn, burst by burst (round_robin), or whole "
        "transfers in arrival order (fifo)")

    @model_validator(mode="after")
    def _split(self):
        if self.llc_mib > self.size_mib:
            raise ValueError(f"llc_mib = {self.llc_mib}: must be <= size_mib ({self.size_mib})")
        if self.llc_mib % self.unit_mib:
            raise ValueError(f"llc_mib = {self.llc_mib}: must be a multiple of unit_mib ({self.unit_mib})")
        if self.line_bytes & (self.line_bytes - 1):
            raise ValueError(f"line_bytes = {self.line_bytes}: must be a power of two")
        return self


class Dram(_Model):
    bandwidth_gbps: float = _f("peak bandwidth, reads or writes (GB/s)", gt=0)
    channels: int = _f("independent channels; addresses interleave across them", ge=1, le=1024)
    interleave_bytes: int = _f("bytes mapped to one channel before moving to the next", ge=16)
    channel_hash: Literal["linear", "xor"] = _f("how granules map to channels: in turn, or XOR-folding the "
                                                 "higher address bits in so power-of-two strides spread")
    latency_ns: float = _f("access latency (ns)", ge=0)
    capacity_gib: int = _f("capacity (GiB)", ge=1)


class Config(_Model):
    name: str = _f("config name")
    clock_ghz: float = _f("clock of the PEs (GHz)", gt=0, le=100)
    grid: Grid
    pe: Pe
    noc: Noc
    sram: Sram
    dram: Dram

    # ---- derived per-cycle budgets ------------------------------------------------------------
    @property
    def num_pes(self) -> int:
        return self.grid.rows * self.grid.cols

    def gbps_to_bpc(self, gbps: float) -> float:
        """GB/s -> bytes per cycle at this clock."""
        return gbps / self.clock_ghz

    @property
    def dram_bpc(self) -> float:
        return self.gbps_to_bpc(self.dram.bandwidth_gbps)

    @property
    def sram_bpc(self) -> float:
        return self.gbps_to_bpc(self.sram.gbps)

    @property
    def ls_bytes(self) -> int:
        return self.pe.local_store_kib * 1024

    @property
    def dram_latency_cycles(self) -> float:
        return self.dram.latency_ns * self.clock_ghz

    def dpe_peak_flops(self, dtype: str) -> float:
        """Chip-wide DPE peak in FLOP/s (2 per MAC) for an input dtype."""
        macs = self.pe.dpe.macs_per_cycle.get(dtype)
        if macs is None:
            raise ConfigError(f"{self.name}: the DPE has no throughput for dtype {dtype} "
                              f"(pe.dpe.macs_per_cycle has {', '.join(self.pe.dpe.macs_per_cycle)})")
        return 2 * macs * self.num_pes * self.clock_ghz * 1e9

    def summary(self) -> dict[str, float]:
        return {
            "clock_ghz": self.clock_ghz, "pes": self.num_pes,
            "dpe_f16_tflops": self.dpe_peak_flops("f16") / 1e12 if "f16" in self.pe.dpe.macs_per_cycle else math.nan,
            "dram_gbps": self.dram.bandwidth_gbps, "sram_gbps": self.sram.gbps,
            "local_store_kib": self.pe.local_store_kib,
        }


# ---- loading -----------------------------------------------------------------------------------

def _is_file(p: Path) -> bool:
    try:
        return p.is_file()
    except (OSError, ValueError):     # a name too long for the file system, an embedded NUL byte
        return False


def _resolve_path(name: str | Path) -> Path:
    if not isinstance(name, (str, Path)):
        raise ConfigError(f"a config is named by a string or a path, got {name!r}")
    p = Path(name)
    if p.suffix in (".yaml", ".yml") and _is_file(p):
        return p
    cand = CONFIG_DIR / f"{name}.yaml"
    if _is_file(cand):
        return cand
    known = ", ".join(sorted(q.stem for q in CONFIG_DIR.glob("*.yaml")))
    raise ConfigError(f"no config named {str(name)!r}: give a path to a YAML file or one of: {known}")


def _read_yaml(path: Path, seen: tuple[Path, ...] = ()) -> dict:
    if path in seen:
        raise ConfigError(f"{path}: 'extends' forms a cycle through {', '.join(map(str, seen))}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text: {e}") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read it: {e.strerror or e}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {e}") from None
    except ValueError as e:           # PyYAML's constructors: a date like 2020-02-30
        raise ConfigError(f"{path}: not valid YAML: {e}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid YAML: nested too deeply") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config is a mapping of keys to values, got {type(data).__name__}")
    base = data.pop("extends", None)
    if base is None:
        return data
    if not isinstance(base, str):
        raise ConfigError(f"{path}: 'extends' names one config (a name in configs/ or a path), got {base!r}")
    parent_path = Path(base) if Path(base).is_absolute() and _is_file(Path(base)) else _resolve_path(base)
    return _merge(_read_yaml(parent_path, seen + (path,)), data)


def _merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def apply_overrides(data: dict, overrides: dict[str, Any]) -> dict:
    """Set dotted keys ('dram.bandwidth_gbps') in a config mapping; unknown keys are errors."""
    data = copy.deepcopy(data)
    if not isinstance(overrides or {}, dict):
        raise ConfigError(f"overrides map dotted keys to values, got {overrides!r}")
    for dotted, value in (overrides or {}).items():
        if not isinstance(dotted, str):
            raise ConfigError(f"override {dotted!r}: a key is a dotted string like 'dram.bandwidth_gbps'")
        node = data
        parts = dotted.split(".")
        for i, part in enumerate(parts[:-1]):
            if not isinstance(node.get(part), dict):
                raise ConfigError(f"override {dotted!r}: {'.'.join(parts[:i + 1])} is not a section of the config")
            node = node[part]
        if parts[-1] not in node and not _is_dict_field(parts):
            raise ConfigError(f"override {dotted!r}: unknown key {parts[-1]!r} "
                              f"(known: {', '.join(sorted(map(str, node)))})")
        node[parts[-1]] = value
    return data


def _is_dict_field(parts: list[str]) -> bool:
    return len(parts) >= 2 and parts[-2] in ("macs_per_cycle", "ops_per_cycle")


def _describe(loc: tuple, model: type[BaseModel] = Config) -> tuple[str, str]:
    """(unit/description, allowed range) of the field at `loc`."""
    cur: Any = model
    info = None
    for part in loc:
        if isinstance(cur, type) and issubclass(cur, BaseModel) and part in cur.model_fields:
            info = cur.model_fields[part]
            cur = info.annotation
        else:
            break
    if info is None:
        return "", ""
    bounds = []
    for m in info.metadata:
        for attr, sym in (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<=")):
            v = getattr(m, attr, None)
            if v is not None:
                bounds.append(f"{sym} {v}")
    typ = getattr(info.annotation, "__name__", str(info.annotation))
    rng = f"allowed: {typ} {' and '.join(bounds)}".rstrip()
    return info.description or "", rng


def config_from_dict(data: dict, source: str = "<dict>") -> Config:
    try:
        return Config.model_validate(data)
    except ValidationError as e:
        lines = []
        for err in e.errors():
            loc = tuple(p for p in err["loc"] if isinstance(p, str))
            key = ".".join(str(p) for p in err["loc"]) or "(top level)"
            desc, rng = _describe(loc)
            if err["type"] == "extra_forbidden":
                parent = loc[:-1]
                known = _known_keys(parent)
                lines.append(f"{key}: unknown key (known keys here: {', '.join(known)})")
                continue
            if err["type"] == "missing":
                lines.append(f"{key}: missing ({desc}; {rng})")
                continue
            got = err.get("input")
            msg = err["msg"].replace("Value error, ", "")
            extra = f" [{desc}; {rng}]" if desc else ""
            lines.append(f"{key} = {got!r}: {msg}{extra}")
        raise ConfigError(f"{source}: invalid config:\n  " + "\n  ".join(lines)) from None


def _known_keys(loc: tuple) -> list[str]:
    cur: Any = Config
    for part in loc:
        if isinstance(cur, type) and issubclass(cur, BaseModel) and part in cur.model_fields:
            cur = cur.model_fields[part].annotation
    if isinstance(cur, type) and issubclass(cur, BaseModel):
        return sorted(cur.model_fields)
    return []


def load_config(name: str | Path | Config | None = None, overrides: dict[str, Any] | None = None) -> Config:
    """A config by name (a file in configs/), path, or object, with optional dotted overrides."""
    if isinstance(name, Config):
        if not overrides:
            return name
        return config_from_dict(apply_overrides(name.model_dump(), overrides), name.name)
    path = _resolve_path(name or DEFAULT_CONFIG)
    data = _read_yaml(path)
    if overrides:
        data = apply_overrides(data, overrides)
    return config_from_dict(data, str(path))


# ---- the current config ------------------------------------------------------------------------

_current: list[Config] = []


def get_config() -> Config:
    """The config launches run on: the innermost `use_config`, else the last `set_config`, else MTIA 2i."""
    if not _current:
        _current.append(load_config(DEFAULT_CONFIG))
    return _current[-1]


def set_config(cfg: str | Path | Config, overrides: dict[str, Any] | None = None) -> Config:
    c = load_config(cfg, overrides)
    if _current:
        _current[0] = c
    else:
        _current.append(c)
    return c


@contextlib.contextmanager
def use_config(cfg: str | Path | Config, overrides: dict[str, Any] | None = None) -> Iterator[Config]:
    c = load_config(cfg, overrides)
    get_config()
    _current.append(c)
    try:
        yield c
    finally:
        _current.pop()
