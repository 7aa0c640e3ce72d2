"""Named workloads: the kernels that the CLI, sweeps and notebooks can run by name.

A workload is a function `(machine_or_config, shape: dict, numerics: bool) -> Report` registered
with its shape parameters, a default shape and a one-line description. Registering is one call, and
everything built on the registry (`mtiasim run/trace/roofline/workloads`, sweep YAML files, the
notebooks) picks the workload up:

    from mtiasim.workloads import register_workload

    def vector_add(machine_or_config, shape, numerics):
        ...launch the kernel on shape["n"] elements...
        return report                       # or (report, {"max |out - ref|": err})

    register_workload("vector_add", vector_add, shape={"n": 1 << 20}, description="z = x + y, f32")

The function receives the shape as a dict with every parameter filled in (defaults for those the
caller left out). It may return `(report, checks)` where checks maps a name to a number (a numerics
check against numpy, say); `Workload.execute` keeps them, calling the workload keeps the report.

This module registers the hand-written ISA programs (gemm, softmax_isa, ...); mtiasim/kernel_workloads.py
registers the compiler's kernel library. Other modules that register workloads are found three ways,
so that parallel sweep workers (fresh processes) see the same registry as the process that planned the
sweep: the modules listed in `PROVIDERS`, `MTIASIM_WORKLOADS` (a comma-separated list of module names)
in the environment, and another installed package's entries in the `mtiasim.workloads` entry-point
group. A workload's own module is recorded, and workers import it.
"""
from __future__ import annotations

import importlib
import os
import re
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from isa.errors import bounded_repr, bounded_text
from simulator.config import Config, load_config
from simulator.errors import SimError

# Modules imported before the registry is first read; each registers its workloads on import.
PROVIDERS: list[str] = []
LIBRARY = "mtiasim.kernel_workloads"       # the kernel library's workloads, registered after the above
ENTRY_POINT_GROUP = "mtiasim.workloads"
ENV_VAR = "MTIASIM_WORKLOADS"
# The largest shape parameter: Triton kernels index with 32-bit offsets, and a dim past 2^31 elements
# is no array this simulator's host can hold (numpy would fail with a dimension or memory error).
MAX_DIM = 1 << 31


class WorkloadError(SimError, ValueError):
    """An unknown workload name, or a shape that does not fit the workload's parameters."""

    exit_code = 2          # like bad usage: the name or the shape on the command line is wrong
    one_line = True


@dataclass(frozen=True)
class Run:
    """What `Workload.execute` returns: the report and the numerics checks the workload made."""
    report: Any
    checks: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Workload:
    name: str
    fn: Callable[..., Any]
    dims: tuple[str, ...]                 # shape parameters, in the order a tuple or `--shape` gives them
    default_shape: dict[str, Any]         # a value for every dim and every option
    description: str
    quick_shape: dict[str, Any]           # runs in about a second on the full chip: notebooks, tests
    module: str                           # where it was registered (sweep workers import it)

    @property
    def options(self) -> dict[str, Any]:
        """Parameters beyond the dims (operand region, dtype, tiling), with their defaults."""
        return {k: v for k, v in self.default_shape.items() if k not in self.dims}

    def shape(self, shape: Any = None) -> dict[str, Any]:
        """`shape` (None, a tuple of dims, a dict, or text like '2048x1024' / 'M=64,K=32') completed
        with the defaults and checked against the parameters."""
        return normalize_shape(self, shape)

    def execute(self, machine_or_config: Any = None, shape: Any = None, numerics: bool = True) -> Run:
        full = self.shape(shape)
        out = self.fn(machine_or_config, full, numerics)
        if isinstance(out, tuple):
            report, checks = out
            return Run(report, dict(checks))
        return Run(out)

    def __call__(self, machine_or_config: Any = None, shape: Any = None, numerics: bool = True):
        return self.execute(machine_or_config, shape, numerics).report


_REGISTRY: dict[str, Workload] = {}
_providers_loaded = False


def register_workload(name: str, fn: Callable[..., Any], *, shape: Mapping[str, Any], description: str,
                      dims: Iterable[str] | None = None, quick_shape: Mapping[str, Any] | None = None,
                      replace: bool = False) -> Workload:
    """Add a workload. `shape` gives every parameter its default, in order; `dims` names which of
    them are the shape proper (default: the integer-valued ones), the rest are options. Registering
    a name again from the same function (a re-run notebook cell) replaces it; from another function
    it is an error unless `replace=True`."""
    if not re.fullmatch(r"[A-Za-z_][\w.-]*", name):
        raise WorkloadError(f"workload name {name!r}: use letters, digits, '_', '-' or '.'")
    default = dict(shape)
    dims = tuple(dims) if dims is not None else tuple(k for k, v in default.items() if _is_int(v))
    missing = [d for d in dims if d not in default]
    if missing:
        raise WorkloadError(f"workload {name}: dims {missing} have no default in shape={default}")
    old = _REGISTRY.get(name)
    if old is not None and not replace and _fn_id(old.fn) != _fn_id(fn):
        raise WorkloadError(f"workload {name!r} is already registered by {old.module}; pass replace=True "
                            f"to override it")
    w = Workload(name=name, fn=fn, dims=dims, default_shape=default, description=description,
                 quick_shape=dict(default), module=getattr(fn, "__module__", "__main__") or "__main__")
    if quick_shape is not None:
        object.__setattr__(w, "quick_shape", normalize_shape(w, dict(quick_shape)))
    _REGISTRY[name] = w
    return w


def workload(name: str, **kw) -> Callable:
    """Decorator form of `register_workload`."""
    def deco(fn):
        register_workload(name, fn, **kw)
        return fn
    return deco


def get_workload(name: str) -> Workload:
    _load_providers()
    w = _REGISTRY.get(name)
    if w is None:
        raise WorkloadError(f"unknown workload {bounded_repr(name)} (available: {', '.join(sorted(_REGISTRY)) or 'none'})")
    return w


def workloads() -> dict[str, Workload]:
    """Every registered workload by name, sorted."""
    _load_providers()
    return dict(sorted(_REGISTRY.items()))


def registered() -> Mapping[str, Workload]:
    """The workloads registered so far, without importing the providers (for a provider that
    checks which names are taken while it registers its own)."""
    return _REGISTRY


def import_modules(names: Iterable[str]) -> None:
    """Import modules that register workloads (sweep `imports:`, workers re-creating the registry)."""
    for mod in names:
        if mod and mod != "__main__":
            try:
                importlib.import_module(mod)
            except ImportError as e:
                raise WorkloadError(f"cannot import workload module {bounded_repr(mod)}: {e}") from None
            except Exception as e:            # the module's own code failed: say where
                where = traceback.extract_tb(e.__traceback__)[-1]
                raise WorkloadError(f"workload module {bounded_repr(mod)} failed on import at {where.filename}:"
                                    f"{where.lineno}: {type(e).__name__}: {bounded_text(str(e))}") from None


def _load_providers() -> None:
    global _providers_loaded
    if _providers_loaded:
        return
    _providers_loaded = True
    import_modules(PROVIDERS)
    import_modules(m.strip() for m in os.environ.get(ENV_VAR, "").split(","))
    import_modules([LIBRARY])
    try:
        from importlib.metadata import entry_points
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            ep.load()
    except Exception as e:          # a broken third-party plugin must not take the CLI down
        raise WorkloadError(f"loading {ENTRY_POINT_GROUP} entry points failed: {e}") from None


def _fn_id(fn) -> tuple:
    return getattr(fn, "__module__", None), getattr(fn, "__qualname__", repr(fn))


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# ---- shapes -------------------------------------------------------------------------------------

def normalize_shape(w: Workload, shape: Any) -> dict[str, Any]:
    out = dict(w.default_shape)
    if shape is None:
        return out
    if isinstance(shape, str):
        shape = parse_shape_text(w, shape)
    if isinstance(shape, Mapping):
        unknown = [k for k in shape if k not in out]
        if unknown:
            raise WorkloadError(f"{w.name}: unknown shape parameter(s) {', '.join(map(str, unknown))} "
                                f"(parameters: {describe_params(w)})")
        for k, v in shape.items():
            out[k] = _coerce(w, k, v)
        return out
    if isinstance(shape, (tuple, list)):
        if len(shape) != len(w.dims):
            raise WorkloadError(f"{w.name}: a shape is {len(w.dims)} number(s) {' '.join(w.dims)}, "
                                f"got {len(shape)}: {' '.join(map(str, shape))}")
        for k, v in zip(w.dims, shape):
            out[k] = _coerce(w, k, v)
        return out
    raise WorkloadError(f"{w.name}: a shape is a tuple, a dict or text, not {type(shape).__name__}")


def parse_shape_text(w: Workload, text: str) -> dict[str, Any] | tuple:
    """'2048x1024x512' or '2048 1024 512' (the dims in order) or 'M=2048,K=512,region=dram'."""
    text = text.strip()
    if "=" in text:
        out = {}
        for part in re.split(r"[,\s]+", text):
            if not part:
                continue
            k, sep, v = part.partition("=")
            if not sep or not k:
                raise WorkloadError(f"{w.name}: shape item {bounded_repr(part)} is not NAME=VALUE")
            out[k] = v
        return out
    return tuple(p for p in re.split(r"[x,\s]+", text) if p)


def _coerce(w: Workload, key: str, value: Any) -> Any:
    default = w.default_shape[key]
    if key in w.dims or _is_int(default):
        try:
            v = int(value) if not isinstance(value, float) or float(value).is_integer() else None
        except (TypeError, ValueError):
            v = None
        least = 1 if key in w.dims else 0          # an integer option may be 0 (off): bcast=0, prefetch=0
        if v is None or v < least:
            raise WorkloadError(f"{w.name}: shape parameter {key} = {bounded_repr(value)} must be "
                                f"{'a positive' if least else 'a non-negative'} integer")
        if v > MAX_DIM:
            raise WorkloadError(f"{w.name}: shape parameter {key} = {bounded_repr(v)} is past the largest dim "
                                f"({MAX_DIM:,}: 32-bit offsets, and no larger array fits in host memory)")
        return v
    if isinstance(default, bool):
        if isinstance(value, str):
            if value.lower() not in ("1", "0", "true", "false", "yes", "no"):
                raise WorkloadError(f"{w.name}: {key} = {bounded_repr(value)} must be true or false")
            return value.lower() in ("1", "true", "yes")
        return bool(value)
    if isinstance(default, float):
        try:
            return float(value)
        except (TypeError, ValueError):
            raise WorkloadError(f"{w.name}: {key} = {bounded_repr(value)} must be a number") from None
    if default is None and isinstance(value, str):       # an optional knob (auto when None)
        if value.lower() in ("none", "auto", ""):
            return None
        try:
            return int(value)
        except ValueError:
            return value
    return value if not isinstance(default, str) else str(value)


def describe_params(w: Workload) -> str:
    dims = " ".join(f"{d}={w.default_shape[d]}" for d in w.dims)
    opts = " ".join(f"{k}={v}" for k, v in w.options.items())
    return dims + (f"; options {opts}" if opts else "")


def format_shape(w: Workload, shape: Mapping[str, Any]) -> str:
    """'2048x2048x2048', plus the options that differ from their defaults: '...,region=dram'."""
    dims = "x".join(str(shape[d]) for d in w.dims)
    extra = [f"{k}={shape[k]}" for k, v in w.options.items() if k in shape and shape[k] != v]
    return ",".join([dims] + extra) if extra else dims


# ---- the hand-written ISA workloads -------------------------------------------------------------

def as_machine(machine_or_config: Any, numerics: bool):
    """A fresh Machine for a config (name, path or Config), or the Machine given."""
    from simulator.machine import Machine
    if isinstance(machine_or_config, Machine):
        return machine_or_config
    cfg = machine_or_config if isinstance(machine_or_config, Config) else load_config(machine_or_config)
    return Machine(cfg, numerics=numerics)


# Tile shapes the GEMM tries, largest first: bigger tiles re-read A and B less and issue fewer commands.
GEMM_TILINGS = ((256, 256, 64), (256, 256, 32), (256, 128, 32), (128, 128, 32), (128, 64, 32), (64, 64, 32),
                (32, 32, 32))


def gemm_tiling(M: int, N: int, K: int, ls_bytes: int, pes: int = 1, stages: int = 3,
                isz: int = 2) -> tuple[int, int, int]:
    """The largest tiling that divides the shape, fits the local store (`stages` A and B tiles and
    one f32 C tile) and still gives every one of `pes` PEs a tile; if none gives them all one, the
    fitting tiling with the most tiles."""
    fits = [(bm, bn, bk) for bm, bn, bk in GEMM_TILINGS
            if not (M % bm or N % bn or K % bk) and stages * (bm * bk + bk * bn) * isz + bm * bn * 4 <= ls_bytes]
    if not fits:
        raise WorkloadError(f"gemm {M}x{N}x{K}: no tile shape (BM x BN x BK, from 256x256x64 down to 32x32x32) "
                            f"divides it and fits a {ls_bytes // 1024} KiB local store; use multiples of 32")
    for t in fits:
        if (M // t[0]) * (N // t[1]) >= pes:
            return t
    return max(fits, key=lambda t: (M // t[0]) * (N // t[1]))


def _gemm(machine_or_config, shape, numerics):
    from simulator.examples.gemm import run_gemm
    m = as_machine(machine_or_config, numerics)
    M, N, K = shape["M"], shape["N"], shape["K"]
    auto = gemm_tiling(M, N, K, m.cfg.ls_bytes, m.cfg.num_pes)
    bm, bn, bk = (shape["BM"] or auto[0], shape["BN"] or auto[1], shape["BK"] or auto[2])
    for name, tile, dim, size in (("BM", bm, "M", M), ("BN", bn, "N", N), ("BK", bk, "K", K)):
        if not isinstance(tile, int) or tile % 32 or size % tile:
            raise WorkloadError(f"gemm {M}x{N}x{K}: {name} = {bounded_repr(tile)} must be a multiple of 32 that "
                                f"divides {dim} = {size}")
    try:
        rep, out, ref = run_gemm(m, M, N, K, region=shape["region"], BM=bm, BN=bn, BK=bk)
    except ValueError as e:
        raise WorkloadError(str(e)) from None
    return rep, ({"max |C - A@B|": float(abs(out - ref).max())} if numerics else {})


def _gemm_weights(machine_or_config, shape, numerics):
    from simulator.examples.gemm import run_gemm
    m = as_machine(machine_or_config, numerics)
    M, N, K = shape["M"], shape["N"], shape["K"]
    try:
        rep, out, ref = run_gemm(m, M, N, K, region="dram", act_region="sram", BM=shape["BM"], BN=shape["BN"],
                                 BK=shape["BK"], bcast=shape["bcast"], prefetch=shape["prefetch"], b_tiles=True,
                                 m_fastest=True)
    except ValueError as e:
        raise WorkloadError(str(e)) from None
    return rep, ({"max |C - A@B|": float(abs(out - ref).max())} if numerics else {})


def _softmax(machine_or_config, shape, numerics):
    from simulator.examples.softmax import run_softmax
    m = as_machine(machine_or_config, numerics)
    try:
        rep, out, ref = run_softmax(m, shape["R"], shape["C"], BR=shape["BR"], region=shape["region"])
    except ValueError as e:
        raise WorkloadError(str(e)) from None
    return rep, ({"max |y - softmax(x)|": float(abs(out - ref).max())} if numerics else {})


def _dram_stream(machine_or_config, shape, numerics):
    from simulator.examples.micro import dram_stream
    m = as_machine(machine_or_config, numerics)
    pes, chunks, chunk = m.cfg.num_pes, shape["chunks"], shape["chunk_bytes"]
    src = m.gmem.alloc(pes * chunks * chunk, "src", shape["region"])
    return m.run(dram_stream(chunks, chunk), grid=(pes,), args={"src": src})


def _dram_copy(machine_or_config, shape, numerics):
    from simulator.examples.micro import dram_copy
    m = as_machine(machine_or_config, numerics)
    pes, chunks, chunk = m.cfg.num_pes, shape["chunks"], shape["chunk_bytes"]
    src, dst = m.gmem.alloc(pes * chunks * chunk, "src"), m.gmem.alloc(pes * chunks * chunk, "dst")
    return m.run(dram_copy(chunks, chunk), grid=(pes,), args={"src": src, "dst": dst})


def _dpe_loop(machine_or_config, shape, numerics):
    from simulator.examples.micro import dpe_loop
    m = as_machine(machine_or_config, numerics)
    k, isz = shape["k"], (1 if shape["dtype"] in ("i8", "u8") else 2)
    m_, n_ = shape["m"], shape["n"]
    if m_ is None or n_ is None:         # the largest square accumulator that fits next to A and B
        side = 256
        while side > 32 and 2 * side * k * isz + side * side * 4 > m.cfg.ls_bytes:
            side //= 2
        m_, n_ = m_ or side, n_ or side
    prog = dpe_loop(shape["iters"], m_, n_, k, shape["dtype"])
    return m.run(prog, grid=(m.cfg.num_pes,))


register_workload(
    "gemm", _gemm, dims=("M", "N", "K"),
    shape={"M": 2048, "N": 2048, "K": 2048, "region": "sram", "BM": None, "BN": None, "BK": None},
    quick_shape={"M": 2048, "N": 2048, "K": 2048},
    description="C = A @ B, f16 in, f32 out; hand-written double-buffered ISA (the largest tiles that fit the LS "
                "and still give every PE one)")
register_workload(
    "gemm_weights", _gemm_weights, dims=("M", "N", "K"),
    shape={"M": 512, "N": 26592, "K": 2048, "BM": 128, "BN": 96, "BK": 128, "bcast": 4, "prefetch": 2},
    quick_shape={"M": 512, "N": 1536, "K": 2048},
    description="ISCA'25's weight-bound GEMM: activations A and C in SRAM scratch, weights B (packed tile by "
                "tile) in DRAM, broadcast to the 4 PEs of a group and prefetched into the LLC; hand-written ISA")
register_workload(
    "softmax_isa", _softmax, dims=("R", "C"), shape={"R": 4096, "C": 1024, "region": "dram", "BR": None},
    description="row softmax of an [R, C] f32 array; hand-written ISA, one block of rows per program")
register_workload(
    "dram_stream", _dram_stream, dims=("chunks", "chunk_bytes"),
    shape={"chunks": 16, "chunk_bytes": 32768, "region": "dram"},
    description="every PE streams chunks x chunk_bytes of its own DRAM slice into a CB (DRAM bandwidth; "
                "region=sram: SRAM and NoC bandwidth)")
register_workload(
    "dram_copy", _dram_copy, dims=("chunks", "chunk_bytes"), shape={"chunks": 16, "chunk_bytes": 32768},
    description="every PE copies chunks x chunk_bytes of its DRAM slice to another array (half reads, half "
                "writes: the writes reach DRAM under a write-through LLC, or when evicted)")
register_workload(
    "dpe_loop", _dpe_loop, dims=("iters",),
    shape={"iters": 64, "m": None, "n": None, "k": 32, "dtype": "f16"},
    description="every PE runs back-to-back matmuls on tiles already in its LS (DPE peak)")
