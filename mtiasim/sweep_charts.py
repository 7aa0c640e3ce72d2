"""The sweep notebook's two charts, from a sweep's results table (`mtiasim plot RESULTS.csv`):

    time_chart(rows, x, lines)        one panel per workload: time against knob `x` (log-log), one line per
                                      value of knob `lines`, and the ideal 1/x scaling from the slowest point
    fraction_heatmaps(rows, x, y)     per workload, % of roofline and % of compulsory floor over the x-y grid

The knobs are the table's dotted columns (the sweep's grid keys, e.g. dram.bandwidth_gbps); rows with an
error are left out. A sweep over two knobs gives both charts; over one, the time chart alone.
"""
from __future__ import annotations

from matplotlib.figure import Figure  # never pyplot: nothing opens a window (see plots.py)
from matplotlib.ticker import ScalarFormatter

from .plots import Chart


def knobs(rows: list[dict]) -> list[str]:
    """The swept knobs: dotted columns with more than one value, in the table's column order."""
    cols = list(dict.fromkeys(k for r in rows for k in r if "." in k))
    return [k for k in cols if len({r.get(k) for r in rows}) > 1]


def _workloads(rows: list[dict]) -> list[str]:
    return list(dict.fromkeys(r["workload"] for r in rows))


def _label(knob: str) -> str:
    return {"dram.bandwidth_gbps": "DRAM bandwidth (GB/s)", "pe.local_store_kib": "local store (KiB)"}.get(knob, knob)


def time_chart(rows: list[dict], x: str, lines: str | None) -> Chart:
    """Time against knob `x`, one panel per workload, one line per value of `lines` (see the module)."""
    names = _workloads(rows)
    fig = Figure(figsize=(5 * len(names), 3.8), layout="constrained")
    axes = fig.subplots(1, len(names), squeeze=False)[0]
    xs = sorted({r[x] for r in rows})
    points = []
    for ax, name in zip(axes, names):
        series: dict = {}
        for r in rows:
            if r["workload"] == name:
                series.setdefault(r[lines] if lines else None, []).append((r[x], r["seconds"] * 1e6))
        for value, pts in sorted(series.items(), key=lambda kv: (kv[0] is None, kv[0])):
            pts.sort()
            label = f"{_label(lines).split(' (')[0]} {value:g}" if lines else name
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=label)
            points += [{"workload": name, x: px, **({lines: value} if lines else {}), "us": py} for px, py in pts]
        slowest = max(t for pts in series.values() for _, t in pts)
        ax.plot(xs, [slowest * xs[0] / v for v in xs], "-", color="gray", alpha=0.5, label=f"ideal 1/{x.split('.')[-1]}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xticks(xs, [f"{v:g}" for v in xs])
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.set_xlabel(_label(x))
        ax.set_ylabel("time (us)")
        ax.set_title(name)
        ax.legend(fontsize=8)
    return Chart(fig, points)


def fraction_heatmaps(rows: list[dict], x: str, y: str) -> Chart:
    """% of roofline (top) and % of compulsory floor (bottom) of each workload over knobs x and y."""
    names = _workloads(rows)
    xs, ys = sorted({r[x] for r in rows}), sorted({r[y] for r in rows})
    fig = Figure(figsize=(5 * len(names), 6.2), layout="constrained")
    axes = fig.subplots(2, len(names), squeeze=False)
    points, im = [], None
    for row, (key, what) in enumerate((("roofline_fraction", "% of roofline"),
                                       ("compulsory_fraction", "% of compulsory"))):
        for ax, name in zip(axes[row], names):
            cells = {(r[y], r[x]): r.get(key) for r in rows if r["workload"] == name}
            grid = [[100 * v if isinstance(v := cells.get((yv, xv)), (int, float)) else float("nan") for xv in xs]
                    for yv in ys]
            im = ax.imshow(grid, vmin=0, vmax=100, cmap="viridis", aspect="auto")
            for i, yv in enumerate(ys):
                for j, xv in enumerate(xs):
                    v = grid[i][j]
                    if v == v:                       # not NaN: the run worked
                        ax.text(j, i, f"{v:.0f}", ha="center", va="center", color="white" if v < 60 else "black")
                        points.append({"workload": name, "metric": key, x: xv, y: yv, "percent": v})
            ax.set_xticks(range(len(xs)), [f"{v:g}" for v in xs])
            ax.set_yticks(range(len(ys)), [f"{v:g}" for v in ys])
            ax.set_xlabel(_label(x))
            ax.set_ylabel(_label(y))
            ax.set_title(f"{name}: {what}")
    if im is not None:
        fig.colorbar(im, ax=axes, shrink=0.8)
    return Chart(fig, points)
