"""Dot Product Engine: matrix multiply on tiles in the local store, accumulating in f32 (i32 for
8-bit integers). It caches operand `a` and streams `b` from the local store; its throughput per
dtype is in the hardware config (MTIA 2i: 1024 f16/bf16 MACs per cycle, 2048 int8)."""
from __future__ import annotations

from .fields import Imm, TileKind, XOrImm
from .instruction import Instr, instruction


@instruction("dpe.mm", "dpe")
class DpeMatmul(Instr):
    """out = a @ b, or out = out + a @ b when out's mode is acc. a is [M, K] ([K, M] with trans_a),
    b is [K, N] ([N, K] with trans_b), out is [M, N]; a leading batch dimension is allowed on all
    three. Products are exact and summed in f32 (i32 for i8/u8 inputs), then rounded to out's dtype.
    a and b have the same dtype. `rows`, when nonzero, is the number of rows of a that hold data
    (an effective shape): the DPE skips the rest and leaves those rows of out unchanged (acc) or zero.
    kslices=s (s >= 2): K is s equal slices summed one after another: out = out + a_1 @ b_1, rounded
    to out's dtype, then + a_2 @ b_2, ..., as s commands in sequence would (a fresh out starts from
    a_1 @ b_1); the DPE takes them in one command, at the time of that work in one. `kused`, when
    nonzero, is how many of the slices hold data (at most s count): the rest are skipped, no time and no
    effect. The backend's K coalescing issues one command per two K steps (compiler/backend/passes/
    coalesce_k.py), kused the steps left.
    ctx=c (c >= 1, multi-context: ISCA'25's GEMM contexts): issued through command context c of the
    DPE, which keeps the operands of the last command issued through it; operands equal to those
    are not sent again (the same result, less of the control core's time)."""
    out: TileKind
    a: TileKind
    b: TileKind
    trans_a: Imm = 0
    trans_b: Imm = 0
    rows: XOrImm = 0
    kslices: Imm = 1
    kused: XOrImm = 0
    ctx: Imm = 0
