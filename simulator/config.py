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

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from isa.errors import bounded_repr, bounded_text
from isa.types import DRAM_BASE, LS_BASE, SRAM_BASE

from .errors import ConfigError
from .memory.global_memory import ALLOC_ALIGN
from .user_yaml import MAX_CHARS, load_yaml

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"
DEFAULT_CONFIG = "mtia-2i"


# What the model itself keeps in host memory is bounded, so that a config the validator accepts is one
# this simulator can hold: each PE's local store is a byte array with a byte map of what was written
# (the sanitizer), and the LLC keeps a tag, an LRU stamp, a fill time and a dirty bit (25 bytes) per
# line. 2 GiB for each leaves room for the kernels' own arrays and a second simulation (a sweep worker,
# a test) on a 24 GiB machine.
STATE_BUDGET_BYTES = 2 << 30
LLC_BYTES_PER_LINE = 25          # tag and LRU stamp (8 B each), when its fill lands (8 B), dirty (1 B)
DPE_DTYPES = ("f16", "bf16", "f32", "i8", "u8", "f8e4m3", "f8e5m2", "f64")
VECTOR_DTYPES = ("i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64")   # vector_core.rate_name's keys


# Bounds by unit, for every field whose name ends in the unit (the config's naming rule), so that a new
# field gets them too: (suffix, lowest, highest, why).
UNIT_BOUNDS = (
    ("gbps", 1e-3, 1e7, "1 MB/s to 10 PB/s: slower, a run passes 2^53 cycles, where float64 time stops counting "
                        "single cycles; faster is 1000x any memory"),
    ("ghz", 1e-3, 100, "1 MHz to 100 GHz"),
    ("cycles", 0, 1e9, "at most a second at 1 GHz: no hardware latency is near it, and times stay exact"),
    ("ns", 0, 1e9, "at most a second"),
)


class _Model(BaseModel):
    # allow_inf_nan=False: an infinite bandwidth or a NaN latency is not hardware.
    # strict: `clock_ghz: true` or `rows: "8"` is a mistake to report, not a value to convert
    # (an integer is still a valid float: `gbps: 2700`)
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, strict=True)

    @model_validator(mode="after")
    def _unit_bounds(self):
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            for suffix, lo, hi, why in UNIT_BOUNDS:
                if (name == suffix or name.endswith("_" + suffix)) and not lo <= value <= hi:
                    raise FieldValueError(name, value, f"allowed for a value in {suffix}: {lo:g} to {hi:g} ({why})")
        return self


def _f(description: str, why: str | None = None, **bounds) -> Any:
    """A required field; `why` says where its bounds come from (printed with a value out of them)."""
    return Field(..., description=description, json_schema_extra={"why": why} if why else None, **bounds)


class FieldValueError(ValueError):
    """A value that breaks a rule across fields, raised by a model validator: `key` is the field
    (dotted, relative to the model) the error message is about."""

    def __init__(self, key: str, value: Any, message: str):
        self.key, self.value = key, value
        super().__init__(message)


def _dtype_rates(field: str, rates: dict[str, int], known: tuple[str, ...]) -> None:
    for k, v in rates.items():
        if k not in known:
            raise FieldValueError(f"{field}.{k}", v, f"unknown dtype {bounded_repr(k)} (known: {', '.join(known)})")
        if v < 1:
            raise FieldValueError(f"{field}.{k}", v, "must be >= 1")


class Grid(_Model):
    rows: int = _f("PE rows of the grid", ge=1, le=64)
    cols: int = _f("PE columns of the grid", ge=1, le=64)


class ScalarCore(_Model):
    cpi: float = _f("cycles per scalar RISC-V instruction", gt=0, le=100)
    branch_taken_cycles: int = _f("extra cycles when a branch is taken", ge=0, le=100)
    issue_cycles: int = _f("cycles the core spends pushing one engine command to the CP, its operands "
                           "written before it", ge=0, le=1000)
    operand_words_per_write: int = _f("operand words (64 bits each) one custom instruction writes to the CP",
                                      ge=1, le=16)
    operand_write_cycles: float = _f("cycles of one custom instruction that writes command operands", ge=0,
                                     le=1000)
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
        _dtype_rates("macs_per_cycle", self.macs_per_cycle, DPE_DTYPES)
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

    @model_validator(mode="after")
    def _rates(self):
        if self.vlen_bits % 64:
            raise FieldValueError("vlen_bits", self.vlen_bits, "must be a multiple of 64 so that every element "
                                  "width fills a register exactly")
        _dtype_rates("ops_per_cycle", self.ops_per_cycle, VECTOR_DTYPES)
        return self


class Dma(_Model):
    gbps: float = _f("fabric-interface (DMA to NoC) bandwidth per PE (GB/s)", gt=0)
    max_outstanding: int = _f("DMA commands in flight per PE", ge=1, le=1024)
    setup_cycles: int = _f("descriptor processing per command (cycles)", ge=0)
    burst_bytes: int = _f("memory transaction size: contiguous runs are rounded up to it (bytes)", ge=1)
    align_bytes: int = _f("address alignment box transfers require (bytes)", ge=1)
    loads_pass_waiting_stores: bool = _f("a store waiting for its data lets later loads of other bytes start "
                                         "(off: transfers start in program order)")

    @model_validator(mode="after")
    def _alignment(self):
        # The compiler proves a box aligned from the boundary every array starts on (the runtime's
        # ALLOC_ALIGN) and marks the rest unaligned; an alignment that does not divide that boundary
        # fails every kernel's first aligned transfer at run time instead.
        a = self.align_bytes
        if a & (a - 1) or a > ALLOC_ALIGN:
            raise FieldValueError("align_bytes", a, f"allowed: a power of two from 1 to {ALLOC_ALIGN} (arrays "
                                  f"start on {ALLOC_ALIGN}-byte boundaries, and the compiler proves box "
                                  f"transfers aligned from them)")
        return self


class Pe(_Model):
    local_store_kib: int = _f("local store per PE (KiB)", ge=1, le=(SRAM_BASE - LS_BASE) >> 10,
                              why="a PE's address map gives the local store [0, 1 GiB)")
    local_store_gbps: float = _f("local store bandwidth, reads plus writes, one port shared by the engines "
                                 "and the DMA (GB/s)", gt=0)
    queue_depth: int = _f("commands each engine's queue in the command processor holds", ge=1, le=4096)
    cp_cycles: int = _f("cycles the command processor takes to resolve a command (dependency check, CB "
                        "pointers) before its engine may start it", ge=0, le=1000)
    command_contexts: int = _f("command contexts per engine (the ctx= form of a command): each keeps the "
                               "operands of the last command issued through it", ge=0, le=64)
    scalar: ScalarCore
    dpe: Dpe
    se: Engine
    re: Re
    mlu: Mlu
    vector: Vector
    dma: Dma


class Noc(_Model):
    hop_cycles: int = _f("latency per mesh hop (cycles)", ge=0)
    link_gbps: float = _f("bandwidth of each mesh link and edge-crossbar port, per direction (GB/s)", gt=0)


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
    llc_policy: Literal["write_back", "write_through"] = _f(
        "what a store to a cached DRAM line does: mark it dirty and write it to DRAM on eviction "
        "(write_back), or go to DRAM at once (write_through)")

    @model_validator(mode="after")
    def _split(self):
        if self.llc_mib > self.size_mib:
            raise FieldValueError("llc_mib", self.llc_mib, f"must be <= size_mib ({self.size_mib})")
        if self.llc_mib % self.unit_mib:
            raise FieldValueError("llc_mib", self.llc_mib, f"must be a multiple of unit_mib ({self.unit_mib})")
        if self.line_bytes & (self.line_bytes - 1):
            raise FieldValueError("line_bytes", self.line_bytes, "must be a power of two")
        scratch_window_mib = (DRAM_BASE - SRAM_BASE) >> 20
        if self.size_mib - self.llc_mib > scratch_window_mib:
            raise FieldValueError(
                "size_mib", self.size_mib,
                f"leaves {self.size_mib - self.llc_mib:,} MiB of scratch beside the {self.llc_mib:,} MiB LLC, but the "
                f"address map gives the scratch [{SRAM_BASE:#x}, {DRAM_BASE:#x}): allowed: size_mib - llc_mib <= "
                f"{scratch_window_mib:,}")
        lines = (self.llc_mib << 20) // self.line_bytes
        if lines * LLC_BYTES_PER_LINE > STATE_BUDGET_BYTES:
            most = STATE_BUDGET_BYTES // LLC_BYTES_PER_LINE * self.line_bytes >> 20
            raise FieldValueError(
                "llc_mib", self.llc_mib,
                f"an LLC of {lines:,} lines of {self.line_bytes} B takes {_gib(lines * LLC_BYTES_PER_LINE)} of "
                f"host memory for its tags ({LLC_BYTES_PER_LINE} B a line), over the {_gib(STATE_BUDGET_BYTES)} "
                f"this simulator allows: allowed with line_bytes {self.line_bytes}: llc_mib <= {most:,}")
        return self


class Hbm(_Model):
    """How an HBM memory is built: stacks of channels, each channel split into independent pseudo-channels
    (JESD238). Its pseudo-channels are the `channels` the DRAM model books, each with its own data bus,
    banks and row buffers."""
    stacks: int = _f("HBM stacks beside the die", ge=1, le=64)
    channels_per_stack: int = _f("channels of one stack (HBM3: 16)", ge=1, le=64)
    pseudo_channels: int = _f("independent pseudo-channels a channel splits into (HBM3: 2 of 32 data bits)",
                              ge=1, le=4)

    @property
    def total(self) -> int:
        """Pseudo-channels over all stacks: the independent data buses."""
        return self.stacks * self.channels_per_stack * self.pseudo_channels


class Dram(_Model):
    kind: Literal["lpddr5", "hbm3e"] = _f(
        "the memory technology: decides how many banks a per-bank refresh command refreshes (LPDDR5 a pair, "
        "HBM a single bank) and, for HBM, that channels are the pseudo-channels of `hbm` and addresses spread "
        "over a count that need not be a power of two (six stacks)")
    hbm: Hbm | None = Field(None, description="the stacks, channels and pseudo-channels of an HBM memory "
                                              "(required with kind hbm3e, absent otherwise)")
    bandwidth_gbps: float = _f("peak bandwidth, reads or writes (GB/s)", gt=0)
    channels: int = _f("independent channels, each with its own data bus and banks (HBM: all pseudo-channels); "
                       "addresses interleave across them", ge=1, le=1024)
    interleave_bytes: int = _f("bytes mapped to one channel before moving to the next", ge=16)
    channel_hash: Literal["linear", "xor"] = _f("how granules map to channels: in turn, or XOR-folding the "
                                                 "higher address bits in so power-of-two strides spread")
    latency_ns: float = _f("access latency (ns)", ge=0)
    capacity_gib: int = _f("capacity (GiB)", ge=1, le=1 << 20,
                           why="1 PiB; arrays are stored sparsely, so only the address space bounds it")
    banks: int = _f("banks per channel, each with one open row", ge=1, le=256)
    page_bytes: int = _f("row (page) size of a channel (bytes)", ge=32)
    activate_ns: float = _f("shortest time between activates to different banks of a channel: "
                            "max(tRRD, tFAW / 4) (ns)", ge=0)
    row_cycle_ns: float = _f("shortest time between activates to one bank, tRC (ns)", ge=0)
    read_to_write_ns: float = _f("data-bus time lost turning from reads to writes (ns)", ge=0)
    write_to_read_ns: float = _f("data-bus time lost turning from writes back to reads (ns)", ge=0)
    write_batch_bytes: int = _f("bytes of writes the controller drains per turnaround while reads are also "
                                "waiting (bytes)", ge=32)
    refresh: Literal["per_bank", "all_bank", "off"] = _f(
        "refresh mode: per-bank (REFpb, the controller works around the refreshing banks), all-bank "
        "(REFab, the channel stops), or off")
    refresh_interval_ns: float = _f("average time over which every bank is refreshed once, tREFI (ns)", gt=0)
    refresh_all_bank_ns: float = _f("channel stop per all-bank refresh, tRFCab (ns)", ge=0)
    refresh_per_bank_ns: float = _f("channel time lost per per-bank refresh command (ns); one per bank pair "
                                    "(LPDDR5) or per bank (HBM) each refresh interval", ge=0)
    ecc: bool = _f("inline ECC in the memory controller: every transfer also moves its check bytes")
    ecc_overhead: float = _f("check bytes moved per data byte when ecc is on", ge=0, le=1)

    @property
    def per_bank_refreshes(self) -> int:
        """Per-bank refresh commands per refresh interval: one per bank pair on LPDDR5 (JESD209-5: REFpb
        refreshes a bank and its pair), one per bank on HBM (JESD238: REFSB refreshes a single bank)."""
        return self.banks if self.kind == "hbm3e" else max(1, self.banks // 2)

    @model_validator(mode="after")
    def _geometry(self):
        if self.page_bytes & (self.page_bytes - 1):
            raise FieldValueError("page_bytes", self.page_bytes, "must be a power of two")
        if (self.kind == "hbm3e") != (self.hbm is not None):
            raise FieldValueError("hbm", self.hbm, "an hbm section (stacks, channels_per_stack, pseudo_channels) "
                                  "is required with kind hbm3e and not allowed with another kind")
        if self.hbm is not None and self.channels != self.hbm.total:
            h = self.hbm
            raise FieldValueError("channels", self.channels,
                                  f"must be the pseudo-channels of the hbm section: {h.stacks} stacks x "
                                  f"{h.channels_per_stack} channels x {h.pseudo_channels} = {h.total}")
        if self.refresh == "all_bank" and self.refresh_all_bank_ns >= self.refresh_interval_ns:
            raise FieldValueError("refresh_all_bank_ns", self.refresh_all_bank_ns,
                                  f"must be below refresh_interval_ns ({self.refresh_interval_ns}) or the channel "
                                  f"never runs")
        per = self.per_bank_refreshes
        if self.refresh == "per_bank" and self.refresh_per_bank_ns * per >= self.refresh_interval_ns:
            raise FieldValueError("refresh_per_bank_ns", self.refresh_per_bank_ns,
                                  f"{per} of them (one per {'bank' if self.kind == 'hbm3e' else 'bank pair'}) "
                                  f"must fit in refresh_interval_ns ({self.refresh_interval_ns})")
        return self


class Energy(_Model):
    """Energy per action and static power, Accelergy's method: a run's energy is the sum over actions of
    their count x energy per action, plus static power x time (simulator/energy.py). Each action is one
    the simulation counts anyway (MACs, element operations, bytes at each memory level, DRAM commands,
    instructions), so whatever moves the cycles moves the energy with them."""
    dpe_pj_per_mac: dict[str, float] = _f("DPE energy per multiply-accumulate by input dtype, padding of "
                                          "masked tiles included (pJ)")
    se_pj_per_op: float = _f("SIMD engine energy per element operation, an FMA counting 2 (pJ)", ge=0, le=1e4)
    re_pj_per_op: float = _f("reduction engine energy per element operation (pJ)", ge=0, le=1e4)
    mlu_pj_per_byte: float = _f("memory layout unit energy per byte it lays out (pJ)", ge=0, le=1e4)
    vector_pj_per_op: dict[str, float] = _f("RISC-V vector core energy per element operation by element "
                                            "type, an FMA counting 2 (pJ)")
    core_pj_per_instruction: float = _f("control core energy per scalar instruction: fetch, decode, "
                                        "register file, ALU (pJ)", ge=0, le=1e5)
    command_pj: float = _f("command processor energy per engine command: its dependency checks and CB "
                           "pointer updates (pJ)", ge=0, le=1e6)
    ls_pj_per_byte: float = _f("local store energy per byte read or written, by an engine or the DMA (pJ)",
                               ge=0, le=1e4)
    sram_pj_per_byte: float = _f("on-chip SRAM (LLC and scratch) energy per byte read or written (pJ)",
                                 ge=0, le=1e4)
    noc_pj_per_byte_hop: float = _f("NoC energy per byte per link it crosses (pJ)", ge=0, le=1e4)
    dram_read_pj_per_bit: float = _f("DRAM energy per bit read, column access and I/O, activates apart "
                                     "(check bits of inline ECC count as bits) (pJ)", ge=0, le=1e4)
    dram_write_pj_per_bit: float = _f("DRAM energy per bit written, as dram_read_pj_per_bit (pJ)", ge=0, le=1e4)
    dram_activate_pj: float = _f("DRAM energy per row activate and its precharge (pJ)", ge=0, le=1e7)
    dram_refresh_pj: float = _f("DRAM energy per refresh command: per bank pair (LPDDR5 REFpb), per bank "
                                "(HBM REFSB) or per channel (all-bank) as dram.refresh says (pJ)", ge=0, le=1e9)
    pe_static_w: float = _f("static power of one PE, leakage and clock tree, drawn while the chip is on (W)",
                            ge=0, le=1e3)
    uncore_static_w: float = _f("static power of everything else on the die: SRAM, NoC, crossbars, "
                                "controllers, host interface (W)", ge=0, le=1e4)
    dram_static_w: float = _f("DRAM background power: standby current and the PHYs (W)", ge=0, le=1e4)
    tdp_w: float = _f("thermal design power: average power above it makes a real chip throttle (W)",
                      gt=0, le=1e5)
    typical_w: float = _f("the published typical power of the chip (W), a calibration target", gt=0, le=1e5)
    peak_window_us: float = _f("window over which the report's peak power is averaged (us)", gt=0, le=1e6)

    @model_validator(mode="after")
    def _dtypes(self):
        for field, table, known in (("dpe_pj_per_mac", self.dpe_pj_per_mac, DPE_DTYPES),
                                    ("vector_pj_per_op", self.vector_pj_per_op, VECTOR_DTYPES)):
            for k, v in table.items():
                if k not in known:
                    raise FieldValueError(f"{field}.{k}", v, f"unknown dtype {bounded_repr(k)} "
                                          f"(known: {', '.join(known)})")
                if not 0 <= v <= 1e4:
                    raise FieldValueError(f"{field}.{k}", v, "allowed: 0 to 10000 pJ")
        return self


class Launch(_Model):
    overhead_ns: float = _f("time from a launch until the PEs start their programs (ns)", ge=0)


class Config(_Model):
    name: str = _f("config name")
    clock_ghz: float = _f("clock of the PEs (GHz)", gt=0, le=100)
    grid: Grid
    pe: Pe
    noc: Noc
    sram: Sram
    dram: Dram
    launch: Launch
    energy: Energy

    @model_validator(mode="after")
    def _energy_covers_rates(self):
        # every dtype the DPE or the vector core has a rate for needs an energy, or a run could not say
        # what it cost
        for field, rates, table in (("dpe_pj_per_mac", self.pe.dpe.macs_per_cycle, self.energy.dpe_pj_per_mac),
                                    ("vector_pj_per_op", self.pe.vector.ops_per_cycle, self.energy.vector_pj_per_op)):
            missing = [k for k in rates if k not in table]
            if missing:
                raise FieldValueError(f"energy.{field}", table, f"needs an energy for every dtype with a rate: "
                                      f"missing {', '.join(missing)}")
        return self

    @model_validator(mode="after")
    def _fits_in_host_memory(self):
        ls_state = self.num_pes * self.ls_bytes * 2          # the bytes and the sanitizer's written-byte map
        if ls_state > STATE_BUDGET_BYTES:
            most = STATE_BUDGET_BYTES // (2 * self.num_pes) >> 10
            raise FieldValueError(
                "pe.local_store_kib", self.pe.local_store_kib,
                f"{self.num_pes} PEs x {self.pe.local_store_kib:,} KiB of local store (and the sanitizer's map "
                f"of written bytes) take {_gib(ls_state)} of host memory, over the {_gib(STATE_BUDGET_BYTES)} this "
                f"simulator allows: allowed with {self.num_pes} PEs: local_store_kib <= {most:,}")
        return self

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

    def ns_to_cycles(self, ns: float) -> float:
        return ns * self.clock_ghz

    @property
    def launch_cycles(self) -> float:
        return self.launch.overhead_ns * self.clock_ghz

    @property
    def dram_ecc_factor(self) -> float:
        """Channel bytes per data byte: 1, or 1 + the check bytes with inline ECC."""
        return 1.0 + self.dram.ecc_overhead if self.dram.ecc else 1.0

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


def _gib(nbytes: int) -> str:
    return f"{nbytes / (1 << 30):,.3g} GiB"


# ---- loading -----------------------------------------------------------------------------------

def _is_file(p: Path) -> bool:
    try:
        return p.is_file()
    except (OSError, ValueError):     # a name too long for the file system, an embedded NUL byte
        return False


def resolve_path(name: str | Path) -> Path:
    """The YAML file a config name or path stands for (a name is looked up in configs/)."""
    if not isinstance(name, (str, Path)):
        raise ConfigError(f"a config is named by a string or a path, got {bounded_repr(name)}")
    p = Path(name)
    if p.suffix in (".yaml", ".yml") and _is_file(p):
        return p
    cand = CONFIG_DIR / f"{name}.yaml"
    if _is_file(cand):
        return cand
    known = ", ".join(sorted(q.stem for q in CONFIG_DIR.glob("*.yaml")))
    raise ConfigError(f"no config named {bounded_repr(str(name))}: give a path to a YAML file or one of: {known}")


def read_yaml(path: Path, seen: tuple[Path, ...] = ()) -> dict:
    """A config file's mapping with its `extends` chain merged in (the sweep reader uses it too)."""
    if path in seen:
        raise ConfigError(f"{path}: 'extends' forms a cycle through {', '.join(map(str, seen))}")
    data = load_yaml(read_text(path, ConfigError), str(path), ConfigError)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config is a mapping of keys to values, got {type(data).__name__}")
    if "grid" in data and "workloads" in data:
        raise ConfigError(f"{path} is a sweep file (it has grid and workloads), not a hardware config: run it with "
                          f"`mtiasim sweep {path}`")
    base = data.pop("extends", None)
    if base is None:
        return data
    if not isinstance(base, str):
        raise ConfigError(f"{path}: 'extends' names one config (a name in configs/ or a path), "
                          f"got {bounded_repr(base)}")
    parent_path = Path(base) if Path(base).is_absolute() and _is_file(Path(base)) else resolve_path(base)
    return _merge(read_yaml(parent_path, seen + (path,)), data)


def read_text(path: Path, error: type[Exception]) -> str:
    """A user's YAML file as text, refused before reading when it is larger than any config."""
    try:
        size = path.stat().st_size
        if size > MAX_CHARS:
            raise error(f"{path}: {size:,} bytes is more than a config or sweep file holds (at most {MAX_CHARS:,})")
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{path}: not UTF-8 text: {e}") from None
    except OSError as e:
        raise error(f"{path}: cannot read it: {e.strerror or e}") from None


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
        raise ConfigError(f"overrides map dotted keys to values, got {bounded_repr(overrides)}")
    for dotted, value in (overrides or {}).items():
        if not isinstance(dotted, str):
            raise ConfigError(f"override {bounded_repr(dotted)}: a key is a dotted string like 'dram.bandwidth_gbps'")
        node = data
        parts = dotted.split(".")
        for i, part in enumerate(parts[:-1]):
            if not isinstance(node.get(part), dict):
                raise ConfigError(f"override {bounded_repr(dotted)}: {bounded_text('.'.join(parts[:i + 1]), 100)} "
                                  f"is not a section of the config")
            node = node[part]
        if parts[-1] not in node and not _is_dict_field(parts):
            raise ConfigError(f"override {bounded_repr(dotted)}: unknown key {bounded_repr(parts[-1])} "
                              f"(known: {', '.join(sorted(map(str, node)))})")
        node[parts[-1]] = value
    return data


def _is_dict_field(parts: list[str]) -> bool:
    return len(parts) >= 2 and parts[-2] in ("macs_per_cycle", "ops_per_cycle", "dpe_pj_per_mac", "vector_pj_per_op")


def _section(annotation: Any) -> Any:
    """The model of a section field, seen through `| None` (an optional section such as dram.hbm)."""
    args = [a for a in getattr(annotation, "__args__", ()) if a is not type(None)]
    return args[0] if len(args) == 1 and isinstance(args[0], type) and issubclass(args[0], BaseModel) else annotation


def _describe(loc: tuple, model: type[BaseModel] = Config) -> tuple[str, str]:
    """(unit/description, allowed range and where it comes from) of the field at `loc`."""
    cur: Any = model
    info = None
    for i, part in enumerate(loc):
        if isinstance(cur, type) and issubclass(cur, BaseModel) and part in cur.model_fields:
            info = cur.model_fields[part]
            cur = _section(info.annotation)
        elif info is not None and i == len(loc) - 1:      # an entry of a dict field (a dtype's rate)
            return info.description or "", ""
        else:
            return "", ""
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
    why = (info.json_schema_extra or {}).get("why")
    return info.description or "", f"{rng}: {why}" if why and bounds else rng


MAX_ERROR_LINES = 20      # a file of a thousand unknown keys gets the first 20 and a count


def _dotted(loc: tuple) -> str:
    return ".".join(p if isinstance(p, str) and len(p) <= 60 else bounded_repr(p, 60) for p in loc) or "(top level)"


def _error_line(err: dict) -> str:
    loc = tuple(err["loc"])
    got = err.get("input")
    msg = err["msg"].replace("Value error, ", "")
    cause = (err.get("ctx") or {}).get("error")
    if isinstance(cause, FieldValueError):           # a rule across fields names the field it is about
        loc, got = loc + tuple(cause.key.split(".")), cause.value
    key = _dotted(loc)
    desc, rng = _describe(tuple(p for p in loc if isinstance(p, str)))
    if isinstance(cause, FieldValueError):
        rng = ""                                      # its message states the rule and the range
    if err["type"] == "extra_forbidden":
        return f"{key}: unknown key (known keys here: {', '.join(_known_keys(loc[:-1]))})"
    about = "; ".join(filter(None, (desc, rng)))
    if err["type"] == "missing":
        return f"{key}: missing ({about})"
    return f"{key} = {bounded_repr(got)}: {msg}" + (f" [{about}]" if about else "")


def config_from_dict(data: dict, source: str = "<dict>") -> Config:
    try:
        return Config.model_validate(data)
    except ValidationError as e:
        errors = e.errors()
        lines = [_error_line(err) for err in errors[:MAX_ERROR_LINES]]
        if len(errors) > MAX_ERROR_LINES:
            lines.append(f"... and {len(errors) - MAX_ERROR_LINES} more")
        raise ConfigError(f"{source}: invalid config:\n  " + "\n  ".join(lines)) from None


def _known_keys(loc: tuple) -> list[str]:
    cur: Any = Config
    for part in loc:
        if isinstance(cur, type) and issubclass(cur, BaseModel) and part in cur.model_fields:
            cur = _section(cur.model_fields[part].annotation)
    if isinstance(cur, type) and issubclass(cur, BaseModel):
        return sorted(cur.model_fields)
    return []


def load_config(name: str | Path | Config | None = None, overrides: dict[str, Any] | None = None) -> Config:
    """A config by name (a file in configs/), path, or object, with optional dotted overrides."""
    if isinstance(name, Config):
        if not overrides:
            return name
        return config_from_dict(apply_overrides(name.model_dump(), overrides), name.name)
    path = resolve_path(name or DEFAULT_CONFIG)
    data = read_yaml(path)
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
