"""Plain-text tables for the terminal: aligned columns, numbers in a readable form."""
from __future__ import annotations

import math
from typing import Any, Iterable, Sequence


def cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if math.isinf(v) or math.isnan(v):
            return str(v)
        if v == int(v) and abs(v) < 1e15:
            return f"{int(v):,}"
        return f"{v:.4g}"
    return str(v)


def si(v: float, unit: str = "") -> str:
    """1.77e14 -> '177 T' + unit."""
    if v is None or (isinstance(v, float) and (math.isnan(v) or math.isinf(v))):
        return str(v)
    for scale, p in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            return f"{v / scale:.3g} {p}{unit}"
    return f"{v:.3g} {unit}".rstrip()


def format_table(rows: Iterable[dict], columns: Sequence[str], headers: Sequence[str] | None = None,
                 indent: str = "  ") -> str:
    """Columns left-aligned for text, right-aligned for numbers."""
    rows = list(rows)
    headers = list(headers or columns)
    cells = [[cell(r.get(c)) for c in columns] for r in rows]
    numeric = [all(isinstance(r.get(c), (int, float)) or r.get(c) in (None, "") for r in rows) and rows
               for c in columns]
    widths = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(headers)]

    def line(values):
        return indent + "  ".join(v.rjust(w) if num else v.ljust(w)
                                  for v, w, num in zip(values, widths, numeric)).rstrip()
    out = [line(headers), indent + "  ".join("-" * w for w in widths)]
    out += [line(row) for row in cells]
    return "\n".join(out)
