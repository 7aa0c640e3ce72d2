"""RVV semantics, run by the control core on its vector state `core.vec` (pe/vector_core.py).

Each function takes `(core, vec, ins)` through `vsem`, which registers it for its instruction
classes, counts the instruction, checks that a vsetvli has set vtype, silences numpy's float
warnings (IEEE results are the point) and turns a VectorFault into a SanitizerError naming the
instruction. Sources are read as copies of their first vl elements, results computed whole and then
written where the mask allows: so operands may overlap and tails stay undisturbed. Each function
charges its cycles with `vec.charge` (see vector_core.py for the timing model).
"""
from __future__ import annotations

import numpy as np

from isa import float_minmax as minmax
from isa import vector as rvv
from isa.instruction import REGISTRY

from ..errors import SanitizerError
from . import semantics
from .vector_types import INT, UINT, VectorFault, rate_name

M64 = (1 << 64) - 1


def vsem(*classes):
    """Register fn(core, vec, ins) as the semantics of the given vector instruction classes."""
    def wrap(fn):
        def run(core, ins):
            vec = core.vec
            vec.instructions += 1
            try:
                if not vec.sew and type(ins) is not rvv.Vsetvli:
                    raise VectorFault("vector instruction before any vsetvli: vtype is not set")
                with np.errstate(all="ignore"):
                    fn(core, vec, ins)
            except VectorFault as e:
                raise SanitizerError(f"{core.where(ins)}: {e}") from None
        run.__name__, run.__doc__ = fn.__name__, fn.__doc__
        semantics(*classes)(run)
        return fn
    return wrap


def _by_stem(table: dict, forms: tuple[str, ...]) -> dict:
    """{instruction class: value} for every declared `stem.form` of the table's stems."""
    out = {}
    for stem, val in table.items():
        found = {REGISTRY[f"{stem}.{f}"]: val for f in forms if f"{stem}.{f}" in REGISTRY}
        assert found, f"no instruction {stem}.{{{','.join(forms)}}} is declared"
        out.update(found)
    return out


def _u(a: np.ndarray) -> np.ndarray:
    """The same bits as unsigned integers."""
    return a.view(UINT[a.itemsize * 8])


def _active(vec, ins):
    """The mask of the elements an instruction acts on: None (all) when unmasked, else v0's bits."""
    return None if ins.vm else vec.read_mask(0)


def _splat(vec, value, dt: np.dtype, n: int | None = None) -> np.ndarray:
    """A scalar as n (default vl) elements of dt: ints truncated to SEW bits, floats rounded."""
    n = vec.vl if n is None else n
    if dt.kind == "f":
        return np.full(n, value, dt)
    bits = dt.itemsize * 8
    return np.full(n, value & ((1 << bits) - 1), UINT[bits]).view(dt)


def _operand(core, vec, ins, dt: np.dtype) -> np.ndarray:
    """The second source of a .vv/.vx/.vi/.vf (or merge) form: vs1, or the scalar broadcast."""
    if hasattr(ins, "vs1"):
        return vec.read(ins.vs1, dt)
    if hasattr(ins, "rs1"):
        return _splat(vec, core.x[ins.rs1], dt)
    if hasattr(ins, "imm"):
        return _splat(vec, ins.imm, dt)
    return _splat(vec, core.f[ins.fs1], dt)


def _set_x(core, rd: int, value: int) -> None:
    if rd:
        core.x[rd] = value


def _canon(out: np.ndarray) -> np.ndarray:
    """RISC-V float results that are NaN are the canonical quiet NaN."""
    out[np.isnan(out)] = np.nan
    return out


# ---- configuration ------------------------------------------------------------------------------

@vsem(rvv.Vsetvli)
def vsetvli(core, vec, ins):
    if ins.rs1:
        avl = core.x[ins.rs1] & M64
    elif ins.rd:
        avl = M64                     # rs1 = x0, rd != x0: VLMAX
    else:
        avl = None                    # both x0: keep vl
    _set_x(core, ins.rd, vec.setvl(avl, int(ins.sew[1:]), int(ins.lmul[1:])))


# ---- loads and stores ---------------------------------------------------------------------------

_UNIT = (rvv.UnitLoad, rvv.UnitStore)
_STRIDED = (rvv.StridedLoad, rvv.StridedStore)
_LOADS = (rvv.UnitLoad, rvv.StridedLoad, rvv.IndexedLoad)


def _addresses(core, vec, ins, idx: np.ndarray, eb: int) -> np.ndarray:
    """Byte addresses of elements idx (int64), checked to lie in the local store and be aligned."""
    base = core.x[ins.rs1]
    if isinstance(ins, _UNIT + _STRIDED):
        stride = eb if isinstance(ins, _UNIT) else core.x[ins.rs2]
        exact = [base + int(i) * stride for i in (idx[0], idx[-1])]   # the extremes: addresses are linear
        addrs = np.int64(base) + idx.astype(np.int64) * np.int64(stride)   # wraps only if out of range
    else:
        offs = vec.read(ins.vs2, UINT[ins.eew])[idx]
        exact = [base + int(offs.min()), base + int(offs.max())]
        addrs = (np.uint64(base & M64) + offs.astype(np.uint64)).view(np.int64)
    size = core.pe.ls.size
    if min(exact) < 0 or max(exact) + eb > size:
        bad = next(a for a in sorted(exact) if a < 0 or a + eb > size)
        raise VectorFault(f"vector access of {eb} bytes at {bad:#x} is outside the local store [0, {size:#x})")
    misaligned = addrs % eb != 0
    if misaligned.any():
        raise VectorFault(f"vector access of {eb} bytes at {int(addrs[misaligned][0]):#x} is not "
                          f"{eb}-byte aligned")
    return addrs


_MEMORY = (rvv.UnitLoad, rvv.UnitStore, rvv.StridedLoad, rvv.StridedStore, rvv.IndexedLoad, rvv.IndexedStore)


@vsem(*(c for c in REGISTRY.values() if issubclass(c, _MEMORY)))
def load_store(core, vec, ins):
    """Unit-stride and strided accesses move EEW-bit elements, indexed ones SEW-bit elements."""
    indexed = isinstance(ins, (rvv.IndexedLoad, rvv.IndexedStore))
    dt = INT[vec.sew if indexed else ins.eew]
    eb = dt.itemsize
    active = _active(vec, ins)
    idx = np.arange(vec.vl) if active is None else np.flatnonzero(active)
    load = isinstance(ins, _LOADS)
    if len(idx):
        addrs = _addresses(core, vec, ins, idx, eb)
        ls = core.pe.ls
        span = addrs[:, None] + np.arange(eb)
        if load:
            vals = vec.read(ins.vd, dt)                 # checks the register group first
            written = core.pe.ls_written
            if written is not None and not written[span].all():
                bad = int(span.reshape(-1)[np.argmin(written[span].reshape(-1))])
                raise SanitizerError(f"{core.where(ins)}: vector load of local-store byte {bad:#x}, which was "
                                     f"never written")
            vals[idx] = ls[span].view(dt).ravel()
            vec.write(ins.vd, vals, active)
            vec.bytes_loaded += len(idx) * eb
        else:
            ls[span] = vec.read(ins.vs3, dt)[idx].view(np.uint8).reshape(-1, eb)
            if core.pe.ls_written is not None:      # the sanitizer's record of initialised bytes
                core.pe.ls_written[span] = True
            vec.bytes_stored += len(idx) * eb
    elif load:
        vec.write(ins.vd, vec.read(ins.vd, dt), active)    # still checks the destination group
    vec.charge(core, vec.vl, rate_name(dt), ops=0, mem=True)


# ---- integer arithmetic -------------------------------------------------------------------------

def _mulhi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """High SEW bits of the exact 2*SEW-bit products (signed or unsigned after a's dtype)."""
    bits = a.itemsize * 8
    return np.array([(x * y) >> bits for x, y in zip(a.tolist(), b.tolist())], dtype=a.dtype)


def _div(a, b, want_rem: bool):
    """Signed division rounding toward zero; x/0 = -1, x%0 = x; MIN/-1 wraps to MIN, MIN%-1 = 0."""
    zero = b == 0
    d = np.where(zero, np.ones_like(b), b)
    q = a // d                                    # floor; numpy wraps MIN // -1 to MIN
    r = a - q * d
    fix = (r != 0) & ((a < 0) != (d < 0))         # floor and truncation differ here
    q = q + fix.astype(a.dtype)
    r = r - np.where(fix, d, np.zeros_like(d))
    if want_rem:
        return np.where(zero, a, r)
    return np.where(zero, np.full_like(a, -1), q)


def _divu(a, b, want_rem: bool):
    """Unsigned division; x/0 = all ones, x%0 = x."""
    ua, ub = _u(a), _u(b)
    zero = ub == 0
    d = np.where(zero, np.ones_like(ub), ub)
    out = np.where(zero, ua, ua % d) if want_rem else np.where(zero, ~np.zeros_like(ua), ua // d)
    return out.view(a.dtype)


def _shamt(a, b):
    """Shift amounts: the low log2(SEW) bits of b, unsigned."""
    return _u(b) & (a.itemsize * 8 - 1)


_INT = _by_stem({
    "vadd": lambda a, b: a + b, "vsub": lambda a, b: a - b, "vrsub": lambda a, b: b - a,
    "vmul": lambda a, b: a * b,
    "vmulh": _mulhi, "vmulhu": lambda a, b: _mulhi(_u(a), _u(b)).view(a.dtype),
    "vdiv": lambda a, b: _div(a, b, False), "vrem": lambda a, b: _div(a, b, True),
    "vdivu": lambda a, b: _divu(a, b, False), "vremu": lambda a, b: _divu(a, b, True),
    "vand": np.bitwise_and, "vor": np.bitwise_or, "vxor": np.bitwise_xor,
    "vsll": lambda a, b: (_u(a) << _shamt(a, b)).view(a.dtype),
    "vsrl": lambda a, b: (_u(a) >> _shamt(a, b)).view(a.dtype),
    "vsra": lambda a, b: a >> _shamt(a, b).astype(a.dtype),
    "vmin": np.minimum, "vmax": np.maximum,
    "vminu": lambda a, b: np.minimum(_u(a), _u(b)).view(a.dtype),
    "vmaxu": lambda a, b: np.maximum(_u(a), _u(b)).view(a.dtype),
}, ("vv", "vx", "vi"))


@vsem(*_INT)
def int_binary(core, vec, ins):
    dt = vec.dtype("i")
    out = _INT[type(ins)](vec.read(ins.vs2, dt), _operand(core, vec, ins, dt))
    vec.write(ins.vd, out.astype(dt, copy=False), _active(vec, ins))
    vec.charge(core, vec.vl, rate_name(dt))


# ---- floating point -----------------------------------------------------------------------------

def _fminmax(a, b, is_max: bool):
    """IEEE 754-2019 minimumNumber/maximumNumber: nan loses to a number, and -0.0 < +0.0."""
    return (minmax.fmax if is_max else minmax.fmin)(a, b)


def _sgnj(a, b, how: str):
    """a with a sign bit taken from b ('j'), from NOT b ('n') or from a XOR b ('x'): bit operations."""
    ua, ub = _u(a), _u(b)
    s = ua.dtype.type(1 << (a.itemsize * 8 - 1))
    sign = {"j": ub, "n": ~ub, "x": ua ^ ub}[how] & s
    return ((ua & ~s) | sign).view(a.dtype)


_FLOAT = _by_stem({
    "vfadd": np.add, "vfsub": np.subtract, "vfrsub": lambda a, b: b - a, "vfmul": np.multiply,
    "vfdiv": np.divide, "vfrdiv": lambda a, b: b / a,
    "vfmin": lambda a, b: _fminmax(a, b, False), "vfmax": lambda a, b: _fminmax(a, b, True),
}, ("vv", "vf"))
_SIGN = {rvv.VfsgnjVV: "j", rvv.VfsgnjnVV: "n", rvv.VfsgnjxVV: "x", rvv.VfnegV: "n", rvv.VfabsV: "x"}


@vsem(*_FLOAT)
def float_binary(core, vec, ins):
    dt = vec.dtype("f")
    out = _FLOAT[type(ins)](vec.read(ins.vs2, dt), _operand(core, vec, ins, dt))
    vec.write(ins.vd, _canon(out.astype(dt, copy=False)), _active(vec, ins))
    vec.charge(core, vec.vl, rate_name(dt))


@vsem(*_SIGN)
def sign_inject(core, vec, ins):
    dt = vec.dtype("f")
    a = vec.read(ins.vs2, dt)
    b = vec.read(ins.vs1, dt) if hasattr(ins, "vs1") else a        # vfneg/vfabs use vs2 twice
    vec.write(ins.vd, _sgnj(a, b, _SIGN[type(ins)]), _active(vec, ins))
    vec.charge(core, vec.vl, rate_name(dt))


@vsem(rvv.VfsqrtV)
def fsqrt(core, vec, ins):
    dt = vec.dtype("f")
    vec.write(ins.vd, _canon(np.sqrt(vec.read(ins.vs2, dt))), _active(vec, ins))
    vec.charge(core, vec.vl, rate_name(dt))


@vsem(rvv.VfmaccVV, rvv.VfmaccVF)
def fmacc(core, vec, ins):
    dt = vec.dtype("f")
    wide = np.dtype(np.float64)       # exact products of f16/f32; f64 rounds the product (documented)
    x = _operand(core, vec, ins, dt).astype(wide)
    y = vec.read(ins.vs2, dt).astype(wide)
    acc = vec.read(ins.vd, dt).astype(wide)
    vec.write(ins.vd, _canon((x * y + acc).astype(dt)), _active(vec, ins))
    vec.charge(core, vec.vl, rate_name(dt), ops=2)


# ---- compares, mask logic, merges ---------------------------------------------------------------

_CMP = {
    **_by_stem({"vmseq": (np.equal, "i"), "vmsne": (np.not_equal, "i"), "vmslt": (np.less, "i"),
                "vmsltu": (np.less, "u"), "vmsle": (np.less_equal, "i"), "vmsleu": (np.less_equal, "u")},
               ("vv", "vx")),
    **_by_stem({"vmfeq": (np.equal, "f"), "vmfne": (np.not_equal, "f"), "vmflt": (np.less, "f"),
                "vmfle": (np.less_equal, "f")}, ("vv", "vf")),
}


@vsem(*_CMP)
def compare(core, vec, ins):
    fn, kind = _CMP[type(ins)]
    dt = vec.dtype(kind)
    vec.write_mask(ins.vd, fn(vec.read(ins.vs2, dt), _operand(core, vec, ins, dt)), _active(vec, ins))
    vec.charge(core, vec.vl, rate_name(dt))


_MASK = {rvv.VmandMM: np.logical_and, rvv.VmorMM: np.logical_or, rvv.VmxorMM: np.logical_xor}


@vsem(*_MASK)
def mask_logic(core, vec, ins):
    vec.write_mask(ins.vd, _MASK[type(ins)](vec.read_mask(ins.vs2), vec.read_mask(ins.vs1)))
    vec.charge(core, vec.vl, "mask")


@vsem(rvv.VmnotM)
def mask_not(core, vec, ins):
    vec.write_mask(ins.vd, ~vec.read_mask(ins.vs2))
    vec.charge(core, vec.vl, "mask")


@vsem(rvv.VmergeVVM, rvv.VmergeVXM, rvv.VmergeVIM, rvv.VfmergeVFM)
def merge(core, vec, ins):
    if ins.vd == 0:
        raise VectorFault("a merge may not write v0, which holds the selecting mask")
    dt = vec.dtype("f" if isinstance(ins, rvv.VfmergeVFM) else "i")
    out = np.where(vec.read_mask(0), _operand(core, vec, ins, dt), vec.read(ins.vs2, dt))
    vec.write(ins.vd, out.astype(dt, copy=False))
    vec.charge(core, vec.vl, rate_name(dt))


def _mask_source(vec, ins) -> np.ndarray:
    bits = vec.read_mask(ins.vs2)
    return bits if ins.vm else bits & vec.read_mask(0)


@vsem(rvv.VcpopM)
def cpop(core, vec, ins):
    _set_x(core, ins.rd, int(_mask_source(vec, ins).sum()))
    vec.charge(core, vec.vl, "mask")


@vsem(rvv.VfirstM)
def first(core, vec, ins):
    hits = np.flatnonzero(_mask_source(vec, ins))
    _set_x(core, ins.rd, int(hits[0]) if len(hits) else -1)
    vec.charge(core, vec.vl, "mask")


# ---- moves --------------------------------------------------------------------------------------

@vsem(rvv.VmvVV, rvv.VmvVX, rvv.VmvVI, rvv.VfmvVF)
def move(core, vec, ins):
    dt = vec.dtype("f" if isinstance(ins, rvv.VfmvVF) else "i")
    vec.write(ins.vd, _operand(core, vec, ins, dt))
    vec.charge(core, vec.vl, rate_name(dt), ops=0)


@vsem(rvv.VmvXS)
def move_x_s(core, vec, ins):
    _set_x(core, ins.rd, int(vec.read(ins.vs2, vec.dtype("i"), 1, nregs=1)[0]))
    vec.charge(core, 1, rate_name(vec.dtype("i")), ops=0)


@vsem(rvv.VfmvFS)
def move_f_s(core, vec, ins):
    dt = vec.dtype("f")
    core.f[ins.fd] = float(np.float32(vec.read(ins.vs2, dt, 1, nregs=1)[0]))
    vec.charge(core, 1, rate_name(dt), ops=0)


@vsem(rvv.VmvSX, rvv.VfmvSF)
def move_s(core, vec, ins):
    dt = vec.dtype("f" if isinstance(ins, rvv.VfmvSF) else "i")
    if vec.vl:
        value = core.f[ins.fs1] if dt.kind == "f" else core.x[ins.rs1]
        vec.write(ins.vd, _splat(vec, value, dt, 1), nregs=1)
        vec.charge(core, 1, rate_name(dt), ops=0)


@vsem(rvv.VidV)
def vid(core, vec, ins):
    dt = vec.dtype("i")
    vec.write(ins.vd, np.arange(vec.vl).astype(UINT[dt.itemsize * 8]).view(dt), _active(vec, ins))
    vec.charge(core, vec.vl, rate_name(dt), ops=0)


# ---- reductions ---------------------------------------------------------------------------------

def _tree_sum(x: np.ndarray) -> np.ndarray:
    """Pairwise sum, level by level, each addition rounded to x's dtype; -0.0 (the identity of
    addition, sign included) pads odd levels and stands for an empty sum."""
    while len(x) > 1:
        if len(x) % 2:
            x = np.append(x, x.dtype.type(-0.0))
        x = x[0::2] + x[1::2]
    return x if len(x) else np.array([-0.0], x.dtype)


def _fext(vals: np.ndarray, is_max: bool) -> np.ndarray:
    """maximumNumber/minimumNumber over vals, as a one-element array."""
    out = vals[:1].copy()
    for x in vals[1:]:
        out = _fminmax(out, np.array([x], vals.dtype), is_max)
    return out


_RED = {
    rvv.VredsumVS: (lambda s, x: np.add.reduce(np.concatenate([s, x]), dtype=s.dtype, keepdims=True), "i"),
    rvv.VredmaxVS: (lambda s, x: np.concatenate([s, x]).max(keepdims=True), "i"),
    rvv.VredminVS: (lambda s, x: np.concatenate([s, x]).min(keepdims=True), "i"),
    rvv.VredmaxuVS: (lambda s, x: np.concatenate([s, x]).max(keepdims=True), "u"),
    rvv.VredminuVS: (lambda s, x: np.concatenate([s, x]).min(keepdims=True), "u"),
    rvv.VredandVS: (lambda s, x: np.bitwise_and.reduce(np.concatenate([s, x]), keepdims=True), "i"),
    rvv.VredorVS: (lambda s, x: np.bitwise_or.reduce(np.concatenate([s, x]), keepdims=True), "i"),
    rvv.VredxorVS: (lambda s, x: np.bitwise_xor.reduce(np.concatenate([s, x]), keepdims=True), "i"),
    rvv.VfredusumVS: (lambda s, x: _canon(s + _tree_sum(x)), "f"),
    rvv.VfredosumVS: (lambda s, x: _canon(np.add.accumulate(np.concatenate([s, x]), dtype=s.dtype)[-1:]), "f"),
    rvv.VfredmaxVS: (lambda s, x: _canon(_fext(np.concatenate([s, x]), True)), "f"),
    rvv.VfredminVS: (lambda s, x: _canon(_fext(np.concatenate([s, x]), False)), "f"),
}


@vsem(*_RED)
def reduce(core, vec, ins):
    fn, kind = _RED[type(ins)]
    dt = vec.dtype(kind)
    if not vec.vl:
        return
    x = vec.read(ins.vs2, dt)
    if not ins.vm:
        x = x[vec.read_mask(0)]
    vec.write(ins.vd, fn(vec.read(ins.vs1, dt, 1, nregs=1), x).astype(dt, copy=False), nregs=1)
    vec.charge(core, vec.vl, rate_name(dt))


# ---- conversions --------------------------------------------------------------------------------

@vsem(rvv.VfcvtFXV, rvv.VfcvtFXuV)
def int_to_float(core, vec, ins):
    dt = vec.dtype("f")
    src = vec.read(ins.vs2, vec.dtype("u" if isinstance(ins, rvv.VfcvtFXuV) else "i"))
    vec.write(ins.vd, src.astype(dt), _active(vec, ins))
    vec.charge(core, vec.vl, rate_name(dt))


_TO_INT = {rvv.VfcvtXFV: (np.rint, "i"), rvv.VfcvtXuFV: (np.rint, "u"),
           rvv.VfcvtRtzXFV: (np.trunc, "i"), rvv.VfcvtRtzXuFV: (np.trunc, "u")}


@vsem(*_TO_INT)
def float_to_int(core, vec, ins):
    rnd, kind = _TO_INT[type(ins)]
    src = vec.dtype("f")
    dt = vec.dtype(kind)
    r = rnd(vec.read(ins.vs2, src))
    info = np.iinfo(dt)
    high = np.isnan(r) | (r >= float(info.max) + 1)      # max + 1 is a power of two: exact in every float
    low = r < info.min
    out = np.zeros(len(r), dt)
    ok = ~(high | low)
    out[ok] = r[ok].astype(dt)
    out[high], out[low] = info.max, info.min
    vec.write(ins.vd, out, _active(vec, ins))
    vec.charge(core, vec.vl, rate_name(src))


@vsem(rvv.VfwcvtFFV)
def widen_float(core, vec, ins):
    wide = vec.dtype("f", 2 * vec.sew)
    vec.write(ins.vd, vec.read(ins.vs2, vec.dtype("f")).astype(wide), _active(vec, ins))
    vec.charge(core, vec.vl, rate_name(wide))


@vsem(rvv.VfncvtFFW)
def narrow_float(core, vec, ins):
    wide = vec.dtype("f", 2 * vec.sew)
    vec.write(ins.vd, vec.read(ins.vs2, wide).astype(vec.dtype("f")), _active(vec, ins))
    vec.charge(core, vec.vl, rate_name(wide))


@vsem(rvv.VsextVf2, rvv.VsextVf4, rvv.VsextVf8, rvv.VzextVf2, rvv.VzextVf4, rvv.VzextVf8)
def extend(core, vec, ins):
    signed = ins.mnemonic.startswith("vsext")
    dt = vec.dtype("i")
    if vec.sew // ins.factor < 8:
        raise VectorFault(f"{ins.mnemonic} needs SEW >= {8 * ins.factor}, got SEW = {vec.sew}")
    src = vec.read(ins.vs2, vec.dtype("i" if signed else "u", vec.sew // ins.factor))
    out = src.astype(dt) if signed else src.astype(UINT[vec.sew]).view(dt)
    vec.write(ins.vd, out, _active(vec, ins))
    vec.charge(core, vec.vl, rate_name(dt))
