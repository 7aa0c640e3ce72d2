"""Memory Layout Unit semantics."""
from __future__ import annotations

import numpy as np

from isa import mlu

from ..errors import SanitizerError
from . import semantics
from .tiles import store, view


def _a(ctx, cmd, name="a"):
    return view(ctx.ls, cmd.addr[name], getattr(cmd.ins, name))


@semantics(mlu.MluTranspose)
def transpose(ctx, cmd):
    store(ctx, cmd, "out", np.transpose(_a(ctx, cmd), cmd.ins.perm))


@semantics(mlu.MluReshape)
def reshape(ctx, cmd):
    store(ctx, cmd, "out", _a(ctx, cmd).reshape(cmd.ins.out.shape))


@semantics(mlu.MluBcast)
def bcast(ctx, cmd):
    store(ctx, cmd, "out", _a(ctx, cmd))


@semantics(mlu.MluConcat)
def concat(ctx, cmd):
    store(ctx, cmd, "out", np.concatenate([_a(ctx, cmd), _a(ctx, cmd, "b")], axis=cmd.ins.axis))


@semantics(mlu.MluJoin)
def join(ctx, cmd):
    store(ctx, cmd, "out", np.stack([_a(ctx, cmd), _a(ctx, cmd, "b")], axis=-1))


@semantics(mlu.MluSlice)
def slice_(ctx, cmd):
    ins = cmd.ins
    step = ins.step or (1,) * len(ins.start)
    idx = tuple(slice(s, s + n * st, st) for s, n, st in zip(ins.start, ins.out.shape, step))
    store(ctx, cmd, "out", _a(ctx, cmd)[idx])


@semantics(mlu.MluGather)
def gather(ctx, cmd):
    ins = cmd.ins
    a = _a(ctx, cmd)
    idx = view(ctx.ls, cmd.addr["index"], ins.index).astype(np.int64)
    n = a.shape[ins.axis]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = int(idx[(idx < 0) | (idx >= n)].flat[0])
        raise SanitizerError(f"{cmd.where()}: gather index {bad} is outside [0, {n}) along axis {ins.axis}")
    store(ctx, cmd, "out", np.take_along_axis(a, idx, axis=ins.axis))
