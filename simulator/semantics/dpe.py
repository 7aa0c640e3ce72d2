"""Dot Product Engine semantics."""
from __future__ import annotations

import numpy as np

from isa import dpe
from isa.dot_numerics import f64_product, float_product
from isa.types import np_dtype

from . import semantics
from .tiles import store, view


def _operand(ctx, cmd, name: str, trans: int) -> np.ndarray:
    a = view(ctx.ls, cmd.addr[name], getattr(cmd.ins, name))
    return np.swapaxes(a, -1, -2) if trans else a


def _product(a: np.ndarray, b: np.ndarray, dtype: str) -> np.ndarray:
    if dtype in ("i8", "u8"):
        # exact: |products| < 2^16 and K < 2^37 keeps the f64 sum exact; wrap like i32
        return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.int64).astype(np.int32)
    if dtype == "f64":
        return f64_product(a, b)
    return float_product(a, b)


@semantics(dpe.DpeMatmul)
def matmul(ctx, cmd):
    ins = cmd.ins
    a = _operand(ctx, cmd, "a", ins.trans_a)
    b = _operand(ctx, cmd, "b", ins.trans_b)
    out = view(ctx.ls, cmd.addr["out"], ins.out)
    out_t = np_dtype(ins.out.dtype)
    slices = ins.kslices
    used = min(cmd.vals["kused"] or slices, slices)
    step = a.shape[-1] // slices
    acc = out if ins.out.mode == "acc" else None
    for s in range(used):
        part = _product(a[..., s * step:(s + 1) * step], b[..., s * step:(s + 1) * step, :], ins.a.dtype)
        acc = part if acc is None else acc.astype(part.dtype) + part
        if s < used - 1:
            acc = acc.astype(out_t)                      # rounded between slices, as between commands
    rows = cmd.vals["rows"]
    if rows:
        keep = acc.copy()
        keep[..., rows:, :] = out[..., rows:, :] if ins.out.mode == "acc" else 0
        acc = keep
    store(ctx, cmd, "out", acc.astype(out_t) if out_t.kind in "iu" else acc)
