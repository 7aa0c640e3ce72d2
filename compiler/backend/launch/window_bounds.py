"""Whether a launch's window boxes stay inside their arrays (a choice made at launch, as broadcast reads are).

A window box (analysis/windows.py) reads every element an asserted index range allows, not only those the
indices name: Inductor's asserts state the tensor's own extents, so its windows lie inside the tensor,
but a hand-written kernel may assert a wider range than its array holds (`0 <= i < 8` over rows of 4)
and still index only inside it. Its element gather reads nothing outside the array; the window box of
its last (or first) rows would, and the simulator would refuse a valid kernel. So at launch the byte
span of every window box is worked out for every program (the scalar code outside loops evaluated
over all program ids at once, backend/launch/broadcast.py) and compared with the buffer its pointer argument
lies in; when one may leave it, or cannot be told (a box inside a loop or branch, a wrapped or
clamped row, a grid of more than broadcast.PLAN_MAX_PROGRAMS programs), the launch runs the program
compiled with `index_windows` off: element-wise gathers.
"""
from __future__ import annotations

import numpy as np

from .. import dialect as mtia
from .broadcast import PLAN_MAX_PROGRAMS, evaluate_outside_loops, pointer_roots


def window_boxes(func) -> list:
    return [op for op in func.walk() if op.name == mtia.LOAD_BOX and op.attrs.get("window")]


def inside(func, grid: tuple, args: list, buffers: list, mapping: str, num_pes: int) -> bool:
    """Whether every window box of the function reads only bytes of its pointer's buffer in every
    program of the launch. `args`: one value per function argument (pointers as byte addresses);
    `buffers`: the buffer (with `address` and `end`) each pointer argument lies in, None for scalars."""
    boxes = window_boxes(func)
    if not boxes:
        return True
    n = int(grid[0]) * int(grid[1]) * int(grid[2])
    if n > PLAN_MAX_PROGRAMS:         # too many programs to evaluate at once: cannot be told, so no windows
        return False
    values = evaluate_outside_loops(func, grid, args, n, num_pes, mapping)
    return all(_box_inside(op, func, values, buffers) for op in boxes)


def _box_inside(op, func, values: dict, buffers: list) -> bool:
    if op.parent_op is not func or op.attrs.get("remap"):
        return False
    roots = pointer_roots(op.ptr)
    if not roots or len(roots) != 1:
        return False
    buf = buffers[next(iter(roots)).index]
    if buf is None or any(v not in values for v in (op.ptr, *op.strides, *op.valid)):
        return False
    shape = tuple(op.result.type.shape)
    size = op.result.type.scalar.itemsize
    ptr = values[op.ptr].astype(np.int64)
    lo = hi = np.zeros_like(ptr)
    reads = np.ones(ptr.shape, bool)
    for n, stride, valid in zip(shape, op.strides, op.valid):
        extent = np.clip(values[valid].astype(np.int64), 0, n)       # elements read along this dimension
        reads = reads & (extent > 0)
        reach = (extent - 1) * values[stride].astype(np.int64)       # the last one's offset, in elements
        lo = lo + np.minimum(reach, 0)
        hi = hi + np.maximum(reach, 0)
    first, end = ptr + lo * size, ptr + (hi + 1) * size
    ok = (first >= buf.address) & (end <= buf.end)
    return bool(np.all(ok | ~reads))
