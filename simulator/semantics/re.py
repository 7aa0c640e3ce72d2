"""Reduction Engine semantics."""
from __future__ import annotations

import numpy as np

from isa import float_minmax as minmax
from isa import re as re_isa
from isa.types import np_dtype

from . import semantics
from .tiles import store, view


def _acc_dtype(dtype: np.dtype) -> np.dtype:
    if dtype.kind in "fV":                  # ml_dtypes' bf16 and fp8 are kind "V"
        return np.dtype(np.float64) if dtype.itemsize == 8 else np.dtype(np.float32)
    if dtype.kind == "b":
        return np.dtype(np.int32)
    if dtype.itemsize < 4:
        return np.dtype(np.int32 if dtype.kind == "i" else np.uint32)
    return dtype


def _first_extreme(a: np.ndarray, ax: int, pick) -> np.ndarray:
    """The first index of the extreme along ax, NaNs ignored (no NaN equals the extreme; 0 if all are)."""
    best = pick.reduce(a, axis=ax, keepdims=True)
    return np.argmax(a == best, axis=ax).astype(np.int32)


_REDUCE = {
    "sum": lambda a, ax: np.sum(a, axis=ax, dtype=_acc_dtype(a.dtype)),
    "prod": lambda a, ax: np.prod(a, axis=ax, dtype=_acc_dtype(a.dtype)),
    "max": lambda a, ax: minmax.fmax.reduce(a, axis=ax),
    "min": lambda a, ax: minmax.fmin.reduce(a, axis=ax),
    "argmax": lambda a, ax: _first_extreme(a, ax, minmax.fmax),
    "argmin": lambda a, ax: _first_extreme(a, ax, minmax.fmin),
    "and": lambda a, ax: np.bitwise_and.reduce(a, axis=ax),
    "or": lambda a, ax: np.bitwise_or.reduce(a, axis=ax),
    "xor": lambda a, ax: np.bitwise_xor.reduce(a, axis=ax),
}


@semantics(re_isa.ReReduce)
def reduce(ctx, cmd):
    ins = cmd.ins
    a = view(ctx.ls, cmd.addr["a"], ins.a)
    if a.dtype.kind in "fV" and a.dtype.itemsize < 4:
        a = a.astype(np.float32)
    with np.errstate(all="ignore"):
        r = _REDUCE[ins.op](a, ins.axis)
    store(ctx, cmd, "out", np.reshape(r, ins.out.shape))


_SCAN = {"sum": np.add, "prod": np.multiply, "max": minmax.fmax, "min": minmax.fmin}


@semantics(re_isa.ReScan)
def scan(ctx, cmd):
    ins = cmd.ins
    a = view(ctx.ls, cmd.addr["a"], ins.a)
    acc = _acc_dtype(a.dtype) if ins.op in ("sum", "prod") else a.dtype
    x = a.astype(acc)
    if ins.reverse:
        x = np.flip(x, ins.axis)
    with np.errstate(all="ignore"):
        r = _SCAN[ins.op].accumulate(x, axis=ins.axis, dtype=acc)
    if ins.reverse:
        r = np.flip(r, ins.axis)
    store(ctx, cmd, "out", r.astype(np_dtype(ins.out.dtype)))


@semantics(re_isa.ReSend)
def send(ctx, cmd):
    """The data moves when the command completes: into the receiving PE's slot."""
    a = view(ctx.ls, cmd.addr["a"], cmd.ins.a)
    dst_ls, dst_addr = cmd.vals["remote"]
    np.ndarray(a.shape, a.dtype, buffer=dst_ls, offset=dst_addr)[...] = a
    written = cmd.vals["target"].ls_written      # the receiver's sanitizer map
    if written is not None:
        written[dst_addr: dst_addr + a.nbytes] = True


@semantics(re_isa.ReHistogram)
def histogram(ctx, cmd):
    ins = cmd.ins
    a = view(ctx.ls, cmd.addr["a"], ins.a).reshape(-1).astype(np.int64)
    bins = ins.out.size
    keep = (a >= 0) & (a < bins)
    if ins.mask is not None:
        keep &= np.broadcast_to(view(ctx.ls, cmd.addr["mask"], ins.mask), ins.a.shape).reshape(-1).astype(bool)
    store(ctx, cmd, "out", np.bincount(a[keep], minlength=bins)[:bins].astype(np.int32).reshape(ins.out.shape))
