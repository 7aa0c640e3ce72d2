"""`mtiasim roofline`: run workloads on one or more configs and draw them on a roofline chart."""
from __future__ import annotations

import json
import math

from ..cli import command, config_arg, config_from_args, json_arg, output_path, set_arg
from .common import percent, written


def _roofline_args(p) -> None:
    p.add_argument("runs", nargs="*", metavar="WORKLOAD[:SHAPE]",
                   help="workloads to place, e.g. gemm:2048x2048x2048 softmax:R=4096,C=1024 (default: every "
                        "workload at its quick shape)")
    p.add_argument("-o", "--out", default="roofline.png", help="chart file, .png, .svg or .pdf (default roofline.png)")
    p.add_argument("--utilization", metavar="PATH", help="also draw engine utilisation per run to PATH")
    p.add_argument("--numerics", action="store_true", help="compute the results too (default: timing only)")
    config_arg(p, repeat=True)
    set_arg(p)
    json_arg(p)


@command("roofline", "run workloads on one or more configs and draw them on a roofline chart", _roofline_args)
def cmd_roofline(a) -> int:
    from simulator.config import DEFAULT_CONFIG

    from ..plots import SAVE_FORMATS, roofline_chart, utilization_chart
    from ..workloads import format_shape, get_workload, workloads
    for path in filter(None, [a.out, a.utilization]):
        output_path(path, "chart", "roofline.png", SAVE_FORMATS)
    configs = [config_from_args(c, a.set) for c in (a.config or [DEFAULT_CONFIG])]
    specs = []
    for item in a.runs or [f"{n}" for n in workloads()]:
        name, _, shape_text = item.partition(":")
        w = get_workload(name)
        specs.append((w, w.shape(shape_text) if shape_text else w.quick_shape))
    repeated = {w.name for w, _ in specs if sum(1 for v, _ in specs if v.name == w.name) > 1}
    runs = []
    for cfg in configs:
        for w, shape in specs:
            label = f"{w.name} {format_shape(w, shape)}" if w.name in repeated else w.name
            runs.append((label, w(cfg, shape, a.numerics)))
    chart = roofline_chart(runs, configs=configs)
    written(a.out, lambda: chart.save(a.out))
    if a.utilization:
        util = utilization_chart([(f"{lbl} on {r.config}", r) for lbl, r in runs])
        written(a.utilization, lambda: util.save(a.utilization))
    if a.json:
        print(json.dumps({"out": a.out, "points": chart.points, "roofs": chart.roofs}, default=str, indent=2))
        return 0
    print(points_table(chart.points))
    print(f"\nwrote {a.out}" + (f" and {a.utilization}" if a.utilization else ""))
    return 0


def points_table(points) -> str:
    from ..tables import format_table, si
    rows = []
    for p in points:
        rows.append({"run": p["label"], "config": p["config"],
                     "FLOP/B": "inf (no DRAM)" if math.isinf(p["x"]) else f"{p['x']:.3g}",
                     "achieved": si(p["y"], "FLOP/s"), "roof here": si(p["roof_y"], "FLOP/s") if p["plotted"] else "",
                     "% of roof": round(100 * p["fraction"], 1),
                     "% of compulsory": percent(p["compulsory_fraction"]),
                     "bound": p["bound"], "note": "" if p["plotted"] else "no FLOPs: not on the chart"})
    return format_table(rows, ["run", "config", "FLOP/B", "achieved", "roof here", "% of roof", "% of compulsory",
                               "bound", "note"])
