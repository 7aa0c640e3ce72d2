"""`mtiasim roofline`: run workloads on one or more configs and draw them on a roofline chart."""
from __future__ import annotations

import json
import math

from ..cli import command, config_arg, config_from_args, json_arg, output_path, set_arg
from .common import percent, written


def _roofline_args(p) -> None:
    p.add_argument("runs", nargs="*", metavar="WORKLOAD[:SHAPE]",
                   help="workloads to place, e.g. gemm:2048x2048x2048 softmax:R=4096,C=1024; a name alone runs "
                        "its default shape (`mtiasim workloads`); none: every workload at its quick shape")
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
    specs = []                     # (workload, shape, where the shape came from)
    for item in a.runs or [f"{n}" for n in workloads()]:
        name, _, shape_text = item.partition(":")
        w = get_workload(name)
        if shape_text:
            specs.append((w, w.shape(shape_text), "given"))
        elif a.runs:               # named alone: the shape `mtiasim run NAME` runs, so the two agree
            specs.append((w, w.shape(None), "its default shape"))
        else:                      # every workload: the small shapes that keep this to a minute or so
            specs.append((w, w.quick_shape, "its quick shape"))
    runs = []
    for cfg in configs:
        for w, shape, _ in specs:
            runs.append((f"{w.name} {format_shape(w, shape)}", w(cfg, shape, a.numerics)))    # shapes in labels
    chart = roofline_chart(runs, configs=configs)
    written(a.out, lambda: chart.save(a.out))
    if a.utilization:
        util = utilization_chart(runs)             # grouped by config, a hue per workload
        written(a.utilization, lambda: util.save(a.utilization))
    if a.json:
        print(json.dumps({"out": a.out, "points": chart.points, "roofs": chart.roofs}, default=str, indent=2))
        return 0
    print(points_table(chart.points))
    chosen = sorted({why for _, _, why in specs if why != "given"})
    if chosen:
        print(f"\nshapes: {' and '.join(chosen)} where none was given (name:SHAPE picks one)")
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
