"""Dot Product Engine timing: MACs at the config's rate for the input dtype, with M, N and K rounded
up to the MAC array's tile (a 1x1 matmul costs a whole tile pass).

A matmul in K slices (kslices, kused: the backend's coalesced K steps) costs the work of the slices
that hold data, as one command: fewer commands, the same MAC time.

Its operations are counted twice: `ops` is the work the MAC array does, M, N and K of each command
as its tiles are (the padding of masked loads included: a 128-row tile of which 8 rows hold data
takes the time of 128); `useful_ops` is the kernel's own work, 2MNK of the elements that hold data,
each dimension clipped to the extents the box loads of its operands left valid (Version.extents;
operands from elsewhere count whole).

Local-store traffic follows how the DPE streams its operands (ISCA'25): operand a is read once and
cached in the MAC tiles, `tile_m` rows at a time; operand b streams from the local store past each
block of cached rows, so it is read ceil(M / tile_m) times; the output is written (and read first
when it accumulates)."""
from __future__ import annotations

from isa.types import itemsize

from ..errors import ProgramError
from .engine import Engine, cdiv


class DPE(Engine):
    kind = "dpe"

    def __init__(self, pe):
        c = pe.cfg.pe.dpe
        super().__init__(pe, c.latency_cycles, c.command_cycles)
        self.c = c
        self.ops_by_dtype: dict[str, float] = {}
        self.useful_ops = 0.0
        self.useful_by_dtype: dict[str, float] = {}

    def dims(self, cmd) -> tuple[int, int, int, int]:
        """(batch, M, N, K) of a matmul, M trimmed to its effective rows, K to the slices that hold data."""
        ins = cmd.ins
        a, b = ins.a.shape, ins.b.shape
        m, k = (a[-1], a[-2]) if ins.trans_a else (a[-2], a[-1])
        n = b[-2] if ins.trans_b else b[-1]
        batch = 1
        for d in ins.out.shape[:-2]:
            batch *= d
        rows = cmd.vals["rows"]
        if rows:
            m = min(m, rows)
        slices, used = ins.kslices, cmd.vals["kused"]
        if slices > 1 or used:
            if slices < 1 or k % slices or used < 0:
                raise ProgramError(f"{cmd.where()}: dpe.mm kslices={slices} kused={used} on K = {k}: K must be "
                                   "kslices equal slices, and kused (the slices holding data) 0 or more")
            k = k // slices * min(used or slices, slices)
        return batch, m, n, k

    def ls_traffic(self, cmd) -> int:
        return self.cost(cmd)[3]

    def occupancy(self, cmd) -> float:
        cycles, flops, dtype, _ = self.cost(cmd)
        self.ops += flops
        self.ops_by_dtype[dtype] = self.ops_by_dtype.get(dtype, 0.0) + flops
        ext = cmd.vals.get("extents")
        if ext is not None and ext != (None, None):
            flops = self.useful(cmd, ext)
        self.useful_ops += flops
        self.useful_by_dtype[dtype] = self.useful_by_dtype.get(dtype, 0.0) + flops
        return cycles

    def useful(self, cmd, ext) -> float:
        """2MNK of the elements that hold data: M, N and K clipped to the valid extents of a and b."""
        ins = cmd.ins
        batch, m, n, k = self.dims(cmd)
        a, b = ext
        if a is not None:
            m = min(m, a[-1] if ins.trans_a else a[-2])
            k = min(k, a[-2] if ins.trans_a else a[-1])
            if len(a) > 2:
                batch = min(batch, _product(a[:-2]))
        if b is not None:
            n = min(n, b[-2] if ins.trans_b else b[-1])
            k = min(k, b[-1] if ins.trans_b else b[-2])
            if len(b) > 2:
                batch = min(batch, _product(b[:-2]))
        return 2.0 * batch * m * n * k

    def cost(self, cmd) -> tuple:
        """(cycles, FLOPs, dtype, local-store bytes) of a matmul; worked out once per instruction, or
        once per value of its effective rows and slices holding data when they come from registers."""
        plan = cmd.plan
        if plan.cost is not None:
            if type(plan.cost) is tuple:
                return plan.cost
            key = (cmd.vals["rows"], cmd.vals["kused"])     # a cost per value of the register fields
            cost = plan.cost.get(key)
            if cost is not None:
                return cost
        ins = cmd.ins
        batch, m, n, k = self.dims(cmd)
        rate = self.c.macs_per_cycle.get(ins.a.dtype)
        if rate is None:
            raise ProgramError(f"{cmd.where()}: the DPE of this config has no {ins.a.dtype} mode "
                               f"(it has {', '.join(self.c.macs_per_cycle)})")
        kq = max(1, self.c.tile_k_bytes // itemsize(ins.a.dtype))
        mr = cdiv(m, self.c.tile_m) * self.c.tile_m
        nr = cdiv(n, self.c.tile_n) * self.c.tile_n
        kr = cdiv(k, kq) * kq
        out = ins.out.nbytes * (2 if ins.out.mode == "acc" else 1)
        ls = ins.a.nbytes + ins.b.nbytes * cdiv(m, self.c.tile_m)
        k_all = ins.a.shape[-2 if ins.trans_a else -1]
        if k < k_all:
            ls = ls * k // k_all                     # only the slices that hold data are read
        ls += out
        cost = (batch * mr * nr * kr / rate, 2.0 * batch * m * n * k, ins.a.dtype, ls)
        if all(field not in ("rows", "kused") for field, _, _ in plan.regs):
            plan.cost = cost
        else:
            if plan.cost is None:
                plan.cost = {}
            plan.cost[(cmd.vals["rows"], cmd.vals["kused"])] = cost
        return cost


def _product(dims) -> int:
    out = 1
    for d in dims:
        out *= d
    return out
