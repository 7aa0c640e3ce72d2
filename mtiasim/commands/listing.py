"""`mtiasim workloads` and `mtiasim configs`: what can be run, and on which hardware configs."""
from __future__ import annotations

import json
from pathlib import Path

from ..cli import UsageError, command, json_arg


def _workloads_args(p) -> None:
    json_arg(p)


@command("workloads", "list the workloads run, trace, roofline and sweeps can use", _workloads_args)
def cmd_workloads(a) -> int:
    from ..tables import format_table
    from ..workloads import describe_params, format_shape, workloads
    ws = workloads()
    if a.json:
        print(json.dumps({n: {"dims": list(w.dims), "default_shape": w.default_shape, "quick_shape": w.quick_shape,
                              "description": w.description, "module": w.module} for n, w in ws.items()}, indent=2))
        return 0
    rows = [{"workload": n, "shape": " ".join(w.dims) + " = " + format_shape(w, w.default_shape),
             "options": describe_params(w).partition("; options ")[2], "description": w.description}
            for n, w in ws.items()]
    print(format_table(rows, ["workload", "shape", "options", "description"]))
    return 0


def _configs_args(p) -> None:
    p.add_argument("name", nargs="?", metavar="NAME|PATH", help="show every value of this config instead of the list")
    p.add_argument("--config", metavar="NAME|PATH", help="the same as NAME")
    json_arg(p)


@command("configs", "list the hardware configs and sweep files (or show one config)", _configs_args)
def cmd_configs(a) -> int:
    from simulator.config import CONFIG_DIR, load_config

    from ..tables import format_table
    if a.name and a.config and a.name != a.config:
        raise UsageError(f"configs {a.name} --config {a.config}: name one config")
    if a.name or a.config:
        cfg = load_config(a.name or a.config)
        print(json.dumps(cfg.model_dump(), indent=2) if a.json else _config_text(cfg))
        return 0
    rows = []
    for path in sorted(CONFIG_DIR.glob("*.yaml")):
        cfg = load_config(path)
        rows.append({"config": cfg.name, "clock GHz": cfg.clock_ghz, "grid": f"{cfg.grid.rows}x{cfg.grid.cols}",
                     "DPE f16 TFLOP/s": round(cfg.dpe_peak_flops("f16") / 1e12, 1)
                     if "f16" in cfg.pe.dpe.macs_per_cycle else None,
                     "LS KiB": cfg.pe.local_store_kib, "SRAM MiB": cfg.sram.size_mib, "SRAM GB/s": cfg.sram.gbps,
                     "DRAM": cfg.dram.kind, "DRAM GB/s": cfg.dram.bandwidth_gbps, "path": str(path.relative_to(CONFIG_DIR.parent))})
    sweeps = [{"sweep": p.stem, "path": str(p.relative_to(CONFIG_DIR.parent)), "description": _sweep_description(p)}
              for p in sorted((CONFIG_DIR / "sweeps").glob("*.yaml"))]
    if a.json:
        print(json.dumps({"configs": rows, "sweeps": sweeps}, indent=2))
        return 0
    print(format_table(rows, list(rows[0]) if rows else ["config"]))
    if sweeps:
        print("\nsweeps (mtiasim sweep PATH):")
        print(format_table(sweeps, ["sweep", "path", "description"]))
    return 0


def _sweep_description(path: Path) -> str:
    from simulator.config import read_text
    from simulator.errors import ConfigError
    from simulator.user_yaml import load_yaml
    try:
        data = load_yaml(read_text(path, ConfigError), str(path), ConfigError)
    except ConfigError as e:
        return f"(unreadable: {str(e).splitlines()[0][:80]})"
    return str(data.get("description", ""))[:200] if isinstance(data, dict) else "(not a sweep: no mapping)"


def _config_text(cfg) -> str:
    lines = [f"{cfg.name}"]

    def walk(d: dict, prefix: str):
        for k, v in d.items():
            if isinstance(v, dict):
                walk(v, f"{prefix}{k}.")
            else:
                lines.append(f"  {prefix}{k} = {v}")
    walk({k: v for k, v in cfg.model_dump().items() if k != "name"}, "")
    return "\n".join(lines)
