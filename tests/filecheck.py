"""A tiny FileCheck for IR text: every test that checks printed IR imports `check_ir` from here.

Directives, one per line of `patterns`:
  CHECK: text        the next line at or after the cursor that contains `text`
  CHECK-NEXT: text   the line right after the previous match contains `text`
  CHECK-NOT: text    no line between the previous match and the next match (or the end) contains it
  CHECK-LABEL: text  like CHECK
`{{regex}}` inside text matches a regular expression; `[[NAME:regex]]` matches one too and binds what it
matched to NAME, which a later `[[NAME]]` must match literally (LLVM FileCheck's variables: "the load
reads the extent the first load computed"); everything else matches literally.
"""
import re


def _compile(pattern: str, bound: dict) -> re.Pattern:
    parts = re.split(r"(\{\{.*?\}\}|\[\[\w+(?::.*?)?\]\])", pattern.strip())
    rx = []
    for p in parts:
        if p.startswith("{{"):
            rx.append(p[2:-2])
        elif p.startswith("[["):
            name, sep, sub = p[2:-2].partition(":")
            if sep:
                rx.append(f"(?P<{name}>{sub})")
            elif name in bound:
                rx.append(re.escape(bound[name]))
            else:
                raise ValueError(f"[[{name}]] is used before a [[{name}:...]] binds it: {pattern.strip()!r}")
        else:
            rx.append(re.escape(p))
    return re.compile("".join(rx))


def check_ir(text: str, patterns: str) -> None:
    lines = text.splitlines()
    cursor = 0            # first line not consumed yet
    last = -1             # line of the previous positive match
    pending_not = []
    bound: dict[str, str] = {}    # [[NAME:regex]] -> what it matched
    for raw in patterns.strip().splitlines():
        raw = raw.strip()
        if not raw or raw.startswith("#"):
            continue
        m = re.match(r"(CHECK(?:-NEXT|-NOT|-LABEL)?):(.*)$", raw)
        if not m:
            raise ValueError(f"not a CHECK directive: {raw!r}")
        kind, pat = m.group(1), _compile(m.group(2), bound)
        if kind == "CHECK-NOT":
            pending_not.append((pat, m.group(2).strip()))
            continue
        if kind == "CHECK-NEXT":
            j = last + 1
            if j >= len(lines) or not pat.search(lines[j]):
                got = lines[j] if j < len(lines) else "<end of input>"
                raise AssertionError(f"CHECK-NEXT: {m.group(2).strip()!r} does not match line {j + 1}: {got!r}"
                                     f"\n--- input ---\n{text}")
        else:
            j = next((i for i in range(cursor, len(lines)) if pat.search(lines[i])), None)
            if j is None:
                raise AssertionError(f"{kind}: {m.group(2).strip()!r} not found after line {cursor}"
                                     f"\n--- input ---\n{text}")
        _check_nots(lines, pending_not, cursor, j, text)
        pending_not = []
        bound.update(pat.search(lines[j]).groupdict())
        last, cursor = j, j + 1
    _check_nots(lines, pending_not, cursor, len(lines), text)


def _check_nots(lines, nots, start, end, text):
    for pat, src in nots:
        for i in range(start, end):
            if pat.search(lines[i]):
                raise AssertionError(f"CHECK-NOT: {src!r} matched line {i + 1}: {lines[i]!r}\n--- input ---\n{text}")
