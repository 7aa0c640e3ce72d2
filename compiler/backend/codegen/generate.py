"""Codegen: walk the bufferized function and emit the instruction stream (over virtual registers),
telling the C++ listing (cpp.py) what each op became.

Scalar SSA values get virtual registers; block values are tiles of their storages (the plan
bufferize wrote into the IR, read back by `plan.read_plan`). Structured control flow becomes
branches: a `for` counts its induction variable in a register, copies loop-carried scalars at the
back edge and block accumulators in place; an `if` branches around its regions. After each op,
the storages whose last read it is are popped by that read (or by an explicit `cb.pop`).
"""
from __future__ import annotations

from isa import cb as cbi
from isa import dma, se, sync
from isa import scalar as riscv
from isa.types import Tile

from ...ir import Op
from ...ir.core import Block, Operation, Value
from ...ir.types import f64, i1, u64
from .. import dialect as mtia
from ..analysis.plan import Plan, TileLoc, Uniform, dtype_of
from ..passes.util import error_at
from ..target import Target
from . import cpp, dma_ops, dpe_ops, llvm, mlu_ops, re_ops, rvv_ops, scalar_ops, se_ops
from .emitter import Emitter, Proto, VReg

_LOADS = {"i8": riscv.Lb, "u8": riscv.Lbu, "i1": riscv.Lbu, "i16": riscv.Lh, "u16": riscv.Lhu, "i32": riscv.Lw,
          "u32": riscv.Lwu, "i64": riscv.Ld, "u64": riscv.Ld}
_STORES = {"i8": riscv.Sb, "u8": riscv.Sb, "i1": riscv.Sb, "i16": riscv.Sh, "u16": riscv.Sh, "i32": riscv.Sw,
           "u32": riscv.Sw, "i64": riscv.Sd, "u64": riscv.Sd}
BIG_IMM = 1 << 53                 # larger integer immediates travel in a register, not as an f64


class Listings:
    """The C++ and LLVM renderings, told the same events as codegen lowers each op."""

    def __init__(self, *listings):
        self.all = listings
        self.told = 0                                   # events so far (a lowering that told none is rendered)

    def __getattr__(self, event: str):
        def tell(*args) -> None:
            self.told += 1
            for listing in self.all:
                getattr(listing, event)(*args)
        return tell


class Codegen:
    def __init__(self, func: Operation, plan: Plan, target: Target):
        self.func = func
        self.plan = plan
        self.target = target
        self.e = Emitter()
        self.cpp = cpp.CppListing(self)
        self.llvm = llvm.LlvmListing(self)
        self.listing = Listings(self.cpp, self.llvm)
        self.sources: dict[VReg, Value | int] = {}     # what each register holds, for the LLVM listing
        self.regs: dict[Value, VReg] = {}
        self.args: list[tuple[Value, VReg]] = []
        self.end_label = "end"

    # ---- errors -----------------------------------------------------------------------------
    def error(self, op, message: str):
        return error_at(op, message)

    # ---- scalar values ----------------------------------------------------------------------
    def def_reg(self, v: Value) -> VReg:
        r = self.regs.get(v)
        if r is None:
            r = self.regs[v] = self.e.vreg("f" if _is_float(v.type) else "x")
            r.hint = self.cpp.name(v)
            self.sources[r] = v
        return r

    def const_int(self, v: Value):
        op = v.owner
        if isinstance(op, Operation) and op.name == Op.CONSTANT and not v.type.is_block():
            c = op.attrs["value"]
            if isinstance(c, bool):
                return int(c)
            if isinstance(c, int):
                return c
        return None

    def const_reg(self, c: int) -> VReg:
        r = self.e.vreg("x", cpp.literal(int(c)))
        self.sources[r] = int(c)
        self.e.emit(riscv.Li, rd=r, imm=int(c))
        return r

    def zero(self) -> VReg:
        return self.const_reg(0)

    def reg(self, v: Value) -> VReg:
        """The register holding scalar v (constants are materialised where they are used)."""
        r = self.regs.get(v)
        if r is not None:
            return r
        op = v.owner
        if isinstance(op, Operation) and op.name == Op.CONSTANT:
            c = op.attrs["value"]
            r = self.e.vreg("f" if _is_float(v.type) else "x", self.cpp.name(v))    # the constant's literal
            self.sources[r] = v
            if _is_float(v.type):
                self.e.emit(riscv.FliD if v.type == f64 else riscv.Fli, fd=r, imm=float(c))
            else:
                self.e.emit(riscv.Li, rd=r, imm=_canonical_int(c, v.type))
            return r
        raise self.error(op if isinstance(op, Operation) else None,
                         f"internal error: no register for {v!r} (defined by {getattr(op, 'name', op)})")

    def zext(self, r: VReg, t) -> VReg:
        bits = t.int_bitwidth if t.is_int() else 64
        if bits >= 64:
            return r
        out = self.e.vreg("x")
        self.e.emit({8: riscv.ZextB, 16: riscv.ZextH, 32: riscv.ZextW}[bits], rd=out, rs1=r)
        return out

    def select_into(self, rd: VReg, cond: VReg, pair) -> None:
        """rd = pair[0] if cond else pair[1], with a branch."""
        a, b = pair
        mv = riscv.FmvS if rd.cls == "f" else riscv.Mv
        done = self.e.new_label("sel")
        fields = ("fd", "fs1") if rd.cls == "f" else ("rd", "rs1")
        self.e.emit(mv, **{fields[0]: rd, fields[1]: a})
        self.e.emit(riscv.Bne, rs1=cond, rs2=self.zero(), target=done)
        self.e.emit(mv, **{fields[0]: rd, fields[1]: b})
        self.e.place(done)

    # ---- block values -----------------------------------------------------------------------
    def tile(self, v: Value, op: Operation, dtype: str | None = None) -> Tile:
        loc = self.plan.loc.get(v)
        if not isinstance(loc, TileLoc):
            raise self.error(op, f"internal error: {v!r} has no tile (it is {loc!r})")
        return Tile(loc.sid, "keep", dtype or loc.dtype, loc.shape)

    def scalar_src(self, value):
        """A scalar engine operand: an immediate, or the register of a scalar SSA value."""
        if isinstance(value, Value):
            c = self.const_int(value)
            if c is not None and abs(c) < BIG_IMM:
                return float(c)
            return self.reg(value)
        if isinstance(value, bool):
            return float(value)
        if isinstance(value, int) and abs(value) >= BIG_IMM:
            return self.const_reg(value)
        return float(value)

    def src(self, v: Value, op: Operation, dtype: str | None = None):
        loc = self.plan.loc.get(v)
        if isinstance(loc, Uniform):
            return self.scalar_src(loc.value)
        if loc is None and not v.type.is_block():
            return self.reg(v)
        return self.tile(v, op, dtype)

    def is_zero(self, value) -> bool:
        if isinstance(value, Value):
            value = self.const_int(value) if self.const_int(value) is not None else _float_const(value)
        return value is not None and not isinstance(value, Value) and float(value) == 0.0

    def xlist(self, values) -> tuple:
        out = []
        for v in values:
            c = self.const_int(v)
            out.append(c if c is not None else self.reg(v))
        return tuple(out)

    def valid(self, values, shape) -> tuple:
        """Valid extents, or () when every one is the full dimension."""
        vals = self.xlist(values)
        if all(isinstance(c, int) and c >= n for c, n in zip(vals, shape)):
            return ()
        return vals

    # ---- walking ----------------------------------------------------------------------------
    def run(self) -> Emitter:
        e = self.e
        func = self.func
        for a in func.body.args:
            r = self.def_reg(a)
            self.args.append((a, r))
        self.listing.header()
        self.block(func.body)
        e.place(self.end_label)
        e.emit(riscv.Halt)
        self.listing.finish()
        return e

    def block(self, blk: Block) -> None:
        for op in list(blk.ops):
            self.op(op)

    def op(self, op: Operation) -> None:
        e = self.e
        name = op.name
        if op.loc is not None:
            e.src_line = op.loc.line
        start = len(e.code)
        if name in (Op.YIELD, Op.CONDITION):
            return                                   # the enclosing op copies and pops for it
        engine = op.attrs.get("engine")
        if name in self.STRUCTURE:
            self.STRUCTURE[name](self, op)
        elif engine is not None:
            told = self.listing.told
            if engine in LOWERING:
                lower = LOWERING[engine].get(name)
                if lower is None:
                    raise self.error(op, f"{name} is not supported by the MTIA backend")
                lower(self, op)
            explicit = self.mark_last_reads(op, start)
            if self.listing.told == told:                    # unless the lowering told the listings itself
                self.listing.commands(op, e.code[start:])
            self.fetch_results(op)
            self.pop(op, explicit)
            return
        elif (op.results and op.results[0] in self.plan.loc) or _reads_tiles(op, self.plan):
            raise self.error(op, f"{name} is not supported by the MTIA backend")
        elif name in self.CORE:
            self.CORE[name](self, op)
        elif scalar_ops.lower(self, op):
            self.listing.scalar_op(op)
        else:
            raise self.error(op, f"{name} on scalars is not supported by the MTIA backend")
        self.apply_pops(op, start)

    def out_tile(self, op: Operation, result=None) -> Tile:
        """The tile an op's result is written to: a push, or acc when the op updates in place."""
        loc = self.plan.loc[result if result is not None else op.results[0]]
        mode = "acc" if self.plan.inplace.get(op) == loc.sid else "push"
        return Tile(loc.sid, mode, loc.dtype, loc.shape)

    def return_(self, op: Operation) -> None:
        if op.parent is not self.func.body:
            self.e.emit(riscv.J, target=self.end_label)
            self.listing.early_return()

    def barrier(self, op: Operation) -> None:
        self.e.emit(sync.Fence)
        self.listing.scalar_op(op)

    def nothing(self, op: Operation) -> None:
        """tt.assume is a hint; a scalar constant is materialised where it is used; a storage
        declaration (mtia.cb) is the program's .cb line."""

    def fetch_results(self, op: Operation) -> None:
        """0-d results that scalar code reads: wait for the tile and load it into a register."""
        for r in op.results:
            if r in self.plan.fetch:
                self.fetch(r, self.plan.loc[r].sid, self.plan.loc[r].dtype)
        if op.name == mtia.TO_SCALAR:
            src = self.plan.loc[op.src]
            self.fetch(op.results[0], src.sid, src.dtype)

    def fetch(self, v: Value, sid: int, dtype: str) -> None:
        self.load_slot(v, sid, dtype)
        self.listing.fetch(v, sid)

    def load_slot(self, v: Value, sid: int, dtype: str) -> None:
        """Wait for the slot of storage `sid` and load its element into v's register (a f16/bf16
        element through the f32 slot the SE widens it into)."""
        e = self.e
        widened = self.plan.widen.get(v)
        if widened is not None:
            e.emit(se.SeMov, out=Tile(widened, "push", "f32", (1,)), a=Tile(sid, "keep", dtype, (1,)))
            sid, dtype = widened, "f32"
        addr = e.vreg("x")
        e.emit(cbi.CbWait, rd=addr, cb=sid)
        rd = self.def_reg(v)
        if dtype in ("f32", "f64"):
            e.emit(riscv.Flw if dtype == "f32" else riscv.Fld, fd=rd, rs1=addr, imm=0)
        elif dtype in _LOADS:
            e.emit(_LOADS[dtype], rd=rd, rs1=addr, imm=0)
        else:
            raise self.error(v.owner, f"reading a {dtype} result into a scalar register is not supported")
        if widened is not None:
            e.emit(cbi.CbPop, cb=widened)

    def apply_pops(self, op: Operation, start: int, render: bool = False) -> None:
        """The last read of each storage dying at `op` pops it; others get an explicit cb.pop.
        With `render`, the op's engine commands go to the C++ listing once their modes are final."""
        explicit = self.mark_last_reads(op, start)
        if render:
            self.listing.commands(op, self.e.code[start:])
        self.pop(op, explicit)

    def mark_last_reads(self, op: Operation, start: int) -> list[int]:
        """Turn the op's last reads of its dying storages into pops; the storages it read none of."""
        return [sid for sid in self.plan.pops.get(op, ()) if not _mark_last_read(self.e.code, start, sid)]

    def pop(self, op: Operation, explicit: list[int]) -> None:
        e = self.e
        for sid in explicit:
            e.emit(cbi.CbPop, cb=sid)
            self.listing.cb_pop(sid)
        for sid in self.plan.pop_after.get(op, ()):
            e.emit(cbi.CbPop, cb=sid)
            self.listing.cb_pop(sid, f"{self.plan.storages[sid].name} is no longer read")

    # ---- control flow -----------------------------------------------------------------------
    def for_(self, op: Operation) -> None:
        e = self.e
        lb, ub, step = op.lower, op.upper, op.step
        body = op.body
        iv = self.def_reg(body.args[0])
        e.emit(riscv.Mv, rd=iv, rs1=self.reg(lb))
        carried = self.plan.carried.get(op, {})
        for j, (init, arg) in enumerate(zip(op.inits, body.args[1:])):
            if j in carried:
                continue
            r = self.def_reg(arg)
            self.copy(r, self.reg(init))
            self.regs[op.results[j]] = r
        start = len(e.code)
        for sid, init in self.plan.init_copies.get(op, []):
            self.fill_or_copy(sid, init, op, "push")
        self.listing.commands(op, e.code[start:])
        top, end = e.new_label("for"), e.new_label("endfor")
        self.listing.for_open(op)
        e.place(top)
        unsigned = lb.type.is_int_unsigned()
        e.emit(riscv.Bgeu if unsigned else riscv.Bge, rs1=iv, rs2=self.reg(ub), target=end)
        self.block(body)
        y = body.terminator
        start = len(e.code)
        for sid, v, mode in self.plan.yield_copies.get(y, []):
            self.fill_or_copy(sid, v, y, mode)
        self.apply_pops(y, start, render=True)
        self.parallel_copy([(self.regs[a], y.values[j]) for j, a in enumerate(body.args[1:]) if j not in carried])
        c = self.const_int(step)
        if c is not None:
            e.emit(riscv.Addi, rd=iv, rs1=iv, imm=c)
        else:
            e.emit(riscv.Add, rd=iv, rs1=iv, rs2=self.reg(step))
        scalar_ops.canonicalize(self, iv, lb.type)
        e.emit(riscv.J, target=top)
        self.listing.for_close(op)
        e.place(end)

    def copy(self, dst: VReg, src: VReg) -> None:
        if dst.cls == "f":
            self.e.emit(riscv.FmvS, fd=dst, fs1=src)
        else:
            self.e.emit(riscv.Mv, rd=dst, rs1=src)

    def parallel_copy(self, pairs) -> None:
        """dst_j = value_j for all j at once: values that are themselves destinations go via temps."""
        dests = {d for d, _ in pairs}
        staged = []
        for d, v in pairs:
            r = self.reg(v)
            if r in dests and r is not d:
                t = self.e.vreg(r.cls)
                self.copy(t, r)
                r = t
            staged.append((d, r))
        for d, r in staged:
            if d is not r:
                self.copy(d, r)

    def fill_or_copy(self, sid: int, v: Value, op: Operation, mode: str) -> None:
        """Write value v into storage sid (a push or an in-place overwrite)."""
        dtype = dtype_of(v.type)
        shape = tuple(v.type.shape) or (1,)
        out = Tile(sid, mode, dtype, shape)
        loc = self.plan.loc.get(v)
        if isinstance(loc, Uniform):
            self.e.emit(se.SeFill, out=out, value=self.scalar_src(loc.value))
        else:
            self.e.emit(se.SeMov, out=out, a=self.src(v, op))

    def if_(self, op: Operation) -> None:
        e = self.e
        cond = self.reg(op.cond)
        outs = [self.def_reg(r) if not r.type.is_block() else None for r in op.results]
        else_l, end = e.new_label("else"), e.new_label("endif")
        e.emit(riscv.Beq, rs1=cond, rs2=self.zero(), target=else_l)
        self.listing.if_open(op)
        for k, region in enumerate(op.regions):
            if k == 1:
                e.emit(riscv.J, target=end)
                e.place(else_l)
            self.block(region.block)
            y = region.block.terminator
            start = len(e.code)
            for sid, v, mode in self.plan.yield_copies.get(y, []):
                self.fill_or_copy(sid, v, y, mode)
            self.apply_pops(y, start, render=True)
            for r, v in zip(outs, y.operands):
                if r is not None:
                    self.copy(r, self.reg(v))
            self.listing.if_branch_end(op, k)
        e.place(end)

    def while_(self, op: Operation) -> None:
        e = self.e
        before, after = op.regions[0].block, op.regions[1].block
        carried = self.plan.carried.get(op, {})
        for j, (init, arg) in enumerate(zip(op.operands, before.args)):
            if j not in carried:
                self.copy(self.def_reg(arg), self.reg(init))
        start = len(e.code)
        for sid, init in self.plan.init_copies.get(op, []):
            self.fill_or_copy(sid, init, op, "push")
        self.listing.commands(op, e.code[start:])
        top, end = e.new_label("while"), e.new_label("endwhile")
        self.listing.while_open(op)
        e.place(top)
        self.block(before)
        cond = before.terminator
        for arg, v, res in zip(after.args, cond.values, op.results):
            if v.type.is_block():
                continue                          # the carried block stays in its CB
            r = self.def_reg(arg)
            self.copy(r, self.reg(v))
            self.regs[res] = r
        e.emit(riscv.Beq, rs1=self.reg(cond.cond), rs2=self.zero(), target=end)
        self.listing.while_test(op)
        self.block(after)
        y = after.terminator
        start = len(e.code)
        for sid, v, mode in self.plan.yield_copies.get(y, []):
            self.fill_or_copy(sid, v, y, mode)
        self.apply_pops(y, start, render=True)
        self.parallel_copy([(self.regs[a], v) for j, (a, v) in enumerate(zip(before.args, y.operands))
                            if j not in carried])
        e.emit(riscv.J, target=top)
        self.listing.while_close(op)
        e.place(end)

    # ---- scalar memory and printing ---------------------------------------------------------
    def scalar_load(self, op: Operation) -> None:
        e = self.e
        ptr, mask, other = op.ptr, op.mask, op.other
        dt = dtype_of(op.result.type)
        rd = self.def_reg(op.result)
        skip = None
        if mask is not None:
            if other is not None:
                self.copy(rd, self.reg(other))
            else:
                (e.emit(riscv.Fli, fd=rd, imm=0.0) if rd.cls == "f" else e.emit(riscv.Li, rd=rd, imm=0))
            skip = e.new_label("skipload")
            e.emit(riscv.Beq, rs1=self.reg(mask), rs2=self.zero(), target=skip)
        if op in self.plan.temps:           # f16/bf16: a one-element DMA, then the SE widens it into an f32 slot
            (sid,) = self.plan.temps[op]
            e.emit(dma.DmaIn, dst=Tile(sid, "push", dt, (1,)), base=self.reg(ptr), strides=(1,), unaligned=1)
            self.load_slot(op.result, sid, dt)          # (the listings show the load itself)
            e.emit(cbi.CbPop, cb=sid)
        elif dt in ("f32", "f64"):
            e.emit(riscv.Flw if dt == "f32" else riscv.Fld, fd=rd, rs1=self.reg(ptr), imm=0)
        elif dt in _LOADS:
            e.emit(_LOADS[dt], rd=rd, rs1=self.reg(ptr), imm=0)
        elif op.result.type.is_ptr():
            e.emit(riscv.Ld, rd=rd, rs1=self.reg(ptr), imm=0)
        else:
            raise self.error(op, f"a scalar load of {dt} is not supported by the control core (load a block)")
        if skip:
            e.place(skip)
        self.listing.scalar_op(op)

    def scalar_store(self, op: Operation) -> None:
        e = self.e
        ptr, val = op.ptr, op.value
        dt = dtype_of(val.type)
        skip = None
        if op.mask is not None:
            skip = e.new_label("skipstore")
            e.emit(riscv.Beq, rs1=self.reg(op.mask), rs2=self.zero(), target=skip)
        if op in self.plan.temps:           # f16/bf16/f64: the SE narrows or widens into a slot, a DMA stores it
            (sid,) = self.plan.temps[op]
            e.emit(se.SeFill, out=Tile(sid, "push", dt, (1,)), value=self.reg(val))
            e.emit(dma.DmaOut, src=Tile(sid, "pop", dt, (1,)), base=self.reg(ptr), strides=(1,), unaligned=1)
        elif dt in ("f32", "f64"):
            e.emit(riscv.Fsw if dt == "f32" else riscv.Fsd, fs2=self.reg(val), rs1=self.reg(ptr), imm=0)
        elif dt in _STORES:
            e.emit(_STORES[dt], rs2=self.reg(val), rs1=self.reg(ptr), imm=0)
        else:
            raise self.error(op, f"a scalar store of {dt} is not supported by the control core (store a block)")
        if skip:
            e.place(skip)
        self.listing.scalar_op(op)

    def assert_(self, op: Operation) -> None:
        """A scalar condition (the RE reduces a block one first: re_ops)."""
        self.device_assert(op, self.reg(op.cond))
        self.listing.device_assert(op, None)

    def device_assert(self, op: Operation, flag: VReg) -> None:
        self.e.emit(sync.DbgAssert, rs1=flag, msg=str(op.attrs.get("message", "assertion failed")))


Codegen.STRUCTURE = {Op.FOR: Codegen.for_, Op.IF: Codegen.if_, Op.WHILE: Codegen.while_, Op.RETURN: Codegen.return_}
Codegen.CORE = {Op.LOAD: Codegen.scalar_load, Op.STORE: Codegen.scalar_store,
                Op.ASSERT: Codegen.assert_, Op.DEBUG_BARRIER: Codegen.barrier, Op.ASSUME: Codegen.nothing,
                Op.CONSTANT: Codegen.nothing, mtia.CB: Codegen.nothing}
# engine -> {op name -> lowering}; "view" and "uniform" move no data (readers see the source's tile
# or the scalar), and the control core's "core" reads (mtia.to_scalar) are the result fetch
LOWERING = {"se": se_ops.LOWER, "dpe": dpe_ops.LOWER, "re": re_ops.LOWER, "mlu": mlu_ops.LOWER,
            "dma": dma_ops.LOWER, "rvv": rvv_ops.LOWER, "core": {mtia.TO_SCALAR: Codegen.nothing}}


def _is_float(t) -> bool:
    return t.is_floating()


def _canonical_int(c, t) -> int:
    c = int(c)
    if t.is_int() and t != i1 and t.int_bitwidth < 64:
        bits = t.int_bitwidth
        c &= (1 << bits) - 1
        if t.is_int_signed() and c >> (bits - 1):
            c -= 1 << bits
    elif t == u64 and c >= 1 << 63:
        c -= 1 << 64
    return c


def _float_const(v: Value):
    op = v.owner
    if isinstance(op, Operation) and op.name == Op.CONSTANT:
        return op.attrs["value"]
    return None


def _reads_tiles(op: Operation, plan: Plan) -> bool:
    return any(v.type.is_block() and isinstance(plan.loc.get(v), TileLoc) for v in op.operands)


def _mark_last_read(code: list, start: int, sid: int) -> bool:
    """Turn the last `keep` read of storage sid emitted since `start` into a `pop`."""
    for p in reversed(code[start:]):
        if not isinstance(p, Proto):
            continue
        for name in reversed(list(p.fields)):
            t = p.fields[name]
            if isinstance(t, Tile) and t.cb == sid and t.mode == "keep" and t.offset == 0:
                p.fields[name] = Tile(t.cb, "pop", t.dtype, t.shape)
                return True
    return False

