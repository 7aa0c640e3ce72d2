"""The RVV subset against independent references (Python ints, numpy) on random data: every
instruction family, masks, tails (vl < VLMAX), LMUL groups, strided and indexed accesses,
reductions, conversions, faults, and the cycle model ceil(vl / ops_per_cycle)."""
import math

import numpy as np
import pytest

import isa
from isa import Program
from simulator import SanitizerError, load_config
from simulator.machine import Machine
from simulator.semantics import missing

CFG = load_config("mtia-small")
VLEN = CFG.pe.vector.vlen_bits
VLENB = VLEN // 8
INT = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
FLOAT = {16: np.float16, 32: np.float32, 64: np.float64}


# ---- harness ------------------------------------------------------------------------------------

def run(body: str, *inputs: np.ndarray, out_bytes: int = 4096, grid=(1,), cfg=CFG):
    """Run `body` with the inputs' bytes in the local store. x20, x21, ... hold the LS address of each
    input; x6 that of an output slot of `out_bytes` that starts as 0xA5 poison and is copied back to
    global memory at the end. Returns (the output bytes, the machine, the report)."""
    offs, off = [], 0
    for a in inputs:
        offs.append(off)
        off += -(-a.nbytes // 64) * 64
    blob = np.zeros(max(off, 64), np.uint8)
    for a, o in zip(inputs, offs):
        blob[o:o + a.nbytes] = np.ascontiguousarray(a).view(np.uint8).ravel()
    addrs = "\n".join(f"    addi x{20 + i}, x5, {o}" for i, o in enumerate(offs))
    prog = Program.from_asm(f"""
.kernel vtest
.arg inp ptr u8 x10
.arg out ptr u8 x11
.cb 0 inp base=0 slot={blob.size} slots=1
.cb 1 out base={blob.size} slot={out_bytes} slots=1
    dma.in cb0.push:u8[{blob.size}], x10, [1]
    dma.in cb1.push:u8[{out_bytes}], x11, [1]
    cb.wait x5, 0
    cb.wait x6, 1
{addrs}
{body}
    dma.out cb1.pop:u8[{out_bytes}], x11, [1]
    cb.pop 0
    halt
""")
    m = Machine(cfg)
    out = m.gmem.alloc_array(np.full(out_bytes, 0xA5, np.uint8), "out")
    rep = m.run(prog, grid=grid, args={"inp": m.gmem.alloc_array(blob, "inp"), "out": out})
    return out.data.view(np.uint8)[:out_bytes].copy(), m, rep


def emul(lmul: int, eew: int, sew: int) -> int:
    return max(1, lmul * eew // sew)


def run_cases(sew, lmul, vl, srcs: dict, cases: list, mask=None, x8=0, f1=0.0, seed=0):
    """Load each source array into its register (srcs: {register: array}, the array's dtype is
    its EEW), v0 = mask bytes, x8 and f1 = scalars; then for each case (instruction text, dest
    dtype or "mask"): fill v24's group with random poison, run the instruction at (sew, lmul, vl)
    and store the whole group. Returns [(result, poison)] in the dest dtype (bool bits for masks)."""
    rng = np.random.default_rng(seed)
    poison = rng.integers(0, 256, 8 * VLENB, dtype=np.uint8)
    mask_bytes = np.zeros(VLENB, np.uint8) if mask is None else np.packbits(mask, bitorder="little")
    lines = ["    vsetvli x9, x0, e8, m1", "    vle8.v v0, (x21)"]
    for i, (reg, arr) in enumerate(srcs.items()):
        eew = arr.itemsize * 8
        lines += [f"    li x9, {arr.size}", f"    vsetvli x0, x9, e{eew}, m{emul(lmul, eew, sew)}",
                  f"    vle{eew}.v v{reg}, (x{22 + i})"]
    lines += [f"    li x8, {x8}", f"    fli f1, {f1!r}"]
    layout = []
    for op, dt in cases:
        eew = 1 if dt == "mask" else np.dtype(dt).itemsize * 8
        store = "vsetvli x9, x0, e8, m1" if dt == "mask" else f"vsetvli x9, x0, e{eew}, m{emul(lmul, eew, sew)}"
        width = 8 if dt == "mask" else eew
        nbytes = VLENB if dt == "mask" else emul(lmul, eew, sew) * VLENB
        lines += [f"    {store}", f"    vle{width}.v v24, (x20)",
                  f"    li x7, {vl}", f"    vsetvli x0, x7, e{sew}, m{lmul}",
                  f"    {op}",
                  f"    {store}", f"    vse{width}.v v24, (x6)", f"    addi x6, x6, {nbytes}"]
        layout.append((dt, nbytes))
    total = sum(n for _, n in layout)
    out, _, _ = run("\n".join(lines), poison, mask_bytes, *srcs.values(), out_bytes=-(-total // 64) * 64)
    results, at = [], 0
    for dt, n in layout:
        got, before = out[at:at + n], poison[:n]
        if dt == "mask":
            results.append((np.unpackbits(got, bitorder="little").astype(bool),
                            np.unpackbits(before, bitorder="little").astype(bool)))
        else:
            results.append((got.view(dt), before.view(dt)))
        at += n
    return results


def expect(poison, ref, vl, mask=None):
    """What the destination holds: ref at elements i < vl that the mask allows, poison elsewhere."""
    out = poison.copy()
    act = np.ones(vl, bool) if mask is None else mask[:vl]
    out[:vl][act] = np.asarray(ref)[:vl][act]
    return out


def same(got, want, what=""):
    """Bit-for-bit equality, except that any NaN equals any NaN."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype.kind == "f":
        both_nan = np.isnan(got) & np.isnan(want)
        ok = both_nan | (got.view(f"u{got.itemsize}") == want.astype(got.dtype).view(f"u{got.itemsize}"))
    else:
        ok = got == want
    bad = np.flatnonzero(~ok)
    assert not len(bad), f"{what}: element {bad[0]}: got {got[bad[0]]!r}, want {want[bad[0]]!r} ({len(bad)} wrong)"


def rand_ints(rng, sew, n):
    info = np.iinfo(INT[sew])
    a = rng.integers(info.min, info.max, n, dtype=INT[sew], endpoint=True)
    small = rng.integers(-9, 10, n // 4)
    a[: n // 4] = small.astype(INT[sew])                 # small values make divisions interesting
    a[n // 4] = info.min
    a[n // 4 + 1] = -1
    a[n // 4 + 2] = 0
    return a


def rand_floats(rng, sew, n):
    a = (rng.standard_normal(n) * rng.choice([1e-3, 1.0, 100.0], n)).astype(FLOAT[sew])
    a[:5] = [np.nan, np.inf, -np.inf, 0.0, -0.0]
    return rng.permutation(a)


def rand_mask(rng, n):
    m = rng.random(n) < 0.6
    m[0], m[1] = True, False
    return m


def wrap(v: int, sew: int) -> int:
    v &= (1 << sew) - 1
    return v - (1 << sew) if v >> (sew - 1) else v


# ---- declarations -------------------------------------------------------------------------------

def test_every_declared_instruction_has_semantics():
    assert missing() == []


def test_vector_instructions_are_declared_in_the_vector_unit():
    names = {m for m, c in isa.REGISTRY.items() if c.unit == "vector"}
    for m in ("vsetvli", "vle32.v", "vsse64.v", "vluxei32.v", "vsuxei32.v", "vadd.vi", "vrsub.vx", "vmulhu.vx",
              "vfrdiv.vf", "vfmacc.vf", "vfsgnjx.vv", "vmsleu.vx", "vmfle.vf", "vmnot.m", "vfmerge.vfm", "vfirst.m",
              "vfmv.s.f", "vid.v", "vredminu.vs", "vfredosum.vs", "vfcvt.rtz.x.f.v", "vfncvt.f.f.w", "vzext.vf4"):
        assert m in names, m
    assert "masked-off elements and elements i >= vl are undisturbed" in isa.REGISTRY["vadd.vv"].__doc__


def test_asm_forms_follow_rvv():
    for text in ("vle32.v v8, (x5)", "vle32.v v8, (x5), vm=0", "vlse16.v v4, (x5), x6", "vsuxei32.v v8, (x5), v16",
                 "vmerge.vvm v8, v16, v24, v0", "vsetvli x5, x10, e16, m4", "vfmacc.vf v8, f1, v16, vm=0"):
        assert str(isa.parse_instr(text)) == text
    with pytest.raises(isa.AsmError, match="5-bit signed immediate"):
        isa.parse_instr("vadd.vi v8, v8, 16")
    with pytest.raises(isa.AsmError, match="vm is 0"):
        isa.parse_instr("vadd.vv v8, v8, v8, vm=2")


# ---- integer arithmetic -------------------------------------------------------------------------

def _tdiv(x, y):
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


INT_REF = {
    "vadd": lambda x, y, s: x + y, "vsub": lambda x, y, s: x - y, "vrsub": lambda x, y, s: y - x,
    "vmul": lambda x, y, s: x * y, "vmulh": lambda x, y, s: (x * y) >> s,
    "vmulhu": lambda x, y, s: ((x % 2**s) * (y % 2**s)) >> s,
    "vdiv": lambda x, y, s: -1 if y == 0 else _tdiv(x, y),
    "vrem": lambda x, y, s: x if y == 0 else x - y * _tdiv(x, y),
    "vdivu": lambda x, y, s: -1 if y % 2**s == 0 else (x % 2**s) // (y % 2**s),
    "vremu": lambda x, y, s: x if y % 2**s == 0 else (x % 2**s) % (y % 2**s),
    "vand": lambda x, y, s: x & y, "vor": lambda x, y, s: x | y, "vxor": lambda x, y, s: x ^ y,
    "vsll": lambda x, y, s: x << (y % s), "vsrl": lambda x, y, s: (x % 2**s) >> (y % s),
    "vsra": lambda x, y, s: x >> (y % s),
    "vmin": lambda x, y, s: min(x, y), "vmax": lambda x, y, s: max(x, y),
    "vminu": lambda x, y, s: min(x % 2**s, y % 2**s), "vmaxu": lambda x, y, s: max(x % 2**s, y % 2**s),
}
INT_CMP_REF = {
    "vmseq": lambda x, y, s: x == y, "vmsne": lambda x, y, s: x != y, "vmslt": lambda x, y, s: x < y,
    "vmsle": lambda x, y, s: x <= y, "vmsltu": lambda x, y, s: x % 2**s < y % 2**s,
    "vmsleu": lambda x, y, s: x % 2**s <= y % 2**s,
}


def _int_forms(stems):
    for stem in stems:
        for form in ("vv", "vx", "vi"):
            if f"{stem}.{form}" in isa.REGISTRY:
                yield stem, form


@pytest.mark.parametrize("sew", [8, 16, 32, 64])
def test_integer_ops_match_python_ints(sew):
    rng = np.random.default_rng(sew)
    lmul = 2
    vlmax = VLEN * lmul // sew
    vl = vlmax - 3
    a, b = rand_ints(rng, sew, vlmax), rand_ints(rng, sew, vlmax)
    b = rng.permutation(b)
    mask = rand_mask(rng, VLEN)
    x8 = -0x123456789ABCDEF1 if sew == 64 else -0x7EDCBA9876543211   # truncated to SEW bits
    imm_s, imm_u = -11, 13
    cases, refs = [], []
    for stem, form in _int_forms(list(INT_REF) + list(INT_CMP_REF)):
        fn = INT_REF.get(stem) or INT_CMP_REF[stem]
        cmp = stem in INT_CMP_REF
        imm = imm_u if stem in ("vsll", "vsrl", "vsra") else imm_s
        operand = {"vv": "v16", "vx": "x8", "vi": str(imm)}[form]
        ys = {"vv": [int(y) for y in b], "vx": [wrap(x8, sew)] * vlmax, "vi": [imm] * vlmax}[form]
        ref = [fn(int(x), y, sew) for x, y in zip(a, ys)]
        ref = np.array(ref, bool) if cmp else np.array([wrap(r, sew) for r in ref], INT[sew])
        for vm in ("", ", vm=0"):
            cases.append((f"{stem}.{form} v24, v8, {operand}{vm}", "mask" if cmp else INT[sew]))
            refs.append((ref, mask if vm else None))
    results = run_cases(sew, lmul, vl, {8: a, 16: b}, cases, mask=mask, x8=x8)
    for (op, _), (got, poison), (ref, m) in zip(cases, results, refs):
        same(got, expect(poison, ref, vl, m), op)


# ---- floating point -----------------------------------------------------------------------------

def _sgnj(a, b, how):
    sign = {"j": np.signbit(b), "n": ~np.signbit(b), "x": np.signbit(a) ^ np.signbit(b)}[how]
    return np.where(sign, -np.abs(a), np.abs(a))


FLOAT_REF = {
    "vfadd": np.add, "vfsub": np.subtract, "vfrsub": lambda a, b: b - a, "vfmul": np.multiply,
    "vfdiv": np.divide, "vfrdiv": lambda a, b: b / a, "vfmin": np.fmin, "vfmax": np.fmax,
    "vfsgnj": lambda a, b: _sgnj(a, b, "j"), "vfsgnjn": lambda a, b: _sgnj(a, b, "n"),
    "vfsgnjx": lambda a, b: _sgnj(a, b, "x"),
}
FLOAT_CMP_REF = {"vmfeq": np.equal, "vmfne": np.not_equal, "vmflt": np.less, "vmfle": np.less_equal}


@pytest.mark.parametrize("sew", [16, 32, 64])
def test_float_ops_match_numpy(sew):
    rng = np.random.default_rng(sew + 1)
    lmul = 4
    vlmax = VLEN * lmul // sew
    vl = vlmax - 5
    dt = FLOAT[sew]
    a, b = rand_floats(rng, sew, vlmax), rand_floats(rng, sew, vlmax)
    mask = rand_mask(rng, VLEN)
    f1 = -2.718281828
    fs = dt(np.float32(f1))                        # f registers are f32; rounded again to SEW
    cases, refs = [], []
    with np.errstate(all="ignore"):
        for stem in list(FLOAT_REF) + list(FLOAT_CMP_REF):
            fn = FLOAT_REF.get(stem) or FLOAT_CMP_REF[stem]
            for form, operand, y in (("vv", "v16", b), ("vf", "f1", np.full(vlmax, fs))):
                if f"{stem}.{form}" not in isa.REGISTRY:
                    continue
                cmp = stem in FLOAT_CMP_REF
                for vm in ("", ", vm=0"):
                    cases.append((f"{stem}.{form} v24, v8, {operand}{vm}", "mask" if cmp else dt))
                    refs.append((fn(a, y).astype(bool if cmp else dt), mask if vm else None))
        cases += [("vfsqrt.v v24, v8", dt), ("vfneg.v v24, v8, vm=0", dt), ("vfabs.v v24, v8", dt)]
        refs += [(np.sqrt(a), None), (-a, mask), (np.abs(a), None)]
    results = run_cases(sew, lmul, vl, {8: a, 16: b}, cases, mask=mask, f1=f1)
    for (op, _), (got, poison), (ref, m) in zip(cases, results, refs):
        same(got, expect(poison, ref, vl, m), op)


@pytest.mark.parametrize("sew", [16, 32, 64])
def test_fmacc_accumulates_into_vd(sew):
    rng = np.random.default_rng(7)
    dt = FLOAT[sew]
    vlmax = VLEN // sew
    a, b, acc = (rng.standard_normal(vlmax).astype(dt) for _ in range(3))
    mask = rand_mask(rng, VLEN)
    wide = lambda x: x.astype(np.float64)              # noqa: E731
    # vd starts as acc: copy it into v24 before the fmacc (the harness poisons v24 first)
    results = run_cases(sew, 1, vlmax - 2, {8: a, 16: b, 4: acc}, [
        ("vmv.v.v v24, v4\n    vfmacc.vv v24, v16, v8", dt),
        ("vmv.v.v v24, v4\n    vfmacc.vf v24, f1, v8, vm=0", dt)], mask=mask, f1=0.5)
    (got_vv, p1), (got_vf, p2) = results
    same(got_vv, expect(p1, (wide(b) * wide(a) + wide(acc)).astype(dt), vlmax - 2), "vfmacc.vv")
    want = expect(acc, (0.5 * wide(a) + wide(acc)).astype(dt), vlmax - 2, mask)   # masked-off: acc stays
    same(got_vf, expect(p2, want, vlmax - 2), "vfmacc.vf")


def test_fmin_fmax_order_signed_zeros_and_skip_nan():
    nan = np.float32(np.nan)
    neg_nan = -nan                                                   # sign bit set, as x86 makes inf - inf
    a = np.array([-0.0, 0.0, nan, 1.0, neg_nan, -0.0, np.inf, 0.0], np.float32)
    b = np.array([0.0, -0.0, 2.0, nan, neg_nan, -0.0, np.inf, 0.0], np.float32)
    (mn, _), (mx, _), (sub, _), (div, _) = run_cases(32, 1, 8, {8: a, 16: b}, [
        ("vfmin.vv v24, v8, v16", np.float32), ("vfmax.vv v24, v8, v16", np.float32),
        ("vfsub.vv v24, v8, v16", np.float32), ("vfdiv.vv v24, v8, v16", np.float32)])
    assert list(np.signbit(mn[:2])) == [True, True] and list(np.signbit(mx[:2])) == [False, False]
    assert mn[2] == 2.0 and mn[3] == 1.0 and np.isnan(mn[4]) and np.signbit(mn[5]) and np.signbit(mx[5])
    # NaN results are RISC-V's canonical quiet NaN, whatever numpy or the inputs' NaNs carry
    for got in (mn[4], mx[4], sub[6], div[7], sub[4]):
        assert got.view(np.uint32) == 0x7FC00000, hex(got.view(np.uint32))


# ---- moves, merges, masks -----------------------------------------------------------------------

def test_moves_and_merges():
    rng = np.random.default_rng(3)
    sew, lmul = 32, 2
    vlmax = VLEN * lmul // sew
    vl = vlmax - 7
    a, b = rand_ints(rng, sew, vlmax), rand_ints(rng, sew, vlmax)
    fa = rand_floats(rng, 32, vlmax)
    mask = rand_mask(rng, VLEN)
    x8 = 0x1_8000_0005                           # truncates to 0x80000005
    i32 = np.int32
    res = run_cases(sew, lmul, vl, {8: a, 16: b, 4: fa}, [
        ("vmv.v.v v24, v16", i32), ("vmv.v.x v24, x8", i32), ("vmv.v.i v24, -7", i32),
        ("vfmv.v.f v24, f1", np.float32), ("vmv.s.x v24, x8", i32), ("vfmv.s.f v24, f1", np.float32),
        ("vid.v v24", i32), ("vid.v v24, vm=0", i32),
        ("vmerge.vvm v24, v8, v16, v0", i32), ("vmerge.vxm v24, v8, x8, v0", i32),
        ("vmerge.vim v24, v8, 5, v0", i32), ("vfmerge.vfm v24, v4, f1, v0", np.float32),
    ], mask=mask, x8=x8, f1=1.25)
    xs = np.full(vlmax, wrap(x8, 32), i32)
    refs = [(b, vl, None), (xs, vl, None), (np.full(vlmax, -7, i32), vl, None),
            (np.full(vlmax, 1.25, np.float32), vl, None), (xs, 1, None), (np.full(vlmax, 1.25, np.float32), 1, None),
            (np.arange(vlmax, dtype=i32), vl, None), (np.arange(vlmax, dtype=i32), vl, mask),
            (np.where(mask[:vlmax], b, a), vl, None), (np.where(mask[:vlmax], xs, a), vl, None),
            (np.where(mask[:vlmax], 5, a), vl, None), (np.where(mask[:vlmax], np.float32(1.25), fa), vl, None)]
    for (got, poison), (ref, n, m), i in zip(res, refs, range(99)):
        same(got, expect(poison, ref.astype(got.dtype), n, m), f"case {i}")


def test_scalar_moves_and_mask_queries():
    rng = np.random.default_rng(4)
    a = rand_ints(rng, 16, 32)
    a[0] = -1234
    f = np.array([3.5, 1e30, 7.0], np.float64)
    m = np.zeros(VLEN, bool)
    m[[5, 9, 30, 40]] = True
    sel = np.zeros(VLEN, bool)
    sel[[9, 30, 41]] = True
    body = """
    vsetvli x9, x0, e8, m1
    vle8.v v0, (x20)
    vle8.v v2, (x21)
    li x7, 32
    vsetvli x0, x7, e16, m1
    vle16.v v8, (x22)
    vmv.x.s x12, v8
    sd x12, 0(x6)
    vcpop.m x12, v2
    sd x12, 8(x6)
    vcpop.m x12, v2, vm=0
    sd x12, 16(x6)
    vfirst.m x12, v2
    sd x12, 24(x6)
    vfirst.m x12, v2, vm=0
    sd x12, 32(x6)
    vmxor.mm v4, v2, v2
    vfirst.m x12, v4
    sd x12, 40(x6)
    li x7, 3
    vsetvli x0, x7, e64, m1
    vle64.v v12, (x23)
    vfmv.f.s f2, v12
    fsw f2, 48(x6)
    vsetvli x0, x0, e64, m1
    vsetvli x0, x0, e32, m1
    vfmv.f.s f3, v12
    fsw f3, 52(x6)
    """
    out, _, _ = run(body, np.packbits(sel, bitorder="little"), np.packbits(m, bitorder="little"), a, f, out_bytes=64)
    q = out.view(np.int64)
    assert list(q[:6]) == [-1234, 3, 2, 5, 9, -1]
    # element 0 of v12 as f64 (3.5) then, at SEW 32, the low word of 3.5's bits read as f32 (0.0)
    assert out[48:52].view(np.float32)[0] == 3.5 and out[52:56].view(np.float32)[0] == 0.0


def test_mask_logic_writes_bits_below_vl_only():
    rng = np.random.default_rng(5)
    p, q = rand_mask(rng, VLEN), rand_mask(rng, VLEN)
    vl = 37
    res = run_cases(8, 1, vl, {8: np.packbits(p, bitorder="little").view(np.int8),
                               16: np.packbits(q, bitorder="little").view(np.int8)},
                    [("vmand.mm v24, v8, v16", "mask"), ("vmor.mm v24, v8, v16", "mask"),
                     ("vmxor.mm v24, v8, v16", "mask"), ("vmnot.m v24, v8", "mask")])
    for (got, poison), ref in zip(res, [p & q, p | q, p ^ q, ~p]):
        same(got, expect(poison, ref, vl))


def test_compare_may_write_v0_itself():
    a = np.arange(16, dtype=np.int32)
    out, _, _ = run("""
    li x7, 16
    vsetvli x0, x7, e32, m1
    vle32.v v8, (x20)
    vmslt.vx v0, v8, x0
    vmsle.vx v0, v8, x7, vm=0
    vadd.vi v8, v8, 1, vm=0
    vse32.v v8, (x6)
    """, a, out_bytes=64)
    assert list(out.view(np.int32)) == list(range(16))    # v0 stays all false: nothing is added


# ---- reductions ---------------------------------------------------------------------------------

@pytest.mark.parametrize("sew", [8, 32, 64])
def test_integer_reductions(sew):
    rng = np.random.default_rng(sew + 10)
    lmul = 4
    vlmax = VLEN * lmul // sew
    vl = vlmax - 9
    a = rand_ints(rng, sew, vlmax)
    init = rand_ints(rng, sew, VLEN // sew)
    mask = rand_mask(rng, VLEN)
    red = {"vredsum": sum, "vredmax": max, "vredmin": min, "vredand": lambda v: _fold(v, int.__and__),
           "vredor": lambda v: _fold(v, int.__or__), "vredxor": lambda v: _fold(v, int.__xor__),
           "vredmaxu": lambda v: max(x % 2**sew for x in v), "vredminu": lambda v: min(x % 2**sew for x in v)}
    cases = [(f"{k}.vs v24, v8, v4{vm}", INT[sew]) for k in red for vm in ("", ", vm=0")]
    res = run_cases(sew, lmul, vl, {8: a, 4: init}, cases, mask=mask)
    for (op, _), (got, poison), (k, fn), m in zip(cases, res, [(name, f) for name in red for f in (red[name],) * 2],
                                                  [None, mask] * len(red)):
        act = np.ones(vl, bool) if m is None else m[:vl]
        want = poison.copy()
        want[0] = wrap(fn([int(init[0])] + [int(x) for x in a[:vl][act]]), sew)
        same(got, want, op)


def _fold(v, op):
    out = v[0]
    for x in v[1:]:
        out = op(out, x)
    return out


@pytest.mark.parametrize("sew", [16, 32, 64])
def test_float_reductions(sew):
    rng = np.random.default_rng(sew + 20)
    dt = FLOAT[sew]
    vlmax = VLEN * 2 // sew
    vl = vlmax - 3
    a = (rng.standard_normal(vlmax) * 10).astype(dt)
    init = np.full(VLEN // sew, 0.25, dt)
    mask = rand_mask(rng, VLEN)
    res = run_cases(sew, 2, vl, {8: a, 4: init}, [
        ("vfredosum.vs v24, v8, v4", dt), ("vfredosum.vs v24, v8, v4, vm=0", dt),
        ("vfredusum.vs v24, v8, v4", dt), ("vfredmax.vs v24, v8, v4, vm=0", dt), ("vfredmin.vs v24, v8, v4", dt),
    ], mask=mask)
    act = a[:vl][mask[:vl]]

    def ordered(xs):
        acc = dt(0.25)
        for x in xs:
            acc = dt(acc + x)
        return acc

    def tree(xs):
        xs = list(xs)
        while len(xs) > 1:
            xs += [dt(-0.0)] * (len(xs) % 2)
            xs = [dt(xs[i] + xs[i + 1]) for i in range(0, len(xs), 2)]
        return dt(dt(0.25) + xs[0])

    wants = [ordered(a[:vl]), ordered(act), tree(a[:vl]), max(0.25, act.max()), min(0.25, a[:vl].min())]
    for (got, poison), w, i in zip(res, wants, range(9)):
        same(got, expect(poison, np.array([w], dt), 1), f"reduction {i}")
    # the unordered sum is the sum (to f16's precision)
    assert abs(float(res[2][0][0]) - (0.25 + a[:vl].astype(np.float64).sum())) < 0.05 * vl


def test_reduction_with_vl_zero_writes_nothing():
    a = np.arange(1, 17, dtype=np.int32)
    out, _, _ = run("""
    li x7, 16
    vsetvli x0, x7, e32, m1
    vle32.v v8, (x20)
    vmv.v.v v24, v8
    vsetvli x0, x0, e32, m1
    li x7, 0
    vsetvli x0, x7, e32, m1
    vredsum.vs v24, v8, v8
    li x7, 16
    vsetvli x0, x7, e32, m1
    vredsum.vs v25, v8, v8
    vse32.v v24, (x6)
    vmv.x.s x12, v25
    sd x12, 64(x6)
    """, a, out_bytes=128)
    assert list(out[:64].view(np.int32)) == list(range(1, 17))
    assert out[64:72].view(np.int64)[0] == 1 + sum(range(1, 17))


# ---- conversions --------------------------------------------------------------------------------

@pytest.mark.parametrize("sew", [16, 32, 64])
def test_int_float_conversions(sew):
    rng = np.random.default_rng(sew + 30)
    dt, it = FLOAT[sew], INT[sew]
    ut = np.dtype(f"u{sew // 8}")
    vlmax = VLEN // sew
    f = (rng.standard_normal(vlmax) * (2.0 ** (sew // 2))).astype(dt)
    f[:8] = [np.nan, np.inf, -np.inf, 2.5, -2.5, 3.5, -0.7, np.finfo(dt).max]
    n = rand_ints(rng, sew, vlmax)
    mask = rand_mask(rng, VLEN)
    with np.errstate(over="ignore"):
        u_to_f = n.view(ut).astype(dt)                     # u16 above 65519 rounds to inf in f16
    res = run_cases(sew, 1, vlmax, {8: f, 16: n}, [
        ("vfcvt.x.f.v v24, v8", it), ("vfcvt.rtz.x.f.v v24, v8", it), ("vfcvt.xu.f.v v24, v8", ut),
        ("vfcvt.rtz.xu.f.v v24, v8, vm=0", ut), ("vfcvt.f.x.v v24, v16", dt), ("vfcvt.f.xu.v v24, v16", dt)],
        mask=mask)

    def to_int(x, rnd, lo, hi):
        if np.isnan(x) or x == np.inf:
            return hi
        if x == -np.inf:
            return lo
        r = rnd(float(x))
        return hi if r > hi else lo if r < lo else int(r)

    rne = lambda x: float(np.rint(x))                          # noqa: E731
    info, uinfo = np.iinfo(it), np.iinfo(ut)
    refs = [([to_int(x, rne, info.min, info.max) for x in f], None),
            ([to_int(x, math.trunc, info.min, info.max) for x in f], None),
            ([to_int(x, rne, 0, uinfo.max) for x in f], None),
            ([to_int(x, math.trunc, 0, uinfo.max) for x in f], mask),
            (n.astype(dt), None), (u_to_f, None)]
    for (got, poison), (ref, m), i in zip(res, refs, range(9)):
        same(got, expect(poison, np.array(ref, dtype=got.dtype), vlmax, m), f"conversion {i}")


def test_widening_and_narrowing_float_conversions():
    rng = np.random.default_rng(40)
    h = (rng.standard_normal(32) * 100).astype(np.float16)
    s = (rng.standard_normal(32) * 1e4).astype(np.float32)
    s[0] = 1e6                                             # beyond f16: narrows to inf
    d = rng.standard_normal(16) * 1e30
    (w16, p1), (n32, p2) = run_cases(16, 1, 32, {8: h, 16: s}, [("vfwcvt.f.f.v v24, v8", np.float32),
                                                               ("vfncvt.f.f.w v24, v16", np.float16)])
    same(w16, expect(p1, h.astype(np.float32), 32), "f16 -> f32")
    with np.errstate(over="ignore"):
        same(n32, expect(p2, s.astype(np.float16), 32), "f32 -> f16")
    assert np.isinf(n32[0])
    ((w32, p3),) = run_cases(32, 4, 50, {8: s.repeat(4)[:64]}, [("vfwcvt.f.f.v v24, v8", np.float64)])
    same(w32, expect(p3, s.repeat(4)[:64].astype(np.float64), 50), "f32 -> f64 at LMUL 4 (EMUL 8)")
    ((n64, p4),) = run_cases(32, 1, 16, {16: d}, [("vfncvt.f.f.w v24, v16", np.float32)])
    same(n64, expect(p4, d.astype(np.float32), 16), "f64 -> f32")


@pytest.mark.parametrize("sew, factor", [(16, 2), (32, 2), (32, 4), (64, 2), (64, 4), (64, 8)])
def test_sign_and_zero_extension(sew, factor):
    rng = np.random.default_rng(sew * factor)
    lmul = 2
    n = VLEN * lmul // sew
    src = rand_ints(rng, sew // factor, n)
    mask = rand_mask(rng, VLEN)
    res = run_cases(sew, lmul, n - 1, {8: src}, [(f"vsext.vf{factor} v24, v8", INT[sew]),
                                                 (f"vzext.vf{factor} v24, v8, vm=0", INT[sew])], mask=mask)
    same(res[0][0], expect(res[0][1], src.astype(INT[sew]), n - 1), "vsext")
    zext = src.view(f"u{src.itemsize}").astype(f"u{sew // 8}").view(INT[sew])
    same(res[1][0], expect(res[1][1], zext, n - 1, mask), "vzext")


# ---- vsetvli, LMUL and tails --------------------------------------------------------------------

def test_vsetvli_sets_vl_to_min_of_avl_and_vlmax():
    body = []
    cases = [(100, "e8", "m1"), (100, "e32", "m4"), (3, "e64", "m8"), (1 << 40, "e16", "m2"), (-1, "e32", "m1")]
    for i, (avl, sew, lmul) in enumerate(cases):
        body += [f"    li x7, {avl}", f"    vsetvli x12, x7, {sew}, {lmul}", f"    sd x12, {8 * i}(x6)"]
    body += ["    vsetvli x12, x0, e16, m8", "    sd x12, 40(x6)",       # rs1 = x0: VLMAX
             "    li x7, 5", "    vsetvli x0, x7, e16, m1", "    vsetvli x0, x0, e32, m1",   # keeps vl = 5
             "    vmv.v.i v8, 3", "    vredsum.vs v8, v8, v8", "    vmv.x.s x12, v8", "    sd x12, 48(x6)"]
    out, _, _ = run("\n".join(body), out_bytes=64)
    want = [64, 64, 3, VLEN * 2 // 16, 16, VLEN * 8 // 16, 3 + 5 * 3]
    assert list(out.view(np.int64)[:7]) == want


def test_lmul8_group_and_tail_undisturbed():
    rng = np.random.default_rng(8)
    n = VLEN * 8 // 32
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    ((got, poison),) = run_cases(32, 8, n - 10, {8: a, 16: b}, [("vfadd.vv v24, v8, v16", np.float32)])
    assert got.size == n
    same(got, expect(poison, a + b, n - 10), "LMUL 8")
    assert (got[n - 10:] == poison[n - 10:]).all()


@pytest.mark.parametrize("body, match", [
    ("    vadd.vv v8, v8, v8", "before any vsetvli"),
    ("    vsetvli x0, x0, e32, m2\n    vadd.vv v8, v9, v10", r"v9 does not start a group of 2 registers"),
    ("    vsetvli x0, x0, e8, m1\n    vfadd.vv v8, v8, v8", "no 8-bit float elements"),
    ("    vsetvli x0, x0, e64, m1\n    vfwcvt.f.f.v v8, v8", "no 128-bit float elements"),
    ("    vsetvli x0, x0, e8, m1\n    vsext.vf4 v8, v8", r"vsext.vf4 needs SEW >= 32"),
    ("    vsetvli x9, x0, e32, m1\n    vadd.vv v0, v8, v8, vm=0", "may not overlap v0"),
    ("    vsetvli x9, x0, e32, m1\n    vmerge.vvm v0, v8, v8, v0", "may not write v0"),
    ("    vsetvli x9, x0, e8, m8\n    vle64.v v8, (x6)", r"needs EMUL 64/8\*8 = 64 registers"),
])
def test_illegal_vector_operations_name_the_instruction(body, match):
    with pytest.raises(SanitizerError, match=r"vtest program \(0, 0, 0\) on PE 0 \(0, 0\), instruction \d+ `v.*`: .*"
                                             + match):
        run(body, out_bytes=64)


def test_vector_state_resets_for_each_program_instance():
    # two program ids on a one-PE machine: the second finds vl = 0, no vtype and zero registers
    one_pe = load_config("mtia-small", {"grid.rows": 1, "grid.cols": 1})
    body = """
    mtia.pid x12, 0
    bne x12, x0, second
    vsetvli x9, x0, e32, m1
    vmv.v.i v8, 7
    j done
second:
    vsetvli x9, x0, e32, m1
    vmv.x.s x13, v8
    sd x13, 0(x6)
done:
    """
    out, _, _ = run(body, out_bytes=64, grid=(2,), cfg=one_pe)
    assert out.view(np.int64)[0] == 0
    with pytest.raises(SanitizerError, match="before any vsetvli"):
        run(body.replace("second:\n    vsetvli x9, x0, e32, m1\n", "second:\n"), out_bytes=64, grid=(2,), cfg=one_pe)


# ---- memory -------------------------------------------------------------------------------------

def test_unit_stride_loads_with_eew_unlike_sew():
    a = np.arange(1, 65, dtype=np.uint8)
    out, _, _ = run("""
    li x7, 16
    vsetvli x0, x7, e32, m1
    vle8.v v8, (x20)          # EEW 8 at SEW 32: 16 bytes into part of one register
    vzext.vf4 v16, v8
    vse32.v v16, (x6)
    """, a, out_bytes=64)
    assert list(out.view(np.int32)) == list(range(1, 17))


@pytest.mark.parametrize("sew", [8, 16, 32, 64])
def test_strided_and_indexed_accesses(sew):
    rng = np.random.default_rng(sew + 50)
    eb = sew // 8
    n = VLEN // sew
    table = rand_ints(rng, sew, 4 * n)
    perm = rng.permutation(4 * n)[:n]
    offs = (perm * eb).astype(np.uint32)
    mask = rand_mask(rng, VLEN)
    stride = 3 * eb
    vlse = f"vlse{sew}.v"
    out, _, _ = run(f"""
    vsetvli x9, x0, e8, m1
    vle8.v v0, (x23)
    li x7, {n}
    vsetvli x0, x7, e{sew}, m1
    li x8, {stride}
    {vlse} v8, (x20), x8                      # every 3rd element
    vse{sew}.v v8, (x6)
    li x8, {-eb}
    addi x9, x20, {(4 * n - 1) * eb}
    {vlse} v8, (x9), x8                       # backwards from the last element
    addi x12, x6, {n * eb}
    vse{sew}.v v8, (x12)
    vsetvli x0, x7, e32, m{emul(1, 32, sew)}
    vle32.v v16, (x21)
    vsetvli x0, x7, e{sew}, m1
    vluxei32.v v8, (x20), v16                 # gather table[perm]
    addi x12, x6, {2 * n * eb}
    vse{sew}.v v8, (x12)
    addi x12, x6, {3 * n * eb}
    li x8, {stride}
    vsse{sew}.v v8, (x12), x8, vm=0           # masked strided store into poison
    addi x12, x6, {6 * n * eb}
    vsuxei32.v v8, (x12), v16                 # scatter back through the same permutation
    """, table, offs, np.zeros(4, np.uint8), np.packbits(mask, bitorder="little"), out_bytes=10 * n * eb)
    v = out.view(INT[sew])
    same(v[:n], table[0:3 * n:3], "strided")
    same(v[n:2 * n], table[::-1][:n], "negative stride")
    same(v[2 * n:3 * n], table[perm], "indexed gather")
    strided = v[3 * n:6 * n]
    poison = np.full(3 * n * eb, 0xA5, np.uint8).view(INT[sew])
    want = poison.copy()
    want[0:3 * n:3][mask[:n]] = table[perm][mask[:n]]
    same(strided, want, "masked strided store")
    scattered = v[6 * n:10 * n]
    want = np.full(4 * n * eb, 0xA5, np.uint8).view(INT[sew]).copy()
    want[perm] = table[perm]
    same(scattered, want, "indexed scatter")


def test_masked_load_leaves_inactive_elements_and_skips_their_addresses():
    a = np.arange(100, 116, dtype=np.int32)
    mask = np.zeros(VLEN, bool)
    mask[0] = True
    out, _, _ = run(f"""
    vsetvli x9, x0, e8, m1
    vle8.v v0, (x21)
    li x7, 16
    vsetvli x0, x7, e32, m1
    vmv.v.i v8, -1
    li x8, 4
    vlse32.v v8, (x20), x8, vm=0
    li x8, {1 << 20}                         # masked-off elements would land far outside the LS
    vlse32.v v8, (x20), x8, vm=0
    vse32.v v8, (x6)
    """, a, np.packbits(mask, bitorder="little"), out_bytes=64)
    got = out.view(np.int32)
    assert got[0] == 100 and list(got[1:]) == [-1] * 15


@pytest.mark.parametrize("body, match", [
    ("    li x8, 400000\n    vle32.v v8, (x8)",
     r"vector access of 4 bytes at 0x61a80 is outside the local store \[0, 0x60000\)"),
    ("    li x8, -8\n    vle32.v v8, (x8)", r"at -0x8 is outside the local store"),
    ("    addi x8, x6, 2\n    vse32.v v8, (x8)", "is not 4-byte aligned"),
    ("    li x8, 100000\n    vlse32.v v8, (x6), x8", "outside the local store"),
    ("    vid.v v16\n    li x8, 1000000\n    vmul.vx v16, v16, x8\n    vsuxei32.v v8, (x6), v16",
     "outside the local store"),
])
def test_out_of_bounds_vector_access_names_the_instruction(body, match):
    with pytest.raises(SanitizerError, match=r"instruction \d+ `v[ls].*`: .*" + match):
        run("    vsetvli x9, x0, e32, m1\n" + body, out_bytes=64)


def test_vector_kernel_with_dma_strip_mining_matches_numpy():
    """out = max(x * alpha + y, 0) over 1000 f32 elements, strip-mined with vsetvli, LMUL 4."""
    rng = np.random.default_rng(99)
    n = 1000
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    alpha = np.float32(1.5)
    body = f"""
    li x7, {n}
    mv x12, x20
    mv x13, x21
    mv x14, x6
    fli f1, {float(alpha)}
    fli f2, 0.0
loop:
    vsetvli x15, x7, e32, m4
    vle32.v v8, (x12)
    vle32.v v16, (x13)
    vfmacc.vf v16, f1, v8
    vfmax.vf v16, v16, f2
    vse32.v v16, (x14)
    slli x16, x15, 2
    add x12, x12, x16
    add x13, x13, x16
    add x14, x14, x16
    sub x7, x7, x15
    bne x7, x0, loop
    """
    out, m, rep = run(body, x, y, out_bytes=4096)
    want = np.maximum((x.astype(np.float64) * alpha + y).astype(np.float32), 0)
    same(out[:4 * n].view(np.float32), want, "saxpy-relu")
    vec = m.pes[0].core.vec
    assert vec.ops == 3 * n                                 # fmacc counts 2 per element, max 1
    assert vec.bytes_loaded == 8 * n and vec.bytes_stored == 4 * n
    assert vec.stats()["ops_by_dtype"] == {"f32": 3 * n}


# ---- timing -------------------------------------------------------------------------------------

def _cycles(body: str) -> float:
    _, m, rep = run(body, out_bytes=512)        # loads read the (initialised) output slot
    return rep.cycles, m.pes[0].core.vec


@pytest.mark.parametrize("op, sew, lmul, vl, rate", [
    ("vadd.vv v8, v8, v8", 8, 8, 512, "i8"), ("vadd.vv v8, v8, v8", 32, 4, 50, "i32"),
    ("vfmul.vv v8, v8, v8", 16, 2, 64, "f16"), ("vfmul.vv v8, v8, v8", 32, 1, 16, "f32"),
    ("vfadd.vv v8, v8, v8", 64, 8, 61, "f64"), ("vmseq.vv v1, v8, v8", 16, 1, 17, "i16"),
    ("vfwcvt.f.f.v v16, v8", 16, 2, 40, "f32"), ("vmand.mm v1, v2, v3", 8, 8, 512, "mask"),
])
def test_cycle_cost_is_ceil_vl_over_ops_per_cycle(op, sew, lmul, vl, rate):
    setup = f"    li x7, {vl}\n    vsetvli x0, x7, e{sew}, m{lmul}\n"
    base, _ = _cycles(setup)
    with_op, vec = _cycles(setup + f"    {op}\n")
    per_cycle = VLEN if rate == "mask" else CFG.pe.vector.ops_per_cycle[rate]
    assert with_op - base == CFG.pe.scalar.cpi + math.ceil(vl / per_cycle)
    assert vec.cycles == math.ceil(vl / per_cycle) and vec.instructions == 2


def test_loads_and_stores_add_load_cycles():
    setup = "    li x7, 40\n    vsetvli x0, x7, e32, m4\n"
    base, _ = _cycles(setup)
    load, vec = _cycles(setup + "    vle32.v v8, (x6)\n")
    extra = math.ceil(40 / CFG.pe.vector.ops_per_cycle["i32"]) + CFG.pe.vector.load_cycles
    assert load - base == CFG.pe.scalar.cpi + extra
    assert vec.bytes_loaded == 160 and vec.ops == 0
