"""`mtiasim trace --summary`: where a traced run stalled, by kernel source line, as text.

Each row is one line of kernel source: the cycles its commands' engines sat ready for them but
waiting for their inputs (or for space to write), the cycles those engines worked on them, how
many commands it issued and which, and the source text. Rows come from `Tracer.by_source_line`.
"""
from __future__ import annotations

import linecache
from pathlib import Path

from .tables import format_table

WHAT_STALL_MEANS = ("stalled = cycles an engine had the command but waited for its inputs (a DMA still "
                    "loading them) or for space to write its outputs; busy = cycles the engine worked on it")


def summary_rows(rows: list[dict], top: int) -> list[dict]:
    """The `top` most stalled lines, with a label (file:line) and the line's source text."""
    out = []
    for r in rows[:top]:
        if r["line"] is None:
            label, text = "(no source line)", "a program without a line table (hand-written ISA)"
        else:
            label = f"{Path(r['source']).name}:{r['line']}"
            text = linecache.getline(r["source"], r["line"]).strip()
        mnemonics = sorted(r["mnemonics"].items(), key=lambda kv: -kv[1])
        out.append({"where": label, "stall_cycles": round(r["stall_cycles"]),
                    "busy_cycles": round(r["busy_cycles"]), "commands": r["commands"],
                    "instructions": ", ".join(f"{m} x{n:,}" for m, n in mnemonics[:3]) +
                    (", ..." if len(mnemonics) > 3 else ""),
                    "text": text[:80] + ("..." if len(text) > 80 else "")})
    return out


def format_summary(rows: list[dict], top: int, pes_traced: int) -> str:
    """The text `--summary` prints."""
    total = sum(r["stall_cycles"] for r in rows)
    head = (f"stalls by source line, summed over {pes_traced} PE(s), top {min(top, len(rows))} of "
            f"{len(rows)} lines ({total:,.0f} stalled cycles in all)")
    table = format_table(summary_rows(rows, top),
                         ["where", "stall_cycles", "busy_cycles", "commands", "instructions", "text"],
                         ["line", "stalled", "busy", "commands", "instructions", "source"])
    return f"{head}\n{table}\n  ({WHAT_STALL_MEANS})"
