"""Every op of the IR, named once in `Op` and declared once in `OP_DEFS` with its semantics.

The ops follow Triton's TTIR (tt.*, arith.*, math.*, scf.*) so that backend passes written against
TTIR knowledge carry over. The reference interpreter (`compiler/interpreter/`) is the executable
definition of each op; the docstrings here say the same thing in words.

Conventions shared by all ops:
- "elementwise" ops accept scalars or blocks; all operands and the result have one type
  (the frontend inserts splat/broadcast/casts first, so the IR never broadcasts implicitly);
- integers wrap (two's complement); signedness lives in the type (i32 vs u32) *and* in the op
  (divsi vs divui), as in MLIR's arith dialect;
- i1 is Triton's bool; pointers are 64-bit byte addresses, `tt.addptr` offsets count elements.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Callable

from .types import BlockType, PointerType, ScalarType, TensorDescType, i1, i32


class Op(str, Enum):
    """All op names, in one place. Members compare equal to their strings (`op.name == Op.LOAD`)."""

    def __str__(self) -> str:
        return self.value
    # structure
    MODULE = "builtin.module"
    FUNC = "tt.func"
    RETURN = "tt.return"
    # constants and program ids
    CONSTANT = "arith.constant"
    GET_PROGRAM_ID = "tt.get_program_id"
    GET_NUM_PROGRAMS = "tt.get_num_programs"
    MAKE_RANGE = "tt.make_range"
    # integer arithmetic
    ADDI = "arith.addi"
    SUBI = "arith.subi"
    MULI = "arith.muli"
    DIVSI = "arith.divsi"
    DIVUI = "arith.divui"
    REMSI = "arith.remsi"
    REMUI = "arith.remui"
    ANDI = "arith.andi"
    ORI = "arith.ori"
    XORI = "arith.xori"
    SHLI = "arith.shli"
    SHRSI = "arith.shrsi"
    SHRUI = "arith.shrui"
    MAXSI = "arith.maxsi"
    MINSI = "arith.minsi"
    MAXUI = "arith.maxui"
    MINUI = "arith.minui"
    MULHIUI = "tt.mulhiui"
    ABSI = "math.absi"
    # float arithmetic
    ADDF = "arith.addf"
    SUBF = "arith.subf"
    MULF = "arith.mulf"
    DIVF = "arith.divf"
    REMF = "arith.remf"
    NEGF = "arith.negf"
    MAXIMUMF = "arith.maximumf"
    MINIMUMF = "arith.minimumf"
    MAXNUMF = "arith.maxnumf"
    MINNUMF = "arith.minnumf"
    PRECISE_DIVF = "tt.precise_divf"
    PRECISE_SQRT = "tt.precise_sqrt"
    EXP = "math.exp"
    EXP2 = "math.exp2"
    LOG = "math.log"
    LOG2 = "math.log2"
    SQRT = "math.sqrt"
    RSQRT = "math.rsqrt"
    ABSF = "math.absf"
    ERF = "math.erf"
    FLOOR = "math.floor"
    CEIL = "math.ceil"
    SIN = "math.sin"
    COS = "math.cos"
    TANH = "math.tanh"
    ROUNDEVEN = "math.roundeven"
    POWF = "math.powf"
    ATAN2 = "math.atan2"
    ISNAN = "math.isnan"
    ISINF = "math.isinf"
    FMA = "math.fma"
    # comparisons and selection
    CMPI = "arith.cmpi"
    CMPF = "arith.cmpf"
    SELECT = "arith.select"
    # casts
    EXTSI = "arith.extsi"
    EXTUI = "arith.extui"
    TRUNCI = "arith.trunci"
    SITOFP = "arith.sitofp"
    UITOFP = "arith.uitofp"
    FPTOSI = "arith.fptosi"
    FPTOUI = "arith.fptoui"
    EXTF = "arith.extf"
    TRUNCF = "arith.truncf"
    BITCAST = "arith.bitcast"
    FP_TO_FP = "tt.fp_to_fp"
    PTR_BITCAST = "tt.bitcast"
    INT_TO_PTR = "tt.int_to_ptr"
    PTR_TO_INT = "tt.ptr_to_int"
    # shapes
    SPLAT = "tt.splat"
    BROADCAST = "tt.broadcast"
    EXPAND_DIMS = "tt.expand_dims"
    RESHAPE = "tt.reshape"
    TRANS = "tt.trans"
    JOIN = "tt.join"
    SPLIT = "tt.split"
    CAT = "tt.cat"
    EXTRACT_SLICE = "tt.extract_slice"
    # memory
    ADDPTR = "tt.addptr"
    LOAD = "tt.load"
    STORE = "tt.store"
    ATOMIC_RMW = "tt.atomic_rmw"
    ATOMIC_CAS = "tt.atomic_cas"
    MAKE_TENSOR_DESCRIPTOR = "tt.make_tensor_descriptor"
    DESCRIPTOR_LOAD = "tt.descriptor_load"
    DESCRIPTOR_STORE = "tt.descriptor_store"
    # compute on blocks
    DOT = "tt.dot"
    REDUCE = "tt.reduce"
    REDUCE_RETURN = "tt.reduce.return"
    SCAN = "tt.scan"
    SCAN_RETURN = "tt.scan.return"
    GATHER = "tt.gather"
    HISTOGRAM = "tt.histogram"
    # debugging and hints
    PRINT = "tt.print"
    ASSERT = "tt.assert"
    ASSUME = "tt.assume"
    DEBUG_BARRIER = "tt.debug_barrier"
    # structured control flow
    FOR = "scf.for"
    IF = "scf.if"
    WHILE = "scf.while"
    YIELD = "scf.yield"
    CONDITION = "scf.condition"
    # MTIA extensions
    GET_PE_ID = "mtia.get_pe_id"
    RE_REDUCE = "mtia.re_reduce"


class VerifyError(Exception):
    """The IR breaks an op's contract (raised by `verify`)."""


@dataclass(frozen=True)
class OpDef:
    """What an op is: operand names, result count (None: any), required attributes, region count,
    whether it is free of side effects, and its semantics.

    Operand names: "x" one value, "x?" optional (absent ones are trailing), "xs*" any number,
    "xs*rank" as many as the op's attribute `rank` says (none when `rank` is absent and not a required
    attribute). Each name is an accessor on the op: `op.mask` is the value (None when absent),
    `op.strides` a tuple."""
    name: Op
    doc: str
    operands: tuple[str, ...] = ()
    results: int | None = 1
    attrs: tuple[str, ...] = ()
    regions: int = 0
    pure: bool = True
    terminator: bool = False
    elementwise: bool = False
    check: Callable | None = field(default=None, repr=False)
    operand_kinds: dict = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        kinds = {}
        for spec in self.operands:
            base, star, size = spec.partition("*")
            kind = ("var", size or None) if star else ("opt", None) if base.endswith("?") else ("one", None)
            kinds[base.rstrip("?")] = kind
        unsized = sum(k == ("var", None) for k in kinds.values())
        if unsized > 1 or (unsized and any(k[0] == "opt" for k in kinds.values())):
            raise ValueError(f"{self.name}: operands {self.operands} cannot be told apart by position")
        object.__setattr__(self, "operand_kinds", kinds)

    def operand_segments(self, op) -> dict[str, slice | int | None]:
        """Where each declared operand sits in `op.operands`: an index (None for an absent optional)
        or a slice for a variadic. Raises VerifyError when the count cannot match the declaration."""
        n = len(op.operands)
        sizes = {}
        fixed = 0
        for name, (kind, size_attr) in self.operand_kinds.items():
            if kind == "one":
                fixed += 1
            elif kind == "var" and size_attr is not None:
                k = op.attrs.get(size_attr, None if size_attr in self.attrs else 0)
                if not isinstance(k, int) or k < 0:
                    raise VerifyError(f"'{op.name}' op needs an integer attribute '{size_attr}' "
                                      f"(the count of its {name} operands)")
                sizes[name] = k
                fixed += k
        spare = n - fixed
        optional = sum(k[0] == "opt" for k in self.operand_kinds.values())
        unsized = any(k == ("var", None) for k in self.operand_kinds.values())
        if spare < 0 or (not unsized and spare > optional):
            raise VerifyError(f"'{op.name}' op has {n} operands; expected {', '.join(self.operands) or 'none'}")
        out, i = {}, 0
        for name, (kind, _size_attr) in self.operand_kinds.items():
            if kind == "one":
                out[name] = i
                i += 1
            elif kind == "opt":
                out[name] = i if spare > 0 else None
                i += spare > 0
                spare -= spare > 0
            else:
                k = sizes.get(name, spare)
                out[name] = slice(i, i + k)
                i += k
        return out

    def operand_value(self, op, name: str):
        """The operand declared as `name`: a Value, None (an absent optional) or a tuple (variadic)."""
        where = self.operand_segments(op)[name]
        if where is None:
            return None
        return op.operands[where]


OP_DEFS: dict[str, OpDef] = {}


def define(name: Op, doc: str, **kw) -> OpDef:
    d = OpDef(name, doc.strip(), **kw)
    if name in OP_DEFS:
        raise ValueError(f"op {name} declared twice")
    OP_DEFS[name] = d
    return d


# --- verification helpers ---------------------------------------------------------------------

def _fail(op, msg: str):
    raise VerifyError(f"'{op.name}' op {msg}")


def _same_types(kind: str | None = None):
    """All operands and the single result share one type; `kind` restricts the scalar type."""
    def check(op):
        ts = {v.type for v in op.operands} | {r.type for r in op.results}
        if len(ts) != 1:
            _fail(op, "requires all operands and the result to have one type, got "
                  + ", ".join(sorted(t.ir for t in ts)))
        t = ts.pop().scalar
        if kind == "int" and not (isinstance(t, ScalarType) and t.is_int()):
            _fail(op, f"requires integer operands, got {t.ir}")
        if kind == "float" and not (isinstance(t, ScalarType) and t.is_floating()):
            _fail(op, f"requires floating point operands, got {t.ir}")
    return check


def _cast(src_ok: Callable, dst_ok: Callable, width: Callable | None = None):
    def check(op):
        s, d = op.x.type, op.result.type
        if s.shape != d.shape:
            _fail(op, f"changes shape {s.ir} -> {d.ir}")
        if not (src_ok(s.scalar) and dst_ok(d.scalar)):
            _fail(op, f"cannot cast {s.ir} to {d.ir}")
        if width and not width(s.scalar, d.scalar):
            _fail(op, f"has an invalid bit width change {s.ir} -> {d.ir}")
    return check


def _is_int(t):
    return isinstance(t, ScalarType) and t.is_int()


def _is_float(t):
    return isinstance(t, ScalarType) and t.is_floating()


def _is_ptr(t):
    return isinstance(t, PointerType)


def _check_cmp(kind):
    def check(op):
        a, b = op.operands
        if a.type != b.type:
            _fail(op, f"compares different types {a.type.ir} and {b.type.ir}")
        want = i1 if not a.type.shape else BlockType(a.type.shape, i1)
        if op.result.type != want:
            _fail(op, f"result must be {want.ir}")
        preds = INT_PREDICATES if kind == "int" else FLOAT_PREDICATES
        if op.attrs.get("predicate") not in preds:
            _fail(op, f"has unknown predicate {op.attrs.get('predicate')!r}")
    return check


def _check_float_test(op):
    x = op.x.type
    if not _is_float(x.scalar) or op.result.type != i1.with_shape(x.shape):
        _fail(op, f"needs floats and gives i1 of their shape, got {x.ir} -> {op.result.type.ir}")


INT_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
FLOAT_PREDICATES = ("oeq", "one", "olt", "ole", "ogt", "oge", "une", "ord", "uno")


def _check_select(op):
    c, a, b = op.operands
    if a.type != b.type or op.result.type != a.type:
        _fail(op, "requires both choices and the result to have one type")
    if c.type.scalar != i1 or (c.type.shape and c.type.shape != a.type.shape):
        _fail(op, f"condition must be i1 of the result's shape, got {c.type.ir}")


def _check_splat(op):
    s, r = op.src.type, op.result.type
    if s.is_block() or not r.is_block() or r.scalar != s:
        _fail(op, f"cannot splat {s.ir} to {r.ir}")


def _check_broadcast(op):
    s, r = op.src.type, op.result.type
    if not s.is_block() or not r.is_block() or s.scalar != r.scalar or len(s.shape) != len(r.shape):
        _fail(op, f"cannot broadcast {s.ir} to {r.ir}")
    for a, b in zip(s.shape, r.shape):
        if a != b and a != 1:
            _fail(op, f"cannot broadcast {s.ir} to {r.ir}")


def _check_expand_dims(op):
    s, r = op.src.type, op.result.type
    shape = list(s.shape)
    shape.insert(op.attrs["axis"], 1)
    if r != BlockType(tuple(shape), s.scalar):
        _fail(op, f"expand_dims axis {op.attrs['axis']} of {s.ir} is not {r.ir}")


def _check_reshape(op):
    s, r = op.src.type, op.result.type
    if s.numel != r.numel or s.scalar != r.scalar:
        _fail(op, f"cannot reshape {s.ir} to {r.ir}")


def _check_trans(op):
    s, r = op.src.type, op.result.type
    order = list(op.attrs["order"])
    if sorted(order) != list(range(len(s.shape))) or r != BlockType(tuple(s.shape[i] for i in order), s.scalar):
        _fail(op, f"order {order} does not map {s.ir} to {r.ir}")


def _check_join(op):
    a, b = op.operands
    if a.type != b.type or op.result.type != BlockType(tuple(a.type.shape) + (2,), a.type.scalar):
        _fail(op, f"cannot join {a.type.ir} and {b.type.ir} into {op.result.type.ir}")


def _check_split(op):
    s = op.src.type
    if not s.shape or s.shape[-1] != 2:
        _fail(op, f"needs a last dimension of 2, got {s.ir}")
    want = s.with_shape(s.shape[:-1])
    if any(r.type != want for r in op.results) or len(op.results) != 2:
        _fail(op, f"results must be two {want.ir}")


def _check_cat(op):
    a, b = op.operands
    r = op.result.type
    if a.type.scalar != b.type.scalar or a.type.shape[1:] != b.type.shape[1:] or \
            r.shape != (a.type.shape[0] + b.type.shape[0],) + tuple(a.type.shape[1:]):
        _fail(op, f"cannot concatenate {a.type.ir} and {b.type.ir} into {r.ir}")


def _check_extract_slice(op):
    s, r = op.src.type, op.result.type
    offs, sizes, strides = op.attrs["offsets"], op.attrs["sizes"], op.attrs["strides"]
    if not (len(offs) == len(sizes) == len(strides) == len(s.shape)) or tuple(sizes) != r.shape:
        _fail(op, f"offsets/sizes/strides do not slice {s.ir} into {r.ir}")
    for o, n, st, d in zip(offs, sizes, strides, s.shape):
        if o < 0 or st < 1 or o + (n - 1) * st >= d:
            _fail(op, f"slice [{o}:{o + n * st}:{st}] is out of bounds of dimension {d}")


def _check_make_range(op):
    s, e = op.attrs["start"], op.attrs["end"]
    if op.result.type != BlockType((e - s,), i32):
        _fail(op, f"[{s}, {e}) must give tensor<{e - s}xi32>")


def _check_addptr(op):
    p, o = op.operands
    if not _is_ptr(p.type.scalar) or not _is_int(o.type.scalar) or p.type.shape != o.type.shape \
            or op.result.type != p.type:
        _fail(op, f"needs a pointer and integer offsets of one shape, got {p.type.ir}, {o.type.ir}")


def _check_load(op):
    p = op.ptr.type
    if not _is_ptr(p.scalar):
        _fail(op, f"needs pointers, got {p.ir}")
    if op.result.type != p.scalar.element_ty.with_shape(p.shape):
        _fail(op, f"result {op.result.type.ir} is not what {p.ir} points to")
    if op.mask is not None and op.mask.type != i1.with_shape(p.shape):
        _fail(op, f"mask must be i1 of the pointer's shape, got {op.mask.type.ir}")
    if op.other is not None and op.other.type != op.result.type:
        _fail(op, f"other must have the result type, got {op.other.type.ir}")


def _check_store(op):
    p, v, mask = op.ptr, op.value, op.mask
    if not _is_ptr(p.type.scalar) or v.type.shape != p.type.shape or v.type.scalar != p.type.scalar.element_ty:
        _fail(op, f"cannot store {v.type.ir} through {p.type.ir}")
    if mask is not None and (mask.type.scalar != i1 or mask.type.shape != p.type.shape):
        _fail(op, "mask must be i1 of the pointer shape")


ATOMIC_RMW_OPS = ("add", "fadd", "max", "min", "umax", "umin", "xchg", "and", "or", "xor")


def _check_atomic_rmw(op):
    p, v = op.ptr, op.val
    if not _is_ptr(p.type.scalar) or v.type.shape != p.type.shape or v.type.scalar != p.type.scalar.element_ty \
            or op.result.type != v.type:
        _fail(op, f"cannot apply to {v.type.ir} through {p.type.ir}")
    if op.attrs.get("atomic_rmw_op") not in ATOMIC_RMW_OPS:
        _fail(op, f"unknown atomic_rmw_op {op.attrs.get('atomic_rmw_op')!r}")


def _check_dot(op):
    a, b, c = op.a.type, op.b.type, op.c.type
    slices = op.attrs.get("kslices", 1)
    if slices != 1 and (not isinstance(slices, int) or slices < 1 or a.shape[-1] % slices):
        _fail(op, f"cannot sum K = {a.shape[-1]} in kslices = {slices!r} equal slices")
    used = op.kused
    if used is not None and (used.type.is_block() or not used.type.is_int()):
        _fail(op, f"kused must be an integer scalar, got {used.type.ir}")
    if len(a.shape) not in (2, 3) or a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
        _fail(op, f"cannot multiply {a.ir} by {b.ir}")
    if c.shape != a.shape[:-1] + b.shape[-1:] or op.result.type != c:
        _fail(op, f"accumulator {c.ir} does not match {a.ir} x {b.ir}")
    if a.scalar != b.scalar and not (a.scalar.is_fp8() and b.scalar.is_fp8()):
        _fail(op, f"operands have different element types {a.scalar.ir} and {b.scalar.ir}")


def _check_reduce(op):
    axis = op.attrs["axis"]
    srcs = op.srcs
    shape = srcs[0].type.shape
    if any(s.type.shape != shape for s in srcs) or not 0 <= axis < len(shape):
        _fail(op, f"needs operands of one shape and an axis inside it, got axis {axis}")
    out = tuple(d for i, d in enumerate(shape) if i != axis)
    for s, r in zip(srcs, op.results):
        if r.type != s.type.scalar.with_shape(out):
            _fail(op, f"result {r.type.ir} is not {s.type.ir} reduced along {axis}")
    blk = op.body
    if [a.type for a in blk.args] != [s.type.scalar for s in srcs] * 2:
        _fail(op, "combine region must take (lhs..., rhs...) scalars")


def _check_scan(op):
    axis = op.attrs["axis"]
    shape = op.srcs[0].type.shape
    if not 0 <= axis < len(shape) or [r.type for r in op.results] != [s.type for s in op.srcs]:
        _fail(op, "results must match the operands and axis must be inside the shape")


def _check_gather(op):
    src, idx = (v.type for v in op.operands)
    axis = op.attrs["axis"]
    if not src.is_block() or not idx.is_block() or len(src.shape) != len(idx.shape):
        _fail(op, f"needs a source and an index block of one rank, got {src.ir} and {idx.ir}")
    if not _is_int(idx.scalar):
        _fail(op, f"index must be integers, got {idx.ir}")
    if not isinstance(axis, int) or not 0 <= axis < len(src.shape):
        _fail(op, f"axis {axis} is outside a rank-{len(src.shape)} source")
    for d, (a, b) in enumerate(zip(src.shape, idx.shape)):
        if d != axis and a != b:
            _fail(op, f"index dimension {d} ({b}) must match the source dimension ({a})")
    if op.result.type != src.scalar.with_shape(idx.shape):
        _fail(op, f"result {op.result.type.ir} must have the source's element type and the index's shape")


def _check_histogram(op):
    src, r = op.src.type, op.result.type
    if not src.is_block() or len(src.shape) != 1 or not _is_int(src.scalar):
        _fail(op, f"needs a 1-D block of integers, got {src.ir}")
    if not r.is_block() or len(r.shape) != 1 or r.scalar != i32:
        _fail(op, f"result must be a 1-D block of i32 (one count per bin), got {r.ir}")
    if op.mask is not None and op.mask.type != i1.with_shape(src.shape):
        _fail(op, f"mask must be i1 of the input's shape, got {op.mask.type.ir}")


def _check_for(op):
    lb, ub, step, inits = op.lower, op.upper, op.step, op.inits
    if not (lb.type == ub.type == step.type) or not _is_int(lb.type) or lb.type.is_block():
        _fail(op, f"bounds must be integer scalars of one type, got {lb.type.ir}, {ub.type.ir}, {step.type.ir}")
    body = op.body
    if [a.type for a in body.args] != [lb.type] + [v.type for v in inits]:
        _fail(op, "body arguments must be (induction variable, iter_args...)")
    if [r.type for r in op.results] != [v.type for v in inits]:
        _fail(op, "results must have the iter_args' types")
    _check_yield_types(op, body, [v.type for v in inits])


def _check_if(op):
    if op.cond.type != i1:
        _fail(op, f"condition must be i1, got {op.cond.type.ir}")
    for r in op.regions:
        _check_yield_types(op, r.block, [x.type for x in op.results])


def _check_while(op):
    before, after = op.regions[0].block, op.regions[1].block
    init_types = [v.type for v in op.operands]
    if [a.type for a in before.args] != init_types:
        _fail(op, "before region arguments must match the init values")
    cond = before.terminator
    if cond is None or cond.name != Op.CONDITION:
        _fail(op, "before region must end with scf.condition")
    fwd = [v.type for v in cond.values]
    if [a.type for a in after.args] != fwd or [r.type for r in op.results] != fwd:
        _fail(op, "after region arguments and results must match scf.condition's values")
    _check_yield_types(op, after, init_types)


def _check_yield_types(op, block, types):
    term = block.terminator
    if term is None or term.name != Op.YIELD:
        _fail(op, "region must end with scf.yield")
    got = [v.type for v in term.operands]
    if got != list(types):
        _fail(op, f"yields ({', '.join(t.ir for t in got)}) but expects ({', '.join(t.ir for t in types)})")


def _check_desc(op):
    desc = op.result.type
    rank = len(desc.block_type.shape)
    if len(op.shape_and_strides) != 2 * rank or not _is_ptr(op.base.type):
        _fail(op, f"needs a base pointer and {rank} sizes and {rank} strides")
    if any(not _is_int(v.type) or v.type.is_block() for v in op.shape_and_strides):
        _fail(op, "sizes and strides must be integer scalars")


def _check_desc_load(op):
    desc = op.desc.type
    if not isinstance(desc, TensorDescType) or op.result.type != desc.block_type or \
            len(op.offsets) != len(desc.block_type.shape):
        _fail(op, "needs a descriptor and one offset per dimension; result is the descriptor's block")


def _check_desc_store(op):
    desc, val = op.desc, op.value
    if not isinstance(desc.type, TensorDescType) or val.type != desc.type.block_type or \
            len(op.offsets) != len(desc.type.block_type.shape):
        _fail(op, "needs a descriptor, a value of its block type and one offset per dimension")



# --- declarations -----------------------------------------------------------------------------

define(Op.MODULE, "The top level: one region whose block holds functions.", results=0, regions=1, pure=False)
define(Op.FUNC, """A function (the kernel). attrs: sym_name; arg_attrs (one dict per argument, e.g.
{tt.divisibility = 16}). Its block arguments are the runtime parameters; constexprs were folded in.""",
       results=0, regions=1, pure=False, attrs=("sym_name",))
define(Op.RETURN, "Ends the function (no values: kernels return nothing).", operands=("values*",),
       results=0, terminator=True, pure=False)

define(Op.CONSTANT, """A constant of the result type; a block result is filled with the one value
(a splat). attrs: value (Python int/float/bool; ints are the mathematical value, e.g. 0xFFFFFFFF for u32;
for the storage-only fp8 types, the code: no float type holds their values).""",
       attrs=("value",))
define(Op.GET_PROGRAM_ID, "The program id along `axis` (0, 1 or 2) of the running program; i32.", attrs=("axis",))
define(Op.GET_NUM_PROGRAMS, "The grid size along `axis` (0, 1 or 2); i32.", attrs=("axis",))
define(Op.MAKE_RANGE, "tensor<(end-start)xi32> holding start, start+1, ..., end-1. attrs: start, end.",
       attrs=("start", "end"), check=_check_make_range)

for _name, _doc in [
    (Op.ADDI, "a + b, wrapping."), (Op.SUBI, "a - b, wrapping."), (Op.MULI, "a * b, low bits, wrapping."),
    (Op.DIVSI, "Signed a / b truncated toward zero (C semantics)."),
    (Op.DIVUI, "Unsigned a / b."), (Op.REMSI, "Signed remainder; its sign follows a (C fmod)."),
    (Op.REMUI, "Unsigned remainder."), (Op.ANDI, "Bitwise and."), (Op.ORI, "Bitwise or."),
    (Op.XORI, "Bitwise xor."), (Op.SHLI, "a << b."), (Op.SHRSI, "Arithmetic (sign-filling) a >> b."),
    (Op.SHRUI, "Logical (zero-filling) a >> b."), (Op.MAXSI, "Signed max."), (Op.MINSI, "Signed min."),
    (Op.MAXUI, "Unsigned max."), (Op.MINUI, "Unsigned min."),
    (Op.MULHIUI, "The high half of the 2N-bit product of a and b read as unsigned N-bit integers."),
]:
    define(_name, _doc, operands=("lhs", "rhs"), elementwise=True, check=_same_types("int"))
define(Op.ABSI, "|a| for signed integers (INT_MIN stays INT_MIN).", operands=("x",), elementwise=True,
       check=_same_types("int"))

for _name, _doc in [
    (Op.ADDF, "a + b, rounded to the result type."), (Op.SUBF, "a - b."), (Op.MULF, "a * b."),
    (Op.DIVF, "a / b (may be approximate on hardware)."), (Op.REMF, "fmod(a, b): the sign follows a."),
    (Op.MAXIMUMF, "max(a, b), NaN if either is NaN."), (Op.MINIMUMF, "min(a, b), NaN if either is NaN."),
    (Op.MAXNUMF, "max(a, b) ignoring a NaN operand."), (Op.MINNUMF, "min(a, b) ignoring a NaN operand."),
    (Op.PRECISE_DIVF, "a / b correctly rounded (IEEE)."),
]:
    define(_name, _doc, operands=("lhs", "rhs"), elementwise=True, check=_same_types("float"))

for _name, _doc in [
    (Op.NEGF, "-a."), (Op.EXP, "e^a."), (Op.EXP2, "2^a."), (Op.LOG, "ln(a)."), (Op.LOG2, "log2(a)."),
    (Op.SQRT, "sqrt(a) (may be approximate)."), (Op.PRECISE_SQRT, "sqrt(a) correctly rounded."),
    (Op.RSQRT, "1/sqrt(a)."), (Op.ABSF, "|a|."), (Op.ERF, "The error function."),
    (Op.FLOOR, "Round toward -inf."), (Op.CEIL, "Round toward +inf."), (Op.SIN, "sin(a)."), (Op.COS, "cos(a)."),
    (Op.TANH, "tanh(a)."), (Op.ROUNDEVEN, "a rounded to the nearest integer, ties to even (C rint)."),
]:
    define(_name, _doc, operands=("x",), elementwise=True, check=_same_types("float"))
for _name, _doc in [
    (Op.POWF, "a ** b (C pow: pow(x, 0) = 1, pow(1, y) = 1, a negative base with a non-integer b is NaN)."),
    (Op.ATAN2, "atan2(a, b): the angle of the point (b, a), in [-pi, pi]."),
]:
    define(_name, _doc, operands=("lhs", "rhs"), elementwise=True, check=_same_types("float"))
for _name, _doc in [(Op.ISNAN, "Whether a is NaN -> i1 of a's shape."),
                    (Op.ISINF, "Whether a is +inf or -inf -> i1 of a's shape.")]:
    define(_name, _doc, operands=("x",), elementwise=True, check=_check_float_test)
define(Op.FMA, "a * b + c with one rounding.", operands=("a", "b", "c"), elementwise=True,
       check=_same_types("float"))

define(Op.CMPI, f"Integer comparison -> i1 of the operands' shape. attrs: predicate in {INT_PREDICATES}.",
       operands=("lhs", "rhs"), attrs=("predicate",), elementwise=True, check=_check_cmp("int"))
define(Op.CMPF, f"""Float comparison -> i1. attrs: predicate in {FLOAT_PREDICATES}; 'o*' predicates are
false when either operand is NaN, 'une' is true then.""", operands=("lhs", "rhs"), attrs=("predicate",),
       elementwise=True, check=_check_cmp("float"))
define(Op.SELECT, "cond ? a : b elementwise (a scalar cond picks a whole block).",
       operands=("cond", "true_value", "false_value"), elementwise=True, check=_check_select)

_wider = (lambda s, d: d.bitwidth > s.bitwidth)
_narrower = (lambda s, d: d.bitwidth < s.bitwidth)
define(Op.EXTSI, "Sign-extend to a wider integer.", operands=("x",), elementwise=True,
       check=_cast(_is_int, _is_int, _wider))
define(Op.EXTUI, "Zero-extend to a wider integer (i1 true -> 1).", operands=("x",), elementwise=True,
       check=_cast(_is_int, _is_int, _wider))
define(Op.TRUNCI, "Keep the low bits (to i1: the lowest bit).", operands=("x",), elementwise=True,
       check=_cast(_is_int, _is_int, _narrower))
define(Op.SITOFP, "Signed integer to float, round to nearest even.", operands=("x",), elementwise=True,
       check=_cast(_is_int, _is_float))
define(Op.UITOFP, "Unsigned integer (or i1) to float.", operands=("x",), elementwise=True,
       check=_cast(_is_int, _is_float))
define(Op.FPTOSI, "Float to signed integer, truncating toward zero; out of range saturates (+-inf too), NaN "
       "gives 0 (isa/float_to_int.py).", operands=("x",), elementwise=True,
       check=_cast(_is_float, _is_int))
define(Op.FPTOUI, "Float to unsigned integer, truncating toward zero; out of range saturates (negative "
       "values and -inf give 0), NaN gives 0 (isa/float_to_int.py).", operands=("x",), elementwise=True,
       check=_cast(_is_float, _is_int))
define(Op.EXTF, "Widen a float exactly.", operands=("x",), elementwise=True,
       check=_cast(_is_float, _is_float, _wider))
define(Op.TRUNCF, "Narrow a float, round to nearest even.", operands=("x",), elementwise=True,
       check=_cast(_is_float, _is_float, _narrower))
define(Op.FP_TO_FP, "Convert to/from the OCP fp8 formats, narrowing to nearest even (the frontend writes "
       "round-toward-zero and the storage-only fp8 formats with other ops).",
       operands=("x",), elementwise=True, check=_cast(_is_float, _is_float))
define(Op.BITCAST, "Reinterpret the bits as another scalar type of the same width.", operands=("x",),
       elementwise=True, check=_cast(lambda t: isinstance(t, ScalarType), lambda t: isinstance(t, ScalarType),
                                     lambda s, d: s.bitwidth == d.bitwidth))
define(Op.PTR_BITCAST, "Reinterpret a pointer as a pointer to another element type (same address).",
       operands=("x",), elementwise=True, check=_cast(_is_ptr, _is_ptr))
define(Op.INT_TO_PTR, "An i64 byte address as a pointer.", operands=("x",), elementwise=True,
       check=_cast(_is_int, _is_ptr))
define(Op.PTR_TO_INT, "A pointer's byte address as i64.", operands=("x",), elementwise=True,
       check=_cast(_is_ptr, _is_int))

define(Op.SPLAT, "A block of the result shape filled with the scalar operand.", operands=("src",),
       check=_check_splat)
define(Op.BROADCAST, "Repeat size-1 dimensions of a block up to the result shape (same rank).",
       operands=("src",), check=_check_broadcast)
define(Op.EXPAND_DIMS, "Insert a size-1 dimension at `axis`.", operands=("src",), attrs=("axis",),
       check=_check_expand_dims)
define(Op.RESHAPE, """Reinterpret the elements (row-major order) in the result shape. attrs: allow_reorder
(bool; when true the compiler may permute elements - the interpreter keeps row-major order).""",
       operands=("src",), check=_check_reshape)
define(Op.TRANS, "Permute dimensions: result dim i is source dim order[i]. attrs: order.", operands=("src",),
       attrs=("order",), check=_check_trans)
define(Op.JOIN, "Stack two blocks along a new minor dimension of size 2.", operands=("lhs", "rhs"),
       check=_check_join)
define(Op.SPLIT, "Split the size-2 minor dimension into two blocks (inverse of join).", operands=("src",),
       results=2, check=_check_split)
define(Op.CAT, "Concatenate two blocks along dimension 0.", operands=("lhs", "rhs"), check=_check_cat)
define(Op.EXTRACT_SLICE, """A static strided slice: result[i] = src[offsets + i * strides] per dimension.
attrs: offsets, sizes, strides (lists of ints). MTIA reuses data already in the local store.""",
       operands=("src",), attrs=("offsets", "sizes", "strides"), check=_check_extract_slice)

define(Op.ADDPTR, "ptr + offset * sizeof(element): pointer arithmetic in elements.", operands=("ptr", "offset"),
       elementwise=True, check=_check_addptr)
define(Op.LOAD, """Read memory at each pointer. Lanes where mask is false are not accessed and read
`other` (or 0 when there is no other). attrs: cache, evict, is_volatile (hints, ignored).""",
       operands=("ptr", "mask?", "other?"), check=_check_load)
define(Op.STORE, "Write value at each pointer; lanes where mask is false are not written.",
       operands=("ptr", "value", "mask?"), results=0, pure=False, check=_check_store)
define(Op.ATOMIC_RMW, f"""Atomically apply `atomic_rmw_op` ({', '.join(ATOMIC_RMW_OPS)}) of val to memory at
each pointer (lanes in order), returning the old values; masked-off lanes do nothing and return 0.
attrs: atomic_rmw_op, sem, scope.""", operands=("ptr", "val", "mask?"), attrs=("atomic_rmw_op",),
       pure=False, check=_check_atomic_rmw)
define(Op.ATOMIC_CAS, """Atomically: old = *ptr; if old == cmp: *ptr = val; returns old. attrs: sem, scope.""",
       operands=("ptr", "cmp", "val"), pure=False)
define(Op.MAKE_TENSOR_DESCRIPTOR, """A descriptor of a strided tensor in memory: base pointer, then one size
per dimension, then one stride (in elements) per dimension. Loads/stores move blocks of the result type's
block shape.""", operands=("base", "shape_and_strides*"), check=_check_desc)
define(Op.DESCRIPTOR_LOAD, """Read the block whose corner is at `offsets` (one i32 per dimension);
elements outside [0, size) of any dimension read 0 (NaN where attr padding is "nan").""",
       operands=("desc", "offsets*"), check=_check_desc_load)
define(Op.DESCRIPTOR_STORE, "Write the block at `offsets`; elements outside the tensor are dropped.",
       operands=("desc", "value", "offsets*"), results=0, pure=False, check=_check_desc_store)

define(Op.DOT, """c + a @ b over the last two dimensions (a leading batch dimension is allowed).
Products and sums are exact in the accumulator type: fp16/bf16/fp8 -> f32, int8 -> i32.
attrs: input_precision ('ieee', 'tf32', ...; the interpreter always computes in IEEE fp32).
The MTIA backend's K coalescing (compiler/backend/passes/coalesce_k.py) sets kslices = s: K is s equal
slices added to c one after another, rounding after each, as s dots in sequence would; the optional
kused (an integer scalar) is how many of them hold data (min(kused, s) are added; the rest are skipped).""",
       operands=("a", "b", "c", "kused?"), check=_check_dot)
define(Op.REDUCE, """Reduce the operands along `axis` with the combine region, which takes
(lhs..., rhs...) scalars and returns the combined scalars with tt.reduce.return. The combine must be
associative and commutative; the order of combination is unspecified. Several operands are reduced
together (argmax reduces (value, index) pairs).""", operands=("srcs*",), results=None, attrs=("axis",),
       regions=1, check=_check_reduce)
define(Op.REDUCE_RETURN, "Ends a tt.reduce combine region.", operands=("values*",), results=0, terminator=True)
define(Op.SCAN, """Inclusive prefix scan along `axis` with the combine region (as tt.reduce);
attrs: axis, reverse (scan from the end).""", operands=("srcs*",), results=None, attrs=("axis", "reverse"),
       regions=1, check=_check_scan)
define(Op.SCAN_RETURN, "Ends a tt.scan combine region.", operands=("values*",), results=0, terminator=True)
define(Op.GATHER, """Gather along `axis`: the result has the index block's shape and the source's element type;
result[i0, .., ik, ..] = src[i0, .., index[i0, .., ik, ..], ..] with the index value at position `axis`.
src and index have one rank and equal sizes in every other dimension (index may be longer or shorter
along `axis`). Index values are read in the index type's signedness; one outside [0, src.shape[axis])
is undefined behaviour in Triton (the interpreter reports it as an error). attrs: axis.""",
       operands=("src", "index"), attrs=("axis",), check=_check_gather)
define(Op.HISTOGRAM, """Count the elements of a 1-D integer block into bins of width 1 starting at 0:
result[b] (i32, one per bin; the result's length is the number of bins) is the number of lanes whose
value, read in the input type's signedness, equals b. Values outside [0, num_bins) count nowhere, nor do
lanes whose mask (optional, i1 of the input's shape) is false.""",
       operands=("src", "mask?"), check=_check_histogram)

define(Op.PRINT, "Print the operands with a prefix for the running program. attrs: prefix, hex.",
       operands=("args*",), results=0, pure=False)
define(Op.ASSERT, "Fail the launch with `message` if any element of cond is false.", operands=("cond",),
       results=0, attrs=("message",), pure=False)
define(Op.ASSUME, "Promise that cond holds (an optimisation hint; never checked).", operands=("cond",),
       results=0, pure=False)
define(Op.DEBUG_BARRIER, "Synchronise the program's threads (no-op for one program at a time).", results=0,
       pure=False)

define(Op.FOR, """for iv = lb; iv < ub; iv += step (signed compare; step > 0): run the body with
(iv, iter_args...); the body yields the next iter_args; results are the last values.
attrs (optional perf hints): tt.num_stages, tt.loop_unroll_factor, tt.flatten, tt.warp_specialize,
tt.disallow_acc_multi_buffer, tt.disable_licm.""", operands=("lower", "upper", "step", "inits*"),
       results=None, regions=1, pure=False, check=_check_for)
define(Op.IF, "Run the then region if cond (i1) else the else region; results are what the run region yields.",
       operands=("cond",), results=None, regions=2, pure=False, check=_check_if)
define(Op.WHILE, """Loop: the before region receives the carried values and ends with
scf.condition(cond, values...); if cond the after region receives those values and yields the next
carried values, else the loop ends with those values as results.""", operands=("inits*",), results=None,
       regions=2, pure=False, check=_check_while)
define(Op.YIELD, "Ends a region of scf.for / scf.if / scf.while(after) with the region's values.",
       operands=("values*",), results=0, terminator=True)
define(Op.CONDITION, "Ends scf.while's before region: continue while cond, forwarding the values.",
       operands=("cond", "values*"), results=0, terminator=True)

define(Op.GET_PE_ID, "The id (0..63) of the processing element running this program; i32.")
define(Op.RE_REDUCE, """Combine x across the PEs of the launch over the reduction-engine network with
`op` ('sum', 'max' or 'min'); every PE receives the combined value. The interpreter runs one program at a
time, so there it returns x unchanged.""", operands=("x",), attrs=("op",), pure=False)

PURE_OPS = frozenset(n for n, d in OP_DEFS.items() if d.pure and not d.terminator)
TERMINATORS = frozenset(n for n, d in OP_DEFS.items() if d.terminator)
