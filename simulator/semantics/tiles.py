"""Reading and writing tiles in a local store, and the dtype rules engines compute with."""
from __future__ import annotations

import numpy as np

from isa.types import Tile, np_dtype

NARROW_FLOATS = frozenset({"f16", "bf16", "f8e4m3", "f8e5m2"})


def view(ls: np.ndarray, addr: int, tile: Tile) -> np.ndarray:
    """The tile at byte address `addr` of local store `ls`, as a writable numpy array."""
    return np.ndarray(tile.shape, np_dtype(tile.dtype), buffer=ls, offset=addr)


def compute_dtype(dtype: str) -> np.dtype:
    """Engines compute narrow floats in f32 and round once at the end."""
    return np.dtype(np.float32) if dtype in NARROW_FLOATS else np_dtype(dtype)


def source(ctx, cmd, name: str, dtype: np.dtype):
    """Operand `name` of cmd as an array (a tile) or a scalar, in compute dtype `dtype`."""
    addr = cmd.addr.get(name)
    if addr is not None:
        t = getattr(cmd.ins, name)
        a = view(ctx.ls, addr, t)
        return a if a.dtype == dtype else a.astype(dtype)
    v = cmd.vals[name]
    if dtype.kind in "iub":         # the register's 64 bits (a u64 past 2**63 is no int64), cast as C casts
        return np.array(int(v) & 0xFFFF_FFFF_FFFF_FFFF, dtype=np.uint64).astype(dtype)
    return dtype.type(v)


def store(ctx, cmd, name: str, value) -> None:
    """Write value (broadcast, cast) into the tile operand `name`."""
    t = getattr(cmd.ins, name)
    out = view(ctx.ls, cmd.addr[name], t)
    with np.errstate(all="ignore"):
        out[...] = np.broadcast_to(np.asarray(value).astype(out.dtype, copy=False), t.shape)
