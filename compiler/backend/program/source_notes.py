"""The kernel source beside the MTIA assembly: each instruction's `file:line` as a trailing comment,
and the source line itself as a comment above the first instruction of each run of instructions it
made, the way `objdump -S` interleaves C with machine code. Read from the program's metadata
(`lines`, one kernel line per instruction, and `source`); the assembly parser skips both."""
from __future__ import annotations

import linecache
from pathlib import Path


def source_notes(prog) -> tuple[dict[int, str], dict[int, str]]:
    """(notes, headings) for `Program.to_asm`: `file:line` per instruction, source text where the line changes."""
    lines = prog.meta.get("lines") or []
    source = prog.meta.get("source")
    if not source or len(lines) != len(prog.instrs):
        return {}, {}
    name = Path(source).name
    notes, headings, previous = {}, {}, None
    for i, line in enumerate(lines):
        if not line:
            continue
        notes[i] = f"{name}:{line}"
        if line != previous:
            text = linecache.getline(source, line).strip()
            if text:
                headings[i] = f"{line}: {text}"
        previous = line
    return notes, headings
