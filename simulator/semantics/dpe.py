"""Dot Product Engine semantics."""
from __future__ import annotations

import numpy as np

from isa import dpe
from isa.types import np_dtype

from . import semantics
from .tiles import store, view


def _operand(ctx, cmd, name: str, trans: int) -> np.ndarray:
    a = view(ctx.ls, cmd.addr[name], getattr(cmd.ins, name))
    return np.swapaxes(a, -1, -2) if trans else a


@semantics(dpe.DpeMatmul)
def matmul(ctx, cmd):
    ins = cmd.ins
    a = _operand(ctx, cmd, "a", ins.trans_a)
    b = _operand(ctx, cmd, "b", ins.trans_b)
    if ins.a.dtype in ("i8", "u8"):
        # exact: |products| < 2^16 and K < 2^37 keeps the f64 sum exact; wrap like i32
        acc = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.int64).astype(np.int32)
    elif ins.a.dtype == "f64":
        acc = a @ b
    else:
        acc = a.astype(np.float32) @ b.astype(np.float32)
    rows = cmd.vals["rows"]
    out = view(ctx.ls, cmd.addr["out"], ins.out)
    if ins.out.mode == "acc":
        acc = out.astype(acc.dtype) + acc
    if rows:
        keep = acc.copy()
        keep[..., rows:, :] = out[..., rows:, :] if ins.out.mode == "acc" else 0
        acc = keep
    store(ctx, cmd, "out", acc.astype(np_dtype(ins.out.dtype)) if np_dtype(ins.out.dtype).kind in "iu" else acc)
