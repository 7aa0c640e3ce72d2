"""Run a kernel's IR with numpy, one program instance at a time over the grid (like TRITON_INTERPRET=1).

Structured ops (scf.for/if/while, tt.reduce/scan) run their regions here; every other op is
evaluated by its entry in `ops.EVAL`. Programs run in Triton's interpreter order
(x outermost, then y, then z); atomics are therefore trivially serial.
"""
from __future__ import annotations

import numpy as np

from isa import float_minmax as minmax

from ..errors import KernelRuntimeError, StepLimitError
from ..ir.core import Block, Operation
from ..ir.ops import Op
from ..ir.patterns import arg_extreme, combine_op
from .memory import FlatMemory
from .ops import EVAL, float_compute, np_type


class Interpreter:
    """`pe_of(linear program index)` gives `tl.mtia.get_pe_id()`; a program that runs more than
    `max_steps` operations is stopped with a StepLimitError (it seems never to end)."""

    def __init__(self, func: Operation, memory: FlatMemory, grid: tuple, pe_of=None, max_steps: int | None = None):
        self.func = func
        self.memory = memory
        self.grid = grid
        self.pe_of = pe_of or (lambda linear: 0)
        self.max_steps = max_steps
        self.pid = (0, 0, 0)
        self.pe_id = 0
        self.env: dict = {}
        self.steps_left = 0

    # --- driving ---
    def run_grid(self, args: list, on_program=None) -> int:
        """Run every program; `on_program(1)` is called after each (a progress bar's update)."""
        g0, g1, g2 = self.grid
        n = 0
        with np.errstate(all="ignore"):
            for x in range(g0):
                for y in range(g1):
                    for z in range(g2):
                        self.pid = (x, y, z)
                        self.pe_id = self.pe_of(x + g0 * (y + g1 * z))
                        self.run_program(args)
                        n += 1
                        if on_program is not None:
                            on_program(1)
        return n

    def run_program(self, args: list) -> None:
        self.env = {}
        self.steps_left = self.max_steps if self.max_steps is not None else float("inf")
        body = self.func.body
        for a, v in zip(body.args, args):
            self.env[a] = v
        self.run_block(body)

    def run_block(self, block: Block) -> list:
        """Run the block's ops; return the values of its terminator's operands."""
        env = self.env
        ops = block.ops
        self.steps_left -= len(ops)          # counted per block: one subtraction, not one per op
        if self.steps_left < 0:
            self._step_limit(ops[len(ops) + int(self.steps_left)])
        for op in ops:
            name = op.name
            if name in _TERMINATORS:
                return [env[v] for v in op.operands]
            try:
                handler = _STRUCTURED.get(name)
                if handler is not None:
                    results = handler(self, op)
                else:
                    results = EVAL[name](self, op, [env[v] for v in op.operands])
            except KernelRuntimeError as e:
                if e.loc is None:
                    raise type(e)(_bare(e), kernel=self.func.attrs.get("sym_name"), program_id=self.pid,
                                  loc=op.loc, pe=self.pe_id) from None
                raise
            except Exception as e:   # a bug or an unsupported case: report it at the kernel line
                what = f"the interpreter has no implementation of '{name}'" if name not in EVAL and \
                    name not in _STRUCTURED else f"internal error while running '{name}': {type(e).__name__}: {e}"
                raise KernelRuntimeError(what, self.func.attrs.get("sym_name"), self.pid, op.loc, self.pe_id) from e
            for r, v in zip(op.results, results):
                env[r] = v
        return []

    def _step_limit(self, op: Operation):
        raise StepLimitError(f"the program ran more than {self.max_steps} steps (IR operations) and was stopped "
                             f"at `{op.name}`: it seems never to end. If it really runs that long, raise the limit "
                             f"(the max_steps= launch option, or MTIASIM_MAX_STEPS)",
                             kernel=self.func.attrs.get("sym_name"), program_id=self.pid, loc=op.loc, pe=self.pe_id)

    def run_region(self, block: Block, values: list) -> list:
        for a, v in zip(block.args, values):
            self.env[a] = v
        return self.run_block(block)


def _bare(e: KernelRuntimeError) -> str:
    return str(e.args[0]) if e.args else str(e)


_TERMINATORS = {Op.YIELD, Op.CONDITION, Op.RETURN, Op.REDUCE_RETURN, Op.SCAN_RETURN}


# --- structured ops ---------------------------------------------------------------------------------

def _for(it: Interpreter, op: Operation):
    env = it.env
    lb, ub, step = (int(env[v]) for v in (op.lower, op.upper, op.step))
    carried = [env[v] for v in op.inits]
    body = op.body
    ivt = np_type(op.lower.type)
    if step <= 0:
        raise KernelRuntimeError(f"scf.for step must be positive, got {step}")
    for iv in range(lb, ub, step):
        carried = it.run_region(body, [np.asarray(iv, dtype=ivt)] + carried)
    return carried


def _if(it: Interpreter, op: Operation):
    region = op.regions[0] if bool(it.env[op.cond]) else op.regions[1]
    return it.run_block(region.block)


def _while(it: Interpreter, op: Operation):
    before, after = op.regions[0].block, op.regions[1].block
    carried = [it.env[v] for v in op.operands]
    while True:
        cond_and_values = it.run_region(before, carried)
        if not bool(cond_and_values[0]):
            return cond_and_values[1:]
        carried = it.run_region(after, cond_and_values[1:])


def _simple_combine(op: Operation):
    """The name of the single binary op of a combine region `(a, b) -> a <op> b`, if that is all it does."""
    inner = combine_op(op)
    return inner.name if inner is not None else None


_REDUCERS = {Op.ADDF: np.add, Op.ADDI: np.add, Op.MULF: np.multiply, Op.MULI: np.multiply,
             Op.MAXNUMF: minmax.fmax, Op.MINNUMF: minmax.fmin, Op.MAXIMUMF: minmax.maximum, Op.MINIMUMF: minmax.minimum,
             Op.MAXSI: np.maximum, Op.MINSI: np.minimum, Op.ANDI: np.bitwise_and, Op.ORI: np.bitwise_or,
             Op.XORI: np.bitwise_xor}


def _first_extreme(x: np.ndarray, axis: int, pick, op: Operation) -> list:
    """tl.argmax / tl.argmin's combine (recognised): the extreme and the first index of it, NaNs ignored,
    as Triton defines them (NaN and index 0 when every element is NaN). A pairwise tree of the region
    would give an order-dependent answer on NaNs, and the last index on ties under tie_break_left=False."""
    best = pick.reduce(x, axis=axis, keepdims=True)
    index = np.argmax(x == best, axis=axis)
    return [np.squeeze(best, axis).astype(np_type(op.results[0].type)), index.astype(np_type(op.results[1].type))]


def _reduce(it: Interpreter, op: Operation):
    axis = op.attrs["axis"]
    srcs = [np.asarray(it.env[v]) for v in op.operands]
    kind = _simple_combine(op)
    extreme = arg_extreme(op)
    if extreme is not None:
        return _first_extreme(srcs[0], axis, minmax.fmax if extreme == "argmax" else minmax.fmin, op)
    if kind in _REDUCERS:
        dt = np_type(op.results[0].type)
        fn = _REDUCERS[kind]
        if dt.kind in "fV":
            return [float_compute(lambda x: fn.reduce(x, axis=axis), dt, srcs[0])]
        return [np.asarray(fn.reduce(srcs[0], axis=axis)).astype(dt)]
    # general combine: a pairwise tree over the axis, running the region on whole half-blocks
    xs = [np.moveaxis(s, axis, -1) for s in srcs]
    while xs[0].shape[-1] > 1:
        n = xs[0].shape[-1]
        half = n // 2
        lhs = [x[..., 0:2 * half:2] for x in xs]
        rhs = [x[..., 1:2 * half:2] for x in xs]
        out = it.run_region(op.body, lhs + rhs)
        out = [np.broadcast_to(o, lhs[0].shape) for o in out]
        if n % 2:
            out = [np.concatenate([o, x[..., -1:]], axis=-1) for o, x in zip(out, xs)]
        xs = out
    return [np.asarray(x[..., 0]).astype(np_type(r.type)) for x, r in zip(xs, op.results)]


def _scan(it: Interpreter, op: Operation):
    axis, reverse = op.attrs["axis"], op.attrs["reverse"]
    srcs = [np.asarray(it.env[v]) for v in op.operands]
    kind = _simple_combine(op)
    if kind in (Op.ADDF, Op.ADDI, Op.MULF, Op.MULI) and len(srcs) == 1:
        dt = np_type(op.results[0].type)
        fn = np.cumsum if kind in (Op.ADDF, Op.ADDI) else np.cumprod
        x = np.flip(srcs[0], axis) if reverse else srcs[0]
        r = float_compute(lambda v: fn(v, axis=axis), dt, x) if dt.kind in "fV" else \
            np.asarray(fn(x, axis=axis, dtype=dt)).astype(dt)
        return [np.flip(r, axis) if reverse else r]
    xs = [np.moveaxis(s, axis, -1) for s in srcs]
    n = xs[0].shape[-1]
    order = range(n - 1, -1, -1) if reverse else range(n)
    outs = [np.empty_like(x) for x in xs]
    acc = None
    for i in order:
        cur = [x[..., i] for x in xs]
        if acc is None:
            acc = cur
        else:
            acc = it.run_region(op.body, acc + cur)   # reverse too: Triton's scan of the flipped axis
        for o, a in zip(outs, acc):
            o[..., i] = a
    return [np.moveaxis(o, -1, axis) for o in outs]


_STRUCTURED = {Op.FOR: _for, Op.IF: _if, Op.WHILE: _while, Op.REDUCE: _reduce, Op.SCAN: _scan}
