"""Commands over results: `mtiasim plot RESULTS.csv` draws a sweep table's charts, `mtiasim compare A B`
shows per-metric deltas of two configs (one workload run on each) or of two saved runs.

    mtiasim plot dram-x-ls.csv                          dram-x-ls_time.png, dram-x-ls_fractions.png
    mtiasim compare mtia-2i mtia-v1 -w matmul --shape 1024x1024x1024
    mtiasim compare a.json b.json                       two `mtiasim run ... --json` outputs
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from ..cli import UsageError, command, config_from_args, json_arg, output_path, set_arg
from .common import written


def _plot_args(p) -> None:
    p.add_argument("results", help="a sweep's results table (.csv or .parquet), as `mtiasim sweep --out` writes it")
    p.add_argument("-o", "--out", help="chart name: NAME.png gives NAME_time.png and NAME_fractions.png "
                                       "(default: beside the table, after its name)")
    p.add_argument("--x", metavar="KNOB", help="the knob along the x axis (default: the table's first swept knob)")
    p.add_argument("--lines", metavar="KNOB", help="one line per value of this knob (default: the second knob)")


@command("plot", "draw a sweep table's charts: time against a knob, and %% of roofline over two knobs", _plot_args)
def cmd_plot(a) -> int:
    from ..sweep import read_table
    from ..sweep_charts import fraction_heatmaps, knobs, time_chart
    table = Path(a.results)
    if not table.is_file():
        raise UsageError(f"no results table {a.results}: give the .csv or .parquet `mtiasim sweep --out` wrote")
    base = Path(a.out) if a.out else table.with_suffix(".png")
    suffix = base.suffix.lower() or ".png"
    paths = {what: output_path(str(base.with_name(f"{base.stem}_{what}{suffix}")), "chart", "chart.png",
                               (".png", ".svg", ".pdf")) for what in ("time", "fractions")}
    rows = [r for r in read_table(table) if not r.get("error")]
    if not rows:
        raise UsageError(f"{a.results}: no run without an error to plot")
    swept = knobs(rows)
    for given in (a.x, a.lines):
        if given and given not in swept:
            raise UsageError(f"{given}: not a swept knob of {a.results} (its knobs: {', '.join(swept) or 'none'})")
    x = a.x or (swept[0] if swept else None)
    if x is None:
        raise UsageError(f"{a.results}: no knob takes more than one value: nothing to plot against")
    others = [k for k in swept if k != x]
    lines = a.lines or (others[0] if others else None)
    written(paths["time"], lambda: time_chart(rows, x, lines).save(paths["time"]))
    print(f"wrote {paths['time']}: time against {x}" + (f", a line per {lines}" if lines else ""))
    if lines:
        written(paths["fractions"], lambda: fraction_heatmaps(rows, lines, x).save(paths["fractions"]))
        print(f"wrote {paths['fractions']}: % of roofline and of compulsory over {lines} x {x}")
    return 0


def _compare_args(p) -> None:
    p.add_argument("a", metavar="A", help="a config (name or YAML path) or a saved run (`mtiasim run ... --json` output)")
    p.add_argument("b", metavar="B", help="the same kind as A")
    p.add_argument("-w", "--workload", default="matmul", help="for two configs: the workload to run (default matmul)")
    p.add_argument("--shape", nargs="+", metavar="N", help="for two configs: the workload's shape")
    p.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE", help="a workload option")
    p.add_argument("--all", action="store_true", help="every metric, the unchanged ones too")
    set_arg(p)
    json_arg(p)


@command("compare", "per-metric deltas of two configs (a workload run on each) or of two saved runs", _compare_args)
def cmd_compare(a) -> int:
    from ..tables import format_table
    if a.a.endswith(".json") != a.b.endswith(".json"):
        raise UsageError(f"compare {a.a} {a.b}: give two configs or two saved runs (.json), not one of each")
    if a.a.endswith(".json"):
        left, right = _saved(a.a), _saved(a.b)
        title = f"{a.a} -> {a.b}"
    else:
        from .common import workload_and_shape
        w, shape = workload_and_shape(a.workload, a.shape, a.param, None)
        cfgs = [config_from_args(name, a.set) for name in (a.a, a.b)]
        config_rows = _deltas(_flat(cfgs[0].model_dump()), _flat(cfgs[1].model_dump()), a.all)
        left, right = (_flat(w.execute(cfg, shape, numerics=False).report.row()) for cfg in cfgs)
        title = f"{w.name} on {a.a} -> {a.b}"
    rows = _deltas(left, right, a.all)
    if a.json:
        out = {"compare": title, "metrics": rows}
        if not a.a.endswith(".json"):
            out["config"] = config_rows
        print(json.dumps(out, default=str, indent=2))
        return 0
    if not a.a.endswith(".json"):
        print(f"config: {a.a} -> {a.b}" + ("" if config_rows else ": the same values"))
        if config_rows:
            print(format_table(config_rows, ["metric", "a", "b", "delta", "ratio"], ["key", a.a, a.b, "delta", "b / a"]))
        print()
    print(title)
    print(format_table(rows, ["metric", "a", "b", "delta", "ratio"], ["metric", "A", "B", "delta", "B / A"])
          if rows else "  every metric the same")
    return 0


def _saved(path: str) -> dict:
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise UsageError(f"no such run file: {path}") from None
    except (OSError, ValueError) as e:
        raise UsageError(f"{path}: not a saved run (`mtiasim run ... --json > {Path(path).name}`): {e}") from None
    if isinstance(data, list):                      # `mtiasim run SCRIPT.py --json`: one report per launch
        if len(data) != 1:
            raise UsageError(f"{path} holds {len(data)} launches; compare one launch's report (a list of one)")
        data = data[0]
    if not isinstance(data, dict) or "cycles" not in data:
        raise UsageError(f"{path}: not a saved run: no cycles in it (save one with `mtiasim run ... --json`)")
    return _flat(data)


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        elif not isinstance(v, list):
            out[f"{prefix}{k}"] = v
    return out


_NOISE = ("wall_seconds", "run_seconds", "compile_seconds")     # host time: differs between any two runs


def _deltas(left: dict, right: dict, everything: bool) -> list[dict]:
    rows = []
    for key in dict.fromkeys([*left, *right]):
        if key.split(".")[-1] in _NOISE:
            continue
        x, y = left.get(key), right.get(key)
        if x == y and not everything:
            continue
        row = {"metric": key, "a": x, "b": y}
        if _number(x) and _number(y):
            row["delta"] = y - x
            row["ratio"] = round(y / x, 4) if x else None
        rows.append(row)
    return rows


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
