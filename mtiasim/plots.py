"""Charts of simulated runs: the roofline, engine utilisation, a per-PE heatmap, and energy (by
component per run; perf/W against a swept knob).

Figures are built as plain `matplotlib.figure.Figure` objects (never through pyplot), so nothing
opens a window and scripts, tests and CI render with Agg; a notebook shows one with
`display(chart.figure)`. Every function returns a `Chart`: the figure plus the coordinates it
plotted, so that callers (and tests) can check what is on the chart without reading pixels.

    chart = roofline_chart([("gemm", rep1), ("softmax", rep2)], configs=[load_config("mtia-2i")])
    chart.save("roofline.svg")

The roofline's x axis is arithmetic intensity in FLOPs per DRAM byte and its y axis FLOP/s, both
logarithmic. Each config draws its compute roofs (DPE at f16 and i8, SE, and any other DPE dtype a
run used) as ceilings min(peak, DRAM bandwidth x intensity), and its SRAM bandwidth as a dashed
slope. A run that moved no DRAM bytes has infinite intensity: it is drawn at the right edge with a
'>' marker, and its point keeps x = inf.

A point's "% of roof" is its report's (`Roofline.fraction`: the run's floor over its time, whatever
unit binds: DRAM, SRAM, the NoC or one of the engines), not its distance to the lines drawn, which
show only the DRAM slope and the compute peaks; `roof_y` is the FLOP/s that floor allows. Beside it
stands the fraction of the compulsory floor (simulator/report.py), which no excess traffic improves.

A PyTorch model's run through Inductor (`compiler.inductor.simulate`) charts its kernels with
`model_roofline_chart(report)`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from simulator.config import Config, load_config
from simulator.report import ENGINES, Report

SAVE_FORMATS = (".png", ".svg", ".pdf")
COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink",
           "tab:olive", "tab:cyan", "tab:gray")
ALWAYS_DPE = ("f16", "i8")      # DPE roofs every chart shows; others only when a run used them
ROOF_STYLES = {"dpe": "-", "se": ":", "re": ":", "dram": "-", "sram": "--"}
NUMBERED_ABOVE = 12             # more points than this: numbers on the chart, names in a key
LABEL_BOX = dict(boxstyle="square,pad=0.1", fc="white", ec="none", alpha=0.8)   # roof lines behind a label fade


@dataclass
class Chart:
    figure: Figure
    points: list[dict] = field(default_factory=list)     # what each marker or bar stands for, and where
    roofs: list[dict] = field(default_factory=list)      # the lines drawn (roofline only)

    def save(self, path: str | Path, dpi: int = 150) -> Path:
        return save_figure(self.figure, path, dpi)


def save_figure(fig: Figure, path: str | Path, dpi: int = 150) -> Path:
    p = Path(path)
    if p.suffix.lower() not in SAVE_FORMATS:
        raise ValueError(f"{p}: save a chart as {', '.join(SAVE_FORMATS)}")
    fig.savefig(p, dpi=dpi, bbox_inches="tight")
    return p


# ---- roofs ----------------------------------------------------------------------------------------

def config_roofs(cfg: Config, dpe_dtypes: Iterable[str] = ()) -> list[dict]:
    """The roofs of a config: compute ones in FLOP/s, memory ones in bytes/s, each with its ridge
    (the intensity where the DRAM slope meets it)."""
    hz = cfg.clock_ghz * 1e9
    dram = cfg.dram.bandwidth_gbps * 1e9
    out = []
    seen_peaks: dict[float, dict] = {}
    for dt in dict.fromkeys([*ALWAYS_DPE, *dpe_dtypes]):
        if dt not in cfg.pe.dpe.macs_per_cycle:
            continue
        peak = cfg.dpe_peak_flops(dt)
        if peak in seen_peaks:             # same datapath rate: one line, both names
            seen_peaks[peak]["name"] += f"/{dt}"
            seen_peaks[peak]["dtypes"].append(dt)
            continue
        roof = {"config": cfg.name, "kind": "compute", "engine": "dpe", "name": f"DPE {dt}", "dtypes": [dt],
                "value": peak, "ridge": peak / dram}
        seen_peaks[peak] = roof
        out.append(roof)
    for eng in ("se",):
        peak = getattr(cfg.pe, eng).elems_per_cycle * cfg.num_pes * hz
        out.append({"config": cfg.name, "kind": "compute", "engine": eng, "name": eng.upper(), "dtypes": [],
                    "value": peak, "ridge": peak / dram})
    top = max(r["value"] for r in out)
    out.append({"config": cfg.name, "kind": "memory", "engine": "dram", "name": "DRAM", "value": dram,
                "ridge": top / dram})
    sram = cfg.sram.gbps * 1e9
    out.append({"config": cfg.name, "kind": "memory", "engine": "sram", "name": "SRAM", "value": sram,
                "ridge": top / sram})
    return out


def roof_at(roofs: Sequence[dict], x: float, compute_roof: str) -> float:
    """The attainable FLOP/s at intensity x under one compute roof ('dpe:f16', 'se') and DRAM."""
    compute = _compute_roof(roofs, compute_roof)["value"]
    dram = next(r["value"] for r in roofs if r["engine"] == "dram")
    return compute if math.isinf(x) else min(compute, dram * x)


def _compute_roof(roofs: Sequence[dict], compute_roof: str) -> dict:
    eng, _, dt = compute_roof.partition(":")
    for r in roofs:
        if r["kind"] == "compute" and r["engine"] == eng and (not dt or dt in r["dtypes"]):
            return r
    raise KeyError(f"no {compute_roof} roof among {[r['name'] for r in roofs]}")


# ---- the roofline chart ---------------------------------------------------------------------------

def roofline_chart(runs: Iterable[Report | tuple[str, Report]], configs: Sequence[Config] | None = None,
                   title: str | None = None, ax=None, numbered: bool | None = None,
                   numbers: Sequence[int] | None = None) -> Chart:
    """Runs as labelled points over the roofs of their configs (several configs share one chart,
    each in its colour). `configs` are matched to runs by name; by default each run's config is
    loaded by name from configs/. Runs that did no FLOPs (a pure copy) cannot sit on a log axis:
    they are left out and listed in the chart's points with `plotted: False`.

    Each point is labelled with its name and its fraction of the roof above it; with many points
    (`numbered`, by default past NUMBERED_ABOVE) each gets a number instead, the same for the same
    label on every config, with a key beside the chart; `numbers` gives each run its number (a table's
    row numbers, so that chart and table agree; numbered then by default)."""
    labelled = [(r.kernel, r) if isinstance(r, Report) else (str(r[0]), r[1]) for r in runs]
    by_name: dict[str, Config] = {c.name: c for c in (configs or [])}
    for _, rep in labelled:
        if rep.config not in by_name:
            by_name[rep.config] = load_config(rep.config)
    used = {name: [rep.roofline.compute_roof.split(":")[1] for _, rep in labelled
                   if rep.config == name and rep.roofline.compute_roof.startswith("dpe:")]
            for name in by_name}
    roofs = {name: config_roofs(cfg, used[name]) for name, cfg in by_name.items()}
    colour = {name: COLOURS[i % len(COLOURS)] for i, name in enumerate(by_name)}

    points = []
    for label, rep in labelled:
        rf = rep.roofline
        x, y = rf.arithmetic_intensity, rf.achieved_flops
        plotted = y > 0 and x > 0
        comp = rep.compulsory
        points.append({"label": label, "config": rep.config, "kernel": rep.kernel, "x": x, "y": y,
                       "plotted": plotted, "bound": rf.bound, "compute_roof": rf.compute_roof,
                       "roof_y": rf.attainable_flops if plotted else float("nan"), "fraction": rf.fraction,
                       "compulsory_fraction": comp.fraction if comp is not None else float("nan")})

    xlo, xhi, ylo, yhi = _limits(points, roofs)
    fig, ax = _figure(ax, (10, 5.5))
    ax.set_xscale("log")
    ax.set_yscale("log")
    xs = np.geomspace(xlo, xhi, 400)
    all_roofs = []
    for name, rs in roofs.items():
        dram = next(r["value"] for r in rs if r["engine"] == "dram")
        top = max(r["value"] for r in rs if r["kind"] == "compute")
        for r in rs:
            if r["kind"] == "compute":
                ys = np.minimum(r["value"], dram * xs)
                label = f"{name}: {r['name']} {_si(r['value'], 'FLOP/s')}"
                lw = 2.0 if r["name"].startswith("DPE f16") else 1.2
            else:
                ys = np.minimum(top, r["value"] * xs)
                label = f"{name}: {r['name']} {_si(r['value'], 'B/s')}"
                lw = 1.2
            ax.plot(xs, ys, ROOF_STYLES[r["engine"]], color=colour[name], lw=lw, label=label,
                    alpha=0.9 if r["kind"] == "compute" else 0.6)
            all_roofs.append(dict(r))
    if numbered is None:
        numbered = numbers is not None or sum(p["plotted"] for p in points) > NUMBERED_ABOVE
    given = list(numbers) if numbers is not None else None
    by_label: dict[str, int] = {}                   # label -> its number (without `numbers`)
    key_rows: dict[int, str] = {}                   # number -> label, for the key
    labels = []                                     # (annotation, x, y) of each label: placed at the end
    for i, p in enumerate(points):
        if not p["plotted"]:
            p["x_plotted"] = p["y_plotted"] = None
            continue
        edge = math.isinf(p["x"])
        p["x_plotted"] = xhi / 1.5 if edge else p["x"]
        p["y_plotted"] = p["y"]
        ax.scatter([p["x_plotted"]], [p["y"]], marker=">" if edge else "o", s=60, color=colour[p["config"]],
                   edgecolors="black", zorder=5)
        if numbered:
            p["number"] = given[i] if given is not None else by_label.setdefault(p["label"], len(by_label) + 1)
            key_rows[p["number"]] = p["label"]
            text = str(p["number"])
        else:
            text = f"{p['label']} ({fractions_text(p['fraction'], p['compulsory_fraction'])})"
        ann = ax.annotate(text, (p["x_plotted"], p["y"]), textcoords="offset points",
                          xytext=(-8 if edge else 6, 0), ha="right" if edge else "left", va="center",
                          fontsize=8, color=colour[p["config"]], bbox=LABEL_BOX)
        labels.append((ann, p["x_plotted"], p["y"]))
    ax.set_xlim(xlo, xhi)
    ax.set_ylim(ylo, yhi)
    ax.set_xlabel("arithmetic intensity (FLOP per DRAM byte)")
    ax.set_ylabel("FLOP/s")
    ax.set_title(title or "Roofline: " + ", ".join(by_name))
    ax.grid(True, which="major", alpha=0.3)
    legend = ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), framealpha=0.9)
    if numbered and key_rows:
        key = "\n".join(f"{n:>2}  {label}" for n, label in sorted(key_rows.items()))
        key_text = ax.text(1.02, 0.0, key, transform=ax.transAxes, ha="left", va="bottom", fontsize=7,
                           family="monospace")
        _key_below_legend(fig, ax, legend, key_text)
    _place_labels(fig, ax, labels)
    if any(p["plotted"] and math.isinf(p["x"]) for p in points):
        ax.text(0.99, 0.01, "> : no DRAM traffic (infinite intensity)", transform=ax.transAxes, ha="right",
                va="bottom", fontsize=7, color="dimgray")
    return Chart(fig, points, all_roofs)


def fractions_text(fraction: float, compulsory: float) -> str:
    """'93% of roof, 41% of compulsory': the two fractions a run is judged by, always together."""
    text = f"{100 * fraction:.0f}% of roof"
    return text if math.isnan(compulsory) else f"{text}, {100 * compulsory:.0f}% of compulsory"


def _axes_fraction(v: float, lo: float, hi: float) -> float:
    return (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))


# label offsets to try, in points from the marker (ha: which side of the text sits there), nearest first
_CANDIDATES = [(dx, dy, ha) for dy in (0, 10, -10, 20, -20, 30, -30, 40, -40, 52, -52, 64, -64)
               for dx, ha in ((6, "left"), (-6, "right"))]


def _place_labels(fig, ax, labels: list) -> None:
    """Give each label the nearest spot where it covers no other label, no marker, the legend or the key
    and stays inside the axes, measured on the drawn figure (its real text extents); a label moved off
    its marker gets a thin leader line. Where no spot is free, the one that overlaps least."""
    if not labels:
        return
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()                                   # lays the figure out: positions are final from here
    renderer = canvas.get_renderer()
    r = 4.5 * fig.dpi / 72                          # a marker's radius (s=60 points^2), in pixels
    markers = [Bbox.from_extents(px - r, py - r, px + r, py + r)
               for px, py in (ax.transData.transform((x, y)) for _, x, y in labels)]
    frame = ax.get_window_extent(renderer)
    mine = {id(ann) for ann, _, _ in labels}
    taken = [a.get_window_extent(renderer) for a in (ax.get_legend(), *ax.texts) if a is not None and id(a) not in mine]

    def overlap(b) -> float:
        area = sum(_area(b, o) for o in taken + markers)
        outside = b.width * b.height - _area(b, frame)
        return area + 4 * outside
    for ann, x, y in labels:
        edge = ann.get_horizontalalignment() == "right"
        best = None
        for dx, dy, ha in (_CANDIDATES if not edge else [(-abs(dx), dy, "right") for dx, dy, _ in _CANDIDATES]):
            ann.set_position((dx, dy))
            ann.set_horizontalalignment(ha)
            box = ann.get_window_extent(renderer)
            cost = overlap(box)
            if best is None or cost < best[0]:
                best = (cost, dx, dy, ha, box)
            if cost == 0:
                break
        _, dx, dy, ha, box = best
        ann.set_position((dx, dy))
        ann.set_horizontalalignment(ha)
        if dy:                                      # moved off its marker: drawn again with a leader line
            text, colour = ann.get_text(), ann.get_color()
            ann.remove()
            ax.annotate(text, (x, y), textcoords="offset points", xytext=(dx, dy), ha=ha, va="center", fontsize=8,
                        color=colour, bbox=LABEL_BOX,
                        arrowprops=dict(arrowstyle="-", color=colour, lw=0.5, shrinkA=0, shrinkB=4))
        taken.append(box)


def _area(a, b) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


def _key_below_legend(fig, ax, legend, key) -> None:
    """The numbered key starts under the legend (both sit right of the axes), so the two never overlap."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    box = legend.get_window_extent(canvas.get_renderer()).transformed(ax.transAxes.inverted())
    key.set_position((1.02, box.y0 - 0.03))
    key.set_verticalalignment("top")


def _limits(points: list[dict], roofs: dict[str, list[dict]]) -> tuple[float, float, float, float]:
    ridges = [r["ridge"] for rs in roofs.values() for r in rs if r["kind"] == "compute"]
    xs = [p["x"] for p in points if p["plotted"] and math.isfinite(p["x"])]
    xlo = 10 ** math.floor(math.log10(min(xs + ridges) / 4))
    xhi = 10 ** math.ceil(math.log10(max(xs + ridges) * 8))
    peaks = [r["value"] for rs in roofs.values() for r in rs if r["kind"] == "compute"]
    drams = [r["value"] for rs in roofs.values() for r in rs if r["engine"] == "dram"]
    ys = [p["y"] for p in points if p["plotted"]]
    ylo = 10 ** math.floor(math.log10(min(ys + [min(drams) * xlo]) / 2))
    yhi = 10 ** math.ceil(math.log10(max(peaks + ys) * 2))
    return xlo, xhi, ylo, yhi


# ---- utilisation ----------------------------------------------------------------------------------

def model_roofline_chart(report, config: Config | str | None = None) -> Chart:
    """The kernels of a model's run (a `compiler.inductor.ModelReport`) on the roofline of `config`
    (default: the config the run was on)."""
    cfg = config if isinstance(config, Config) else load_config(config or report.config)
    runs = [(label, k.report) for label, k in zip(report.launch_labels(), report.kernels)]
    return roofline_chart(runs, configs=[cfg], numbers=range(1, len(runs) + 1))      # the table's `#` column


HATCHES = ("", "//", "..", "xx", "\\\\", "++")     # one per config, where bars of several configs share a chart


def utilization_chart(runs: Iterable[Report | tuple[str, Report]], engines: Sequence[str] = (*ENGINES, "core"),
                      title: str | None = None, ax=None) -> Chart:
    """Mean busy fraction of each engine (over the PEs that ran): a group of bars per engine, in it the
    runs grouped by config, one hue per workload (its label) and, with several configs, one hatch per
    config, so the same workload on two configs sits in the same colour."""
    labelled = [(r.kernel, r) if isinstance(r, Report) else (str(r[0]), r[1]) for r in runs]
    configs = list(dict.fromkeys(r.config for _, r in labelled))
    names = list(dict.fromkeys(label for label, _ in labelled))
    ordered = sorted(labelled, key=lambda lr: (configs.index(lr[1].config), names.index(lr[0])))
    fig, ax = _figure(ax, (10, 4))
    n = max(len(ordered), 1)
    width = 0.8 / n
    palette = COLOURS if len(names) <= len(COLOURS) else [matplotlib.colormaps["tab20"](i) for i in range(20)]
    hue = {name: palette[i % len(palette)] for i, name in enumerate(names)}
    hatch = {c: HATCHES[i % len(HATCHES)] if len(configs) > 1 else "" for i, c in enumerate(configs)}
    idx = np.arange(len(engines))
    points = []
    for i, (label, rep) in enumerate(ordered):
        vals = [100 * rep.utilization.get(e, 0.0) for e in engines]
        ax.bar(idx + (i - (n - 1) / 2) * width, vals, width, color=hue[label], hatch=hatch[rep.config],
               edgecolor="white" if hatch[rep.config] else None, linewidth=0)
        points += [{"label": label, "config": rep.config, "engine": e, "value": v / 100} for e, v in zip(engines, vals)]
    from matplotlib.patches import Patch
    handles = [Patch(color=hue[name], label=name) for name in names]
    if len(configs) > 1:
        handles += [Patch(facecolor="lightgray", hatch=hatch[c], edgecolor="white", label=c) for c in configs]
    ax.set_xticks(idx, [e.upper() if e != "core" else "core" for e in engines])
    ax.set_ylabel("busy (% of run time)")
    ax.set_ylim(0, 105)
    ax.set_title(title or "Engine utilisation" + (f": {' | '.join(configs)} (hatched by config)" if len(configs) > 1 else ""))
    ax.legend(handles=handles, fontsize=7, ncols=1 if len(handles) <= 12 else 2, loc="upper left",
              bbox_to_anchor=(1.01, 1.0))
    ax.grid(True, axis="y", alpha=0.3)
    return Chart(fig, points)


def pe_heatmap(report: Report, engine: str = "dpe", grid: tuple[int, int] | None = None,
               title: str | None = None, ax=None) -> Chart:
    """Busy fraction of one engine on every PE, laid out as the PE grid."""
    n = len(report.per_pe)
    if grid is None:
        try:
            cfg = load_config(report.config)
            grid = (cfg.grid.rows, cfg.grid.cols)
        except Exception:
            side = int(round(math.sqrt(n)))
            grid = (side, n // side) if side * (n // side) == n else (1, n)
    rows, cols = grid
    if rows * cols != n:
        raise ValueError(f"grid {rows}x{cols} does not hold the report's {n} PEs")
    vals = np.array([pe.get(engine, 0.0) for pe in report.per_pe]).reshape(rows, cols)
    fig, ax = _figure(ax, (1.0 + 0.6 * cols, 0.8 + 0.6 * rows))
    im = ax.imshow(100 * vals, vmin=0, vmax=100, cmap="viridis")
    for r in range(rows):
        for c in range(cols):
            ax.text(c, r, f"{100 * vals[r, c]:.0f}", ha="center", va="center", fontsize=7,
                    color="white" if vals[r, c] < 0.6 else "black")
    ax.set_xlabel("PE column")
    ax.set_ylabel("PE row")
    ax.set_title(title or f"{engine.upper()} busy % per PE: {report.kernel} on {report.config}")
    fig.colorbar(im, ax=ax, shrink=0.8)
    points = [{"pe": r * cols + c, "row": r, "col": c, "value": float(vals[r, c])}
              for r in range(rows) for c in range(cols)]
    return Chart(fig, points)


# ---- energy ---------------------------------------------------------------------------------------

MEMORY_BOUND = ("dram", "sram", "noc")


def energy_chart(runs: Iterable[Report | tuple[str, Report]], title: str | None = None, ax=None) -> Chart:
    """Energy by component (simulator/energy.py), one stacked bar per run, as shares of its total;
    each bar's joules and average watts stand above it."""
    from simulator.energy import COMPONENTS
    labelled = [(f"{r.kernel} on {r.config}", r) if isinstance(r, Report) else (str(r[0]), r[1]) for r in runs]
    fig, ax = _figure(ax, (2.0 + 1.4 * max(len(labelled), 1), 4.2))
    used = [c for c in COMPONENTS if any(rep.energy.components.get(c, 0.0) for _, rep in labelled)]
    palette = [matplotlib.colormaps["tab20"](i) for i in range(20)]
    bottoms = np.zeros(len(labelled))
    points = []
    for ci, comp in enumerate(used):
        shares = np.array([100 * rep.energy.components.get(comp, 0.0) / rep.energy.joules if rep.energy.joules
                           else 0.0 for _, rep in labelled])
        ax.bar(range(len(labelled)), shares, 0.6, bottom=bottoms, label=comp, color=palette[ci % 20])
        bottoms += shares
        points += [{"label": label, "component": comp, "joules": rep.energy.components.get(comp, 0.0),
                    "share": sh / 100} for (label, rep), sh in zip(labelled, shares)]
    for i, (_, rep) in enumerate(labelled):
        ax.text(i, 101, f"{_si(rep.energy.joules, 'J')}\n{rep.energy.watts:.3g} W", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(labelled)), [label for label, _ in labelled], rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("share of the run's energy (%)")
    ax.set_ylim(0, 118)
    ax.set_title(title or "Energy by component")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return Chart(fig, points)


def perf_per_watt_chart(rows: Sequence[dict], knob: str, line: str | None = None, title: str | None = None) -> Chart:
    """Perf/W of sweep rows against the swept `knob`, a panel per workload and a line per value of the
    knob `line`: TFLOPS/W for a workload whose runs are mostly compute-bound, DRAM GB/s per W for one
    bound by memory (DRAM, SRAM or the NoC). Rows with an error are left out."""
    rows = [r for r in rows if not r.get("error")]
    names = list(dict.fromkeys(r["workload"] for r in rows))
    fig = Figure(figsize=(4.6 * max(len(names), 1), 3.8), layout="constrained")
    axes = fig.subplots(1, max(len(names), 1), squeeze=False)[0]
    points = []
    for ax, name in zip(axes, names):
        mine = [r for r in rows if r["workload"] == name]
        memory = sum(r.get("bound") in MEMORY_BOUND for r in mine) * 2 > len(mine)
        metric, unit = ("dram_gbps_per_watt", "DRAM GB/s per W") if memory else ("tflops_per_watt", "TFLOPS/W")
        groups: dict = {}
        for r in mine:
            groups.setdefault(r[line] if line else "", []).append((r[knob], r[metric], r["watts"]))
        for gi, (g, pts) in enumerate(sorted(groups.items())):
            pts.sort()
            ax.plot([x for x, _, _ in pts], [y for _, y, _ in pts], "o-", color=COLOURS[gi % len(COLOURS)],
                    label=f"{line} {g}" if line else name)
            points += [{"workload": name, "group": g, "x": x, "y": y, "metric": metric, "watts": w} for x, y, w in pts]
        ax.set_xlabel(knob)
        ax.set_ylabel(unit)
        ax.set_title(f"{name}: {unit}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    if title:
        fig.suptitle(title)
    return Chart(fig, points)


# ---- helpers --------------------------------------------------------------------------------------

def _figure(ax, size) -> tuple[Figure, Any]:
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=size, layout="constrained")
    return fig, fig.add_subplot()


def _si(v: float, unit: str) -> str:
    for scale, p in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            return f"{v / scale:.3g} {p}{unit}"
    return f"{v:.3g} {unit}"
