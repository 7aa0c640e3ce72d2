"""Whether a launch's narrow offset blocks cross their type's range between elements (checked at launch).

An i32 block such as `tl.arange(0, 16) + start` wraps each element to 32 bits as the kernel computes
it: with start = 2**31 - 8 its last 8 elements are -2**31 + 0..7. Where such a block is read (a widening
cast, a compare for a mask, a division, a pointer offset), a DMA box takes its elements as base + i *
stride, which is right only where no element crosses the range. The affine analysis checks that for
constant bases and strides (affine._observed: such a block is no box); one with a run-time base or
stride it takes as a box and records (affine.watch_crossings). Its polynomials are kept over what a
launch knows (arguments, program ids over the grid, loop variables between their bounds: the guards
analysis/i32_guards.py records, carried in the program's meta) and bounded here, at launch: where some
program's block may cross, the MTIA launch refuses with an error at the kernel line, as the box would
move the wrong elements; the interpreter runs it. Nothing is added to the program, so kernels that never
wrap keep their cycles.

Known gap: a block whose base depends on a value a launch cannot bound (a loaded scalar, a loop-carried
value, a loop whose bounds are such values) is not checked.
"""
from __future__ import annotations

import linecache

from ...ir import Op
from ..analysis.affine import int_limits


def _interval(p: list, env: tuple) -> tuple[int, int] | None:
    """[lo, hi] of the poly over every program of the launch; None where it is never computed (a loop
    that runs no iteration) or a launch cannot bound it (a shift or divisor known only as the program
    runs): such a block is not checked, as a refusal must be sure."""
    lo = hi = 0
    for coef, *atoms in p:
        tl = th = coef
        for x in atoms:
            r = _range(x, env)
            if r is None:
                return None
            corners = (tl * r[0], tl * r[1], th * r[0], th * r[1])
            tl, th = min(corners), max(corners)
        lo, hi = lo + tl, hi + th
    return lo, hi


def _range(x: list, env: tuple) -> tuple[int, int] | None:
    grid, pids, args = env
    kind = x[0]
    if kind == "a":
        return int(args[x[1]]), int(args[x[1]])
    if kind == "p":
        return pids[x[1]]
    if kind == "n":
        return int(grid[x[1]]), int(grid[x[1]])
    if kind == "for":                   # lower <= iv < upper (step > 0)
        lb, ub, step = (_interval(p, env) for p in x[1:])
        if lb is None or ub is None or step is None or ub[1] - 1 < lb[0]:
            return None
        if lb[0] == lb[1] and step[0] == step[1] > 0:      # the last iteration's iv, not upper - 1
            return lb[0], lb[0] + (ub[1] - 1 - lb[0]) // step[0] * step[0]
        return lb[0], ub[1] - 1
    if kind == "c":
        return x[1], x[1]
    if kind == "op":
        return _op_range(x, env)
    inner = _interval(x[3], env)
    if inner is None:
        return None
    if kind == "q":
        d = x[1]
        if x[2]:
            return (inner[0] % d, inner[1] % d) if inner[0] // d == inner[1] // d else (0, d - 1)
        return inner[0] // d, inner[1] // d
    return _wrap(inner, x[1], bool(x[2]))                 # "w"


def _wrap(r: tuple[int, int], bits: int, signed: bool) -> tuple[int, int]:
    """The range of the values of r wrapped to the integer type: r moved by whole periods where it
    lies in one, else the whole type."""
    lo, hi = int_limits(bits, signed)
    m = 1 << bits
    k = (r[0] - lo) // m
    return (r[0] - k * m, r[1] - k * m) if (r[1] - lo) // m == k else (lo, hi)


def _op_range(x: list, env: tuple) -> tuple[int, int] | None:
    """The range of a scalar op's result, computed exactly and wrapped to its type as the op does."""
    _, name, bits, signed, operands = x
    rs = [_range(o, env) for o in operands]
    if None in rs:
        return None
    a = rs[0]
    b = rs[1] if len(rs) > 1 else None
    if name in (Op.EXTSI.value, Op.TRUNCI.value):
        r = a
    elif name == Op.ADDI.value:
        r = a[0] + b[0], a[1] + b[1]
    elif name == Op.SUBI.value:
        r = a[0] - b[1], a[1] - b[0]
    elif name in (Op.MULI.value, Op.SHLI.value):
        if name == Op.SHLI.value:
            if b[0] != b[1] or not 0 <= b[0] < bits:
                return None                   # a run-time shift: no bound (not checked, never refused)
            b = (1 << b[0],) * 2
        c = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
        r = min(c), max(c)
    elif name in (Op.MINSI.value, Op.MAXSI.value):
        f = min if name == Op.MINSI.value else max
        r = f(a[0], b[0]), f(a[1], b[1])
    elif b[0] != b[1] or b[0] <= 0:           # divsi, remsi by a run-time or non-positive divisor: no
        return None                           # bound (not checked, never refused)
    elif name == Op.DIVSI.value:              # C's division truncates: monotone in the dividend
        r = tuple(q if q >= 0 or v % b[0] == 0 else q + 1 for v in a for q in [v // b[0]])
    else:                                     # remsi: the dividend's sign, less than the divisor
        r = (0 if a[0] >= 0 else 1 - b[0]), (b[0] - 1 if a[1] > 0 else 0)
    return _wrap(r, bits, bool(signed))


# A block that may cross over the whole grid at once (a range that can only overstate each program's) is
# checked again program by program in launches of at most this many programs: refused only where one
# crosses, which the message names.
EACH_PROGRAM_MAX = 4096


def check(guards: list, grid: tuple, args: list) -> None:
    """Raise ProgramError at the kernel line of the first block whose elements may cross their type's
    range in some program of this launch. `args`: one value per function argument."""
    grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
    n, gx, gy = grid[0] * grid[1] * grid[2], grid[0], grid[1]
    whole = (grid, tuple((0, g - 1) for g in grid), args)
    for g in guards:
        if _crossing(g, whole) is None:
            continue
        if n > EACH_PROGRAM_MAX:
            _refuse(g, _crossing(g, whole), None, "may ")      # (too many programs to tell which)
        for i in range(n):                  # in program index order (x fastest)
            pid = (i % gx, i // gx % gy, i // (gx * gy))
            found = _crossing(g, (grid, tuple((p, p) for p in pid), args))
            if found is not None:
                _refuse(g, found, pid if n > 1 else None)


def _crossing(guard: list, env: tuple) -> tuple | None:
    """(base range, element range) of the block where its elements may leave their type's range."""
    _, _, _, bits, signed, base, strides, shape = guard
    b = _interval(base, env)
    reach = [_interval(s, env) for s in strides]
    if b is None or None in reach:
        return None
    lo = b[0] + sum(min(0, s[0] * (n - 1)) for s, n in zip(reach, shape))
    hi = b[1] + sum(max(0, s[1] * (n - 1)) for s, n in zip(reach, shape))
    tlo, thi = int_limits(bits, bool(signed))
    return None if tlo <= lo and hi <= thi else (b, lo, hi)


def _refuse(guard: list, found: tuple, pid, may: str = "") -> None:
    from simulator.errors import ProgramError
    file, line, col, bits, signed = guard[:5]
    b, lo, hi = found
    thi = int_limits(bits, bool(signed))[1]
    edge = (f"2**{bits - 1}" if signed else f"2**{bits}") if hi > thi else (f"-2**{bits - 1}" if signed else "0")
    start = f"start {b[0]}" if b[0] == b[1] else f"start {b[0]}..{b[1]}"
    where = f"program {pid}: " if pid is not None else ""
    ty = f"{'i' if signed else 'u'}{bits}"
    msg = (f"{ty} offsets of this block {may}cross {edge} between its elements ({where}{start}, elements {lo}..{hi}): "
           f"MTIA moves it as one box; use int64 offsets")
    raise ProgramError(_at(file, line, col, msg))


def _at(file: str | None, line: int, col: int, msg: str) -> str:
    """`file:line:col: error: msg`, the source line and a caret under the column."""
    if file is None:
        return msg
    text = linecache.getline(file, line).rstrip("\n")
    head = f"{file}:{line}:{col}: error: {msg}"
    if not text.strip():
        return head
    stripped = text.lstrip()
    return f"{head}\n    {stripped}\n    {' ' * max(0, col - 1 - (len(text) - len(stripped)))}^"
