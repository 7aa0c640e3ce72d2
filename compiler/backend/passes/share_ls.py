"""Share circular buffers between tiles that are never live at once, when one slot each does not fit.

A CB's read and write pointers move in program order as commands issue (simulator/memory/
circular_buffer.py), so two storages whose lives do not overlap in program order can be one CB:
the second one's first write waits for the slot the first one's last read released, as a CB's
next slot always does. Nothing else would order them, so storages are merged (one `mtia.cb`, one
id), never merely overlapped in memory. A storage's life runs from the first to the last op that
writes, reads or pops it, each op taken as its whole subtree in the block that pops the storage (a
read inside a loop keeps the tile for the whole loop). Scratch slots, the reduction network's CBs
(other PEs push into them) and storages that are never popped keep a CB of their own. A rotating
carried tile (two slots: the old value and the new) is popped both in its loop's body and after the
loop, so its life is taken in the innermost block that holds all its pops (the whole loop, and what
reads its result after it); a CB that holds one keeps its two slots (`min_slots`).
"""
from __future__ import annotations

from ...ir import Op
from ...ir.core import Operation
from .. import dialect as mtia
from ..analysis.plan import TileLoc, read_plan

_ID_LISTS = ("pops", "pop_after", "temps", "widen", "carried")     # op attributes that name storages


def share_storages(func: Operation) -> None:
    """Merge storages with disjoint lives (biggest first, into the first CB whose members all
    lie outside its life) and renumber the CBs in declaration order."""
    decls = [op for op in func.body.ops if op.name == mtia.CB]
    spans = _spans(func)
    lives = _lives(func, spans)
    groups: list[list[int]] = []
    for d in sorted(decls, key=lambda d: -d.attrs["bytes"]):
        sid = d.attrs["id"]
        life = lives.get(sid)
        home = None
        if life is not None:
            home = next((g for g in groups if all(o in lives and (lives[o][1] < life[0] or life[1] < lives[o][0])
                                                  for o in g)), None)
        if home is None:
            groups.append([sid])
        else:
            home.append(sid)
    _rewrite(func, decls, groups)


def _spans(func: Operation) -> dict:
    """Each op's [first, last] position in a pre-order walk (the span of its subtree)."""
    spans: dict = {}
    ops = list(func.walk())
    pos = {op: i for i, op in enumerate(ops)}
    for op in reversed(ops):
        last = pos[op]
        for region in op.regions:
            for inner in region.block.ops:
                last = max(last, spans[inner][1])
        spans[op] = (pos[op], last)
    return spans


def _lives(func: Operation, spans: dict) -> dict:
    """storage id -> [first, last] position, for the storages that may share a CB."""
    plan = read_plan(func)
    touches: dict = {}
    pop_sites: dict = {}
    alone: set = set()
    for v, loc in plan.loc.items():
        if isinstance(loc, TileLoc):
            owner = v.owner if isinstance(v.owner, Operation) else v.owner.parent_op
            touches.setdefault(loc.sid, []).extend([owner, *(u.op for u in v.uses)])
    for op in func.walk():
        a = op.attrs
        for key in ("pops", "pop_after"):
            for sid in a.get(key, ()):
                pop_sites.setdefault(sid, []).append(op)
                touches.setdefault(sid, []).append(op)
        alone.update(a.get("temps", ()))
        alone.update(sid for sid in a.get("widen", ()) if sid is not None)
        if op.name == Op.RE_REDUCE:
            alone.update(t["cb"] for t in a.get("tiles", ()) if t is not None)
        for sid in a.get("carried", ()):
            if sid is not None:
                touches.setdefault(sid, []).append(op)
    for y, copies in plan.yield_copies.items():
        for sid, _, _ in copies:
            touches.setdefault(sid, []).append(y)
    lives = {}
    for sid, ops in touches.items():
        home = _common_block(pop_sites.get(sid, []))
        if sid in alone or home is None:
            continue
        life = _life(ops, home, spans)
        if life is not None:
            lives[sid] = life
    return lives


def _common_block(sites: list):
    """The innermost block that holds every pop site (None for no sites)."""
    if not sites:
        return None
    def chain(op):                      # the blocks around an op, innermost first
        out = []
        while op is not None:
            out.append(op.parent)
            op = op.parent_op
        return out
    common = chain(sites[0])
    for op in sites[1:]:
        around = {id(b) for b in chain(op)}
        common = [b for b in common if id(b) in around]
    return common[0] if common else None


def _life(ops: list, home, spans: dict):
    first, last = None, None
    for op in ops:
        while op is not None and op.parent is not home:
            op = op.parent_op
        if op is None:
            return None                 # touched outside the block that pops it: keep it alone
        a, b = spans[op]
        first = a if first is None else min(first, a)
        last = b if last is None else max(last, b)
    return first, last


def _rewrite(func: Operation, decls: list, groups: list) -> None:
    groups = sorted((sorted(g) for g in groups), key=lambda g: g[0])
    new_id = {sid: gi for gi, g in enumerate(groups) for sid in g}
    by_id = {d.attrs["id"]: d for d in decls}
    for gi, g in enumerate(groups):
        head, members = by_id[g[0]], [by_id[s].attrs for s in g]
        head.attrs["id"] = gi
        head.attrs["bytes"] = max(m["bytes"] for m in members)
        head.attrs["depth"] = max(m["depth"] for m in members)
        if any(m.get("min_slots", 1) > 1 for m in members):
            head.attrs["min_slots"] = max(m.get("min_slots", 1) for m in members)
        head.attrs["name"] = "|".join(dict.fromkeys(m["name"] for m in members))
        for s in g[1:]:
            by_id[s].erase()
    for op in func.walk():
        a = op.attrs
        if "tiles" in a:
            a["tiles"] = [dict(t, cb=new_id[t["cb"]]) if t is not None else None for t in a["tiles"]]
        for key in _ID_LISTS:
            if key in a:
                a[key] = [new_id[s] if s is not None else None for s in a[key]]
