"""The RISC-V Vector (RVV 1.0) subset the vector core runs: vsetvli, local-store loads and stores,
integer and floating-point arithmetic, compares into masks, merges, moves, reductions and
conversions. Mnemonics and operand order follow the RVV assembly syntax (vd first, then vs2, then
vs1 / rs1 / imm), so `vsub.vv vd, vs2, vs1` computes vs2 - vs1.

Rules every instruction shares (each docstring states which apply):

- vtype: `vsetvli` sets SEW (element width, 8..64 bits), LMUL (1, 2, 4 or 8 registers per group)
  and vl. Every other vector instruction faults until a vsetvli has run in the program instance.
- Register groups: an operand with LMUL = n is registers v[k]..v[k+n-1] and k must be a multiple
  of n. Widening/narrowing operands use 2*LMUL registers for their 2*SEW elements.
- Masks: with `vm=0` an instruction acts only on elements i whose mask bit in v0 is set (bit i%8 of
  byte i//8); the masked-off elements of vd keep their old value (mask-undisturbed), and the
  destination group may not contain v0 (unless it is a mask). The default `vm=1` is unmasked.
- Tails: elements i >= vl keep their old value (tail-undisturbed); vl = 0 changes nothing.
- Scalars: an x register is truncated to SEW bits (two's complement); an f register (f32) is
  rounded to the element float type (round to nearest, ties to even); a 5-bit immediate is
  sign-extended (zero-extended for shifts).
- Floats: SEW 16 is IEEE half (Zvfh), 32 single, 64 double; there are no 8-bit floats. Results are
  rounded to nearest even, as the default frm; an arithmetic result that is NaN is the canonical
  quiet NaN, as in RISC-V (sign injection moves bits and keeps NaN payloads).
- Memory: addresses are byte addresses in the PE's local store [0, LS size); each element must be
  naturally aligned; masked-off elements are not accessed (and cannot fault).
"""
from __future__ import annotations

from .fields import AsmError, FReg, Imm, VReg, XReg, choice
from .instruction import Instr, family, instruction


class Vm(Imm):
    """The mask flag: 1 = unmasked, 0 = masked by v0."""
    values = (0, 1)

    @classmethod
    def check(cls, v):
        if v not in (0, 1) or isinstance(v, bool):
            raise AsmError(f"vm is 0 (masked by v0) or 1 (unmasked), got {v!r}")
        return v


class Simm5(Imm):
    """A 5-bit signed immediate, -16..15 (the .vi forms)."""
    values = tuple(range(-16, 16))

    @classmethod
    def check(cls, v):
        if isinstance(v, bool) or not isinstance(v, int) or not -16 <= v <= 15:
            raise AsmError(f"expected a 5-bit signed immediate -16..15, got {v!r}")
        return v


class Uimm5(Imm):
    """A 5-bit unsigned immediate, 0..31 (shift amounts)."""
    values = tuple(range(32))

    @classmethod
    def check(cls, v):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 31:
            raise AsmError(f"expected a 5-bit unsigned immediate 0..31, got {v!r}")
        return v


Sew = choice("e8", "e16", "e32", "e64")
Lmul = choice("m1", "m2", "m4", "m8")

ELEMENTWISE = ("For each i < vl that the mask allows (all of them when vm=1, those whose v0 bit is set "
               "when vm=0) vd[i] = the result; masked-off elements and elements i >= vl are undisturbed.")
COMPARE = ("vd is a mask register: for each i < vl that the mask allows, mask bit i of vd = the result; "
           "masked-off bits and bits i >= vl are undisturbed.")
MASK_LOGIC = ("Mask registers, unmasked: for each i < vl, bit i of vd = the result; bits i >= vl are "
              "undisturbed. LMUL does not apply.")
MERGE = ("Unmasked by vm: for each i < vl, vd[i] = the result (v0 selects); elements i >= vl are "
         "undisturbed. vd may not be v0.")
REDUCTION = ("vd and vs1 are single registers; only element 0 of vd is written, with the result over "
             "vs1[0] and the elements vs2[i], i < vl, that the mask allows; the rest of vd is undisturbed. "
             "With vl = 0 nothing is written.")
LOAD = ("Loads the elements i < vl that the mask allows into vd, whose EMUL is EEW/SEW*LMUL "
        "registers; masked-off elements and elements i >= vl are undisturbed and are not read from memory.")
STORE = ("Stores the elements i < vl of vs3 (EMUL = EEW/SEW*LMUL registers) that the mask allows; "
         "masked-off elements are not written. Later elements win when addresses repeat.")
INDEXED = ("The data elements are SEW wide in LMUL registers; the unsigned byte offsets in vs2 are EEW wide "
           "in EEW/SEW*LMUL registers. ")


def vinstr(mnemonic: str, rules: str = ELEMENTWISE, asm: str | None = None):
    """Declare a vector instruction: its own docstring states the operation, `rules` the handling of
    masks and tails that its group shares (appended, so help() shows the whole semantics)."""
    def wrap(cls):
        own = (cls.__dict__.get("__doc__") or "").strip()
        if not own:
            raise TypeError(f"{mnemonic}: every instruction needs a docstring stating its semantics")
        cls.__doc__ = f"{own}\n\n{rules}" if rules else own
        return instruction(mnemonic, "vector", asm)(cls)
    return wrap


# ---- operand shapes -----------------------------------------------------------------------------

@family
class VV(Instr):
    vd: VReg
    vs2: VReg
    vs1: VReg
    vm: Vm = 1


@family
class VX(Instr):
    vd: VReg
    vs2: VReg
    rs1: XReg
    vm: Vm = 1


@family
class VI(Instr):
    vd: VReg
    vs2: VReg
    imm: Simm5
    vm: Vm = 1


@family
class VIU(Instr):
    vd: VReg
    vs2: VReg
    imm: Uimm5
    vm: Vm = 1


@family
class VF(Instr):
    vd: VReg
    vs2: VReg
    fs1: FReg
    vm: Vm = 1


@family
class V1(Instr):
    """One vector source (vd = f(vs2))."""
    vd: VReg
    vs2: VReg
    vm: Vm = 1


# ---- configuration ------------------------------------------------------------------------------

@vinstr("vsetvli", rules="")
class Vsetvli(Instr):
    """Set vtype to (sew, lmul) and vl = min(AVL, VLMAX) with VLMAX = VLEN * LMUL / SEW; rd = vl.
    AVL = x[rs1] read as unsigned when rs1 != x0; rs1 = x0 and rd != x0 asks for VLMAX; rs1 = rd
    = x0 keeps the current vl (it must fit the new VLMAX). Register contents are unchanged."""
    rd: XReg
    rs1: XReg
    sew: Sew
    lmul: Lmul


# ---- loads and stores ---------------------------------------------------------------------------

@family
class UnitLoad(Instr):
    vd: VReg
    rs1: XReg
    vm: Vm = 1


@family
class UnitStore(Instr):
    vs3: VReg
    rs1: XReg
    vm: Vm = 1


@family
class StridedLoad(Instr):
    vd: VReg
    rs1: XReg
    rs2: XReg
    vm: Vm = 1


@family
class StridedStore(Instr):
    vs3: VReg
    rs1: XReg
    rs2: XReg
    vm: Vm = 1


@family
class IndexedLoad(Instr):
    vd: VReg
    rs1: XReg
    vs2: VReg
    vm: Vm = 1


@family
class IndexedStore(Instr):
    vs3: VReg
    rs1: XReg
    vs2: VReg
    vm: Vm = 1


_U, _US = "{vd}, ({rs1})", "{vs3}, ({rs1})"
_S, _SS = "{vd}, ({rs1}), {rs2}", "{vs3}, ({rs1}), {rs2}"
_X, _XS = "{vd}, ({rs1}), {vs2}", "{vs3}, ({rs1}), {vs2}"


@vinstr("vle8.v", LOAD, _U)
class Vle8(UnitLoad):
    """vd[i] = the 8-bit element at x[rs1] + i (EEW = 8)."""
    eew = 8


@vinstr("vle16.v", LOAD, _U)
class Vle16(UnitLoad):
    """vd[i] = the 16-bit element at x[rs1] + 2*i (EEW = 16)."""
    eew = 16


@vinstr("vle32.v", LOAD, _U)
class Vle32(UnitLoad):
    """vd[i] = the 32-bit element at x[rs1] + 4*i (EEW = 32)."""
    eew = 32


@vinstr("vle64.v", LOAD, _U)
class Vle64(UnitLoad):
    """vd[i] = the 64-bit element at x[rs1] + 8*i (EEW = 64)."""
    eew = 64


@vinstr("vse8.v", STORE, _US)
class Vse8(UnitStore):
    """The 8-bit element at x[rs1] + i = vs3[i] (EEW = 8)."""
    eew = 8


@vinstr("vse16.v", STORE, _US)
class Vse16(UnitStore):
    """The 16-bit element at x[rs1] + 2*i = vs3[i] (EEW = 16)."""
    eew = 16


@vinstr("vse32.v", STORE, _US)
class Vse32(UnitStore):
    """The 32-bit element at x[rs1] + 4*i = vs3[i] (EEW = 32)."""
    eew = 32


@vinstr("vse64.v", STORE, _US)
class Vse64(UnitStore):
    """The 64-bit element at x[rs1] + 8*i = vs3[i] (EEW = 64)."""
    eew = 64


@vinstr("vlse8.v", LOAD, _S)
class Vlse8(StridedLoad):
    """vd[i] = the 8-bit element at x[rs1] + i * x[rs2] (a signed byte stride; 0 repeats one element)."""
    eew = 8


@vinstr("vlse16.v", LOAD, _S)
class Vlse16(StridedLoad):
    """vd[i] = the 16-bit element at x[rs1] + i * x[rs2] (a signed byte stride)."""
    eew = 16


@vinstr("vlse32.v", LOAD, _S)
class Vlse32(StridedLoad):
    """vd[i] = the 32-bit element at x[rs1] + i * x[rs2] (a signed byte stride)."""
    eew = 32


@vinstr("vlse64.v", LOAD, _S)
class Vlse64(StridedLoad):
    """vd[i] = the 64-bit element at x[rs1] + i * x[rs2] (a signed byte stride)."""
    eew = 64


@vinstr("vsse8.v", STORE, _SS)
class Vsse8(StridedStore):
    """The 8-bit element at x[rs1] + i * x[rs2] = vs3[i] (a signed byte stride)."""
    eew = 8


@vinstr("vsse16.v", STORE, _SS)
class Vsse16(StridedStore):
    """The 16-bit element at x[rs1] + i * x[rs2] = vs3[i] (a signed byte stride)."""
    eew = 16


@vinstr("vsse32.v", STORE, _SS)
class Vsse32(StridedStore):
    """The 32-bit element at x[rs1] + i * x[rs2] = vs3[i] (a signed byte stride)."""
    eew = 32


@vinstr("vsse64.v", STORE, _SS)
class Vsse64(StridedStore):
    """The 64-bit element at x[rs1] + i * x[rs2] = vs3[i] (a signed byte stride)."""
    eew = 64


@vinstr("vluxei8.v", INDEXED + LOAD, _X)
class Vluxei8(IndexedLoad):
    """vd[i] = the SEW-bit element at x[rs1] + vs2[i], with 8-bit unsigned offsets in vs2."""
    eew = 8


@vinstr("vluxei16.v", INDEXED + LOAD, _X)
class Vluxei16(IndexedLoad):
    """vd[i] = the SEW-bit element at x[rs1] + vs2[i], with 16-bit unsigned offsets in vs2."""
    eew = 16


@vinstr("vluxei32.v", INDEXED + LOAD, _X)
class Vluxei32(IndexedLoad):
    """vd[i] = the SEW-bit element at x[rs1] + vs2[i], with 32-bit unsigned offsets in vs2."""
    eew = 32


@vinstr("vluxei64.v", INDEXED + LOAD, _X)
class Vluxei64(IndexedLoad):
    """vd[i] = the SEW-bit element at x[rs1] + vs2[i], with 64-bit offsets in vs2."""
    eew = 64


@vinstr("vsuxei8.v", INDEXED + STORE, _XS)
class Vsuxei8(IndexedStore):
    """The SEW-bit element at x[rs1] + vs2[i] = vs3[i], with 8-bit unsigned offsets in vs2."""
    eew = 8


@vinstr("vsuxei16.v", INDEXED + STORE, _XS)
class Vsuxei16(IndexedStore):
    """The SEW-bit element at x[rs1] + vs2[i] = vs3[i], with 16-bit unsigned offsets in vs2."""
    eew = 16


@vinstr("vsuxei32.v", INDEXED + STORE, _XS)
class Vsuxei32(IndexedStore):
    """The SEW-bit element at x[rs1] + vs2[i] = vs3[i], with 32-bit unsigned offsets in vs2."""
    eew = 32


@vinstr("vsuxei64.v", INDEXED + STORE, _XS)
class Vsuxei64(IndexedStore):
    """The SEW-bit element at x[rs1] + vs2[i] = vs3[i], with 64-bit offsets in vs2."""
    eew = 64


# ---- integer arithmetic (SEW-bit two's complement, wrapping) ------------------------------------

@vinstr("vadd.vv")
class VaddVV(VV):
    """vd[i] = vs2[i] + vs1[i], wrapping."""


@vinstr("vadd.vx")
class VaddVX(VX):
    """vd[i] = vs2[i] + x[rs1], wrapping."""


@vinstr("vadd.vi")
class VaddVI(VI):
    """vd[i] = vs2[i] + imm, wrapping."""


@vinstr("vsub.vv")
class VsubVV(VV):
    """vd[i] = vs2[i] - vs1[i], wrapping."""


@vinstr("vsub.vx")
class VsubVX(VX):
    """vd[i] = vs2[i] - x[rs1], wrapping."""


@vinstr("vrsub.vx")
class VrsubVX(VX):
    """vd[i] = x[rs1] - vs2[i], wrapping."""


@vinstr("vrsub.vi")
class VrsubVI(VI):
    """vd[i] = imm - vs2[i], wrapping (vneg.v is vrsub.vi vd, vs, 0)."""


@vinstr("vmul.vv")
class VmulVV(VV):
    """vd[i] = low SEW bits of vs2[i] * vs1[i]."""


@vinstr("vmul.vx")
class VmulVX(VX):
    """vd[i] = low SEW bits of vs2[i] * x[rs1]."""


@vinstr("vmulh.vv")
class VmulhVV(VV):
    """vd[i] = high SEW bits of the signed 2*SEW-bit product vs2[i] * vs1[i]."""


@vinstr("vmulh.vx")
class VmulhVX(VX):
    """vd[i] = high SEW bits of the signed 2*SEW-bit product vs2[i] * x[rs1]."""


@vinstr("vmulhu.vv")
class VmulhuVV(VV):
    """vd[i] = high SEW bits of the unsigned 2*SEW-bit product vs2[i] * vs1[i]."""


@vinstr("vmulhu.vx")
class VmulhuVX(VX):
    """vd[i] = high SEW bits of the unsigned 2*SEW-bit product vs2[i] * x[rs1]."""


@vinstr("vdiv.vv")
class VdivVV(VV):
    """vd[i] = vs2[i] / vs1[i], signed, rounding toward zero; x/0 = -1; MIN/-1 = MIN."""


@vinstr("vdiv.vx")
class VdivVX(VX):
    """vd[i] = vs2[i] / x[rs1], signed, rounding toward zero; x/0 = -1; MIN/-1 = MIN."""


@vinstr("vdivu.vv")
class VdivuVV(VV):
    """vd[i] = vs2[i] / vs1[i], unsigned; x/0 = all ones."""


@vinstr("vdivu.vx")
class VdivuVX(VX):
    """vd[i] = vs2[i] / x[rs1], unsigned; x/0 = all ones."""


@vinstr("vrem.vv")
class VremVV(VV):
    """vd[i] = vs2[i] % vs1[i], signed, the sign of the dividend; x%0 = x; MIN%-1 = 0."""


@vinstr("vrem.vx")
class VremVX(VX):
    """vd[i] = vs2[i] % x[rs1], signed, the sign of the dividend; x%0 = x; MIN%-1 = 0."""


@vinstr("vremu.vv")
class VremuVV(VV):
    """vd[i] = vs2[i] % vs1[i], unsigned; x%0 = x."""


@vinstr("vremu.vx")
class VremuVX(VX):
    """vd[i] = vs2[i] % x[rs1], unsigned; x%0 = x."""


@vinstr("vand.vv")
class VandVV(VV):
    """vd[i] = vs2[i] & vs1[i]."""


@vinstr("vand.vx")
class VandVX(VX):
    """vd[i] = vs2[i] & x[rs1]."""


@vinstr("vand.vi")
class VandVI(VI):
    """vd[i] = vs2[i] & imm."""


@vinstr("vor.vv")
class VorVV(VV):
    """vd[i] = vs2[i] | vs1[i]."""


@vinstr("vor.vx")
class VorVX(VX):
    """vd[i] = vs2[i] | x[rs1]."""


@vinstr("vor.vi")
class VorVI(VI):
    """vd[i] = vs2[i] | imm."""


@vinstr("vxor.vv")
class VxorVV(VV):
    """vd[i] = vs2[i] ^ vs1[i]."""


@vinstr("vxor.vx")
class VxorVX(VX):
    """vd[i] = vs2[i] ^ x[rs1]."""


@vinstr("vxor.vi")
class VxorVI(VI):
    """vd[i] = vs2[i] ^ imm (vnot.v is vxor.vi vd, vs, -1)."""


@vinstr("vsll.vv")
class VsllVV(VV):
    """vd[i] = vs2[i] << (vs1[i] mod SEW)."""


@vinstr("vsll.vx")
class VsllVX(VX):
    """vd[i] = vs2[i] << (x[rs1] mod SEW)."""


@vinstr("vsll.vi")
class VsllVI(VIU):
    """vd[i] = vs2[i] << (imm mod SEW)."""


@vinstr("vsrl.vv")
class VsrlVV(VV):
    """vd[i] = vs2[i] >> (vs1[i] mod SEW), logical (zeros shift in)."""


@vinstr("vsrl.vx")
class VsrlVX(VX):
    """vd[i] = vs2[i] >> (x[rs1] mod SEW), logical."""


@vinstr("vsrl.vi")
class VsrlVI(VIU):
    """vd[i] = vs2[i] >> (imm mod SEW), logical."""


@vinstr("vsra.vv")
class VsraVV(VV):
    """vd[i] = vs2[i] >> (vs1[i] mod SEW), arithmetic (the sign shifts in)."""


@vinstr("vsra.vx")
class VsraVX(VX):
    """vd[i] = vs2[i] >> (x[rs1] mod SEW), arithmetic."""


@vinstr("vsra.vi")
class VsraVI(VIU):
    """vd[i] = vs2[i] >> (imm mod SEW), arithmetic."""


@vinstr("vmin.vv")
class VminVV(VV):
    """vd[i] = min(vs2[i], vs1[i]), signed."""


@vinstr("vmin.vx")
class VminVX(VX):
    """vd[i] = min(vs2[i], x[rs1]), signed."""


@vinstr("vmax.vv")
class VmaxVV(VV):
    """vd[i] = max(vs2[i], vs1[i]), signed."""


@vinstr("vmax.vx")
class VmaxVX(VX):
    """vd[i] = max(vs2[i], x[rs1]), signed."""


@vinstr("vminu.vv")
class VminuVV(VV):
    """vd[i] = min(vs2[i], vs1[i]), unsigned."""


@vinstr("vminu.vx")
class VminuVX(VX):
    """vd[i] = min(vs2[i], x[rs1]), unsigned."""


@vinstr("vmaxu.vv")
class VmaxuVV(VV):
    """vd[i] = max(vs2[i], vs1[i]), unsigned."""


@vinstr("vmaxu.vx")
class VmaxuVX(VX):
    """vd[i] = max(vs2[i], x[rs1]), unsigned."""


# ---- floating point (SEW = 16, 32, 64; round to nearest even) ----------------------------------

@vinstr("vfadd.vv")
class VfaddVV(VV):
    """vd[i] = vs2[i] + vs1[i]."""


@vinstr("vfadd.vf")
class VfaddVF(VF):
    """vd[i] = vs2[i] + f[fs1]."""


@vinstr("vfsub.vv")
class VfsubVV(VV):
    """vd[i] = vs2[i] - vs1[i]."""


@vinstr("vfsub.vf")
class VfsubVF(VF):
    """vd[i] = vs2[i] - f[fs1]."""


@vinstr("vfrsub.vf")
class VfrsubVF(VF):
    """vd[i] = f[fs1] - vs2[i]."""


@vinstr("vfmul.vv")
class VfmulVV(VV):
    """vd[i] = vs2[i] * vs1[i]."""


@vinstr("vfmul.vf")
class VfmulVF(VF):
    """vd[i] = vs2[i] * f[fs1]."""


@vinstr("vfdiv.vv")
class VfdivVV(VV):
    """vd[i] = vs2[i] / vs1[i] (IEEE: x/0 is a signed inf, 0/0 nan)."""


@vinstr("vfdiv.vf")
class VfdivVF(VF):
    """vd[i] = vs2[i] / f[fs1] (IEEE: x/0 is a signed inf, 0/0 nan)."""


@vinstr("vfrdiv.vf")
class VfrdivVF(VF):
    """vd[i] = f[fs1] / vs2[i] (IEEE: x/0 is a signed inf, 0/0 nan)."""


@vinstr("vfmin.vv")
class VfminVV(VV):
    """vd[i] = minimumNumber(vs2[i], vs1[i]) (IEEE 754-2019: a nan operand yields the other; both nan
    gives nan; -0.0 < +0.0)."""


@vinstr("vfmin.vf")
class VfminVF(VF):
    """vd[i] = minimumNumber(vs2[i], f[fs1]) (a nan operand yields the other; -0.0 < +0.0)."""


@vinstr("vfmax.vv")
class VfmaxVV(VV):
    """vd[i] = maximumNumber(vs2[i], vs1[i]) (IEEE 754-2019: a nan operand yields the other; both nan
    gives nan; -0.0 < +0.0)."""


@vinstr("vfmax.vf")
class VfmaxVF(VF):
    """vd[i] = maximumNumber(vs2[i], f[fs1]) (a nan operand yields the other; -0.0 < +0.0)."""


@vinstr("vfmacc.vv")
class VfmaccVV(Instr):
    """vd[i] = vs1[i] * vs2[i] + vd[i], rounded once for f16 and f32 (computed in f64, so exact but
    for rare double-rounding ties); for f64 the product is rounded before the add."""
    vd: VReg
    vs1: VReg
    vs2: VReg
    vm: Vm = 1


@vinstr("vfmacc.vf")
class VfmaccVF(Instr):
    """vd[i] = f[fs1] * vs2[i] + vd[i], rounded as vfmacc.vv."""
    vd: VReg
    fs1: FReg
    vs2: VReg
    vm: Vm = 1


@vinstr("vfsqrt.v")
class VfsqrtV(V1):
    """vd[i] = sqrt(vs2[i]) (negative inputs give nan, sqrt(-0.0) = -0.0)."""


@vinstr("vfsgnj.vv")
class VfsgnjVV(VV):
    """vd[i] = vs2[i] with the sign bit of vs1[i] (a bit operation; nan payloads are kept)."""


@vinstr("vfsgnjn.vv")
class VfsgnjnVV(VV):
    """vd[i] = vs2[i] with the inverted sign bit of vs1[i] (vfneg.v is vfsgnjn.vv vd, vs, vs)."""


@vinstr("vfsgnjx.vv")
class VfsgnjxVV(VV):
    """vd[i] = vs2[i] with sign bit sign(vs2[i]) xor sign(vs1[i]) (vfabs.v is vfsgnjx.vv vd, vs, vs)."""


@vinstr("vfneg.v")
class VfnegV(V1):
    """vd[i] = vs2[i] with its sign bit flipped (pseudo for vfsgnjn.vv vd, vs2, vs2)."""


@vinstr("vfabs.v")
class VfabsV(V1):
    """vd[i] = vs2[i] with its sign bit cleared (pseudo for vfsgnjx.vv vd, vs2, vs2)."""


# ---- compares into masks ------------------------------------------------------------------------

@vinstr("vmseq.vv", COMPARE)
class VmseqVV(VV):
    """bit i = vs2[i] == vs1[i]."""


@vinstr("vmseq.vx", COMPARE)
class VmseqVX(VX):
    """bit i = vs2[i] == x[rs1] (x[rs1] truncated to SEW)."""


@vinstr("vmsne.vv", COMPARE)
class VmsneVV(VV):
    """bit i = vs2[i] != vs1[i]."""


@vinstr("vmsne.vx", COMPARE)
class VmsneVX(VX):
    """bit i = vs2[i] != x[rs1]."""


@vinstr("vmslt.vv", COMPARE)
class VmsltVV(VV):
    """bit i = vs2[i] < vs1[i], signed."""


@vinstr("vmslt.vx", COMPARE)
class VmsltVX(VX):
    """bit i = vs2[i] < x[rs1], signed."""


@vinstr("vmsltu.vv", COMPARE)
class VmsltuVV(VV):
    """bit i = vs2[i] < vs1[i], unsigned."""


@vinstr("vmsltu.vx", COMPARE)
class VmsltuVX(VX):
    """bit i = vs2[i] < x[rs1], unsigned."""


@vinstr("vmsle.vv", COMPARE)
class VmsleVV(VV):
    """bit i = vs2[i] <= vs1[i], signed."""


@vinstr("vmsle.vx", COMPARE)
class VmsleVX(VX):
    """bit i = vs2[i] <= x[rs1], signed."""


@vinstr("vmsleu.vv", COMPARE)
class VmsleuVV(VV):
    """bit i = vs2[i] <= vs1[i], unsigned."""


@vinstr("vmsleu.vx", COMPARE)
class VmsleuVX(VX):
    """bit i = vs2[i] <= x[rs1], unsigned."""


@vinstr("vmfeq.vv", COMPARE)
class VmfeqVV(VV):
    """bit i = vs2[i] == vs1[i] (nan compares unequal)."""


@vinstr("vmfeq.vf", COMPARE)
class VmfeqVF(VF):
    """bit i = vs2[i] == f[fs1] (nan compares unequal)."""


@vinstr("vmfne.vv", COMPARE)
class VmfneVV(VV):
    """bit i = vs2[i] != vs1[i] (true when either is nan)."""


@vinstr("vmfne.vf", COMPARE)
class VmfneVF(VF):
    """bit i = vs2[i] != f[fs1] (true when either is nan)."""


@vinstr("vmflt.vv", COMPARE)
class VmfltVV(VV):
    """bit i = vs2[i] < vs1[i] (false when either is nan)."""


@vinstr("vmflt.vf", COMPARE)
class VmfltVF(VF):
    """bit i = vs2[i] < f[fs1] (false when either is nan)."""


@vinstr("vmfle.vv", COMPARE)
class VmfleVV(VV):
    """bit i = vs2[i] <= vs1[i] (false when either is nan)."""


@vinstr("vmfle.vf", COMPARE)
class VmfleVF(VF):
    """bit i = vs2[i] <= f[fs1] (false when either is nan)."""


# ---- mask logic, merges, mask queries -----------------------------------------------------------

@family
class MM(Instr):
    vd: VReg
    vs2: VReg
    vs1: VReg


@vinstr("vmand.mm", MASK_LOGIC)
class VmandMM(MM):
    """bit i = bit i of vs2 AND bit i of vs1."""


@vinstr("vmor.mm", MASK_LOGIC)
class VmorMM(MM):
    """bit i = bit i of vs2 OR bit i of vs1."""


@vinstr("vmxor.mm", MASK_LOGIC)
class VmxorMM(MM):
    """bit i = bit i of vs2 XOR bit i of vs1."""


@vinstr("vmnot.m", MASK_LOGIC)
class VmnotM(Instr):
    """bit i = NOT bit i of vs2 (pseudo for vmnand.mm vd, vs2, vs2)."""
    vd: VReg
    vs2: VReg


@vinstr("vmerge.vvm", MERGE, asm="{vd}, {vs2}, {vs1}, v0")
class VmergeVVM(Instr):
    """vd[i] = vs1[i] if mask bit i of v0 else vs2[i]."""
    vd: VReg
    vs2: VReg
    vs1: VReg


@vinstr("vmerge.vxm", MERGE, asm="{vd}, {vs2}, {rs1}, v0")
class VmergeVXM(Instr):
    """vd[i] = x[rs1] (truncated to SEW) if mask bit i of v0 else vs2[i]."""
    vd: VReg
    vs2: VReg
    rs1: XReg


@vinstr("vmerge.vim", MERGE, asm="{vd}, {vs2}, {imm}, v0")
class VmergeVIM(Instr):
    """vd[i] = imm (sign-extended) if mask bit i of v0 else vs2[i]."""
    vd: VReg
    vs2: VReg
    imm: Simm5


@vinstr("vfmerge.vfm", MERGE, asm="{vd}, {vs2}, {fs1}, v0")
class VfmergeVFM(Instr):
    """vd[i] = f[fs1] (rounded to SEW) if mask bit i of v0 else vs2[i]."""
    vd: VReg
    vs2: VReg
    fs1: FReg


@vinstr("vcpop.m", rules="")
class VcpopM(Instr):
    """rd = the number of set bits i < vl of mask vs2 (only those the mask allows when vm=0)."""
    rd: XReg
    vs2: VReg
    vm: Vm = 1


@vinstr("vfirst.m", rules="")
class VfirstM(Instr):
    """rd = the lowest i < vl whose bit is set in mask vs2 (and allowed by the mask when vm=0), or -1."""
    rd: XReg
    vs2: VReg
    vm: Vm = 1


# ---- moves --------------------------------------------------------------------------------------

_UNMASKED = "Unmasked: for each i < vl vd[i] = the value; elements i >= vl are undisturbed."
_SCALAR_MOVE = "Ignores LMUL; the other elements of vd are undisturbed."


@vinstr("vmv.v.v", _UNMASKED)
class VmvVV(Instr):
    """vd[i] = vs1[i]."""
    vd: VReg
    vs1: VReg


@vinstr("vmv.v.x", _UNMASKED)
class VmvVX(Instr):
    """vd[i] = x[rs1] truncated to SEW."""
    vd: VReg
    rs1: XReg


@vinstr("vmv.v.i", _UNMASKED)
class VmvVI(Instr):
    """vd[i] = imm, sign-extended to SEW."""
    vd: VReg
    imm: Simm5


@vinstr("vfmv.v.f", _UNMASKED)
class VfmvVF(Instr):
    """vd[i] = f[fs1] rounded to the SEW float type."""
    vd: VReg
    fs1: FReg


@vinstr("vmv.x.s", rules="")
class VmvXS(Instr):
    """rd = element 0 of vs2, sign-extended from SEW bits; done even when vl = 0."""
    rd: XReg
    vs2: VReg


@vinstr("vfmv.f.s", rules="")
class VfmvFS(Instr):
    """fd = element 0 of vs2 as f32 (f16 widens exactly, f64 rounds to nearest even); done even
    when vl = 0. The scalar core's f registers are single precision."""
    fd: FReg
    vs2: VReg


@vinstr("vmv.s.x", _SCALAR_MOVE)
class VmvSX(Instr):
    """vd[0] = x[rs1] truncated to SEW, when vl > 0 (nothing when vl = 0)."""
    vd: VReg
    rs1: XReg


@vinstr("vfmv.s.f", _SCALAR_MOVE)
class VfmvSF(Instr):
    """vd[0] = f[fs1] rounded to the SEW float type, when vl > 0 (nothing when vl = 0)."""
    vd: VReg
    fs1: FReg


@vinstr("vid.v")
class VidV(Instr):
    """vd[i] = i (wrapping at SEW bits)."""
    vd: VReg
    vm: Vm = 1


# ---- reductions ---------------------------------------------------------------------------------

@vinstr("vredsum.vs", REDUCTION)
class VredsumVS(VV):
    """vd[0] = vs1[0] + sum of vs2[i], wrapping at SEW bits."""


@vinstr("vredmax.vs", REDUCTION)
class VredmaxVS(VV):
    """vd[0] = max(vs1[0], vs2[i]...), signed."""


@vinstr("vredmin.vs", REDUCTION)
class VredminVS(VV):
    """vd[0] = min(vs1[0], vs2[i]...), signed."""


@vinstr("vredmaxu.vs", REDUCTION)
class VredmaxuVS(VV):
    """vd[0] = max(vs1[0], vs2[i]...), unsigned."""


@vinstr("vredminu.vs", REDUCTION)
class VredminuVS(VV):
    """vd[0] = min(vs1[0], vs2[i]...), unsigned."""


@vinstr("vredand.vs", REDUCTION)
class VredandVS(VV):
    """vd[0] = vs1[0] & vs2[i] & ..."""


@vinstr("vredor.vs", REDUCTION)
class VredorVS(VV):
    """vd[0] = vs1[0] | vs2[i] | ..."""


@vinstr("vredxor.vs", REDUCTION)
class VredxorVS(VV):
    """vd[0] = vs1[0] ^ vs2[i] ^ ..."""


@vinstr("vfredusum.vs", REDUCTION)
class VfredusumVS(VV):
    """vd[0] = vs1[0] + (sum of the active vs2[i] as a binary tree: neighbours are added pairwise,
    level by level, each addition rounded to SEW; RVV leaves the order open, this is ours)."""


@vinstr("vfredosum.vs", REDUCTION)
class VfredosumVS(VV):
    """vd[0] = (((vs1[0] + vs2[0]) + vs2[1]) + ...) over the active elements in order, each addition
    rounded to SEW."""


@vinstr("vfredmax.vs", REDUCTION)
class VfredmaxVS(VV):
    """vd[0] = maximumNumber of vs1[0] and the active vs2[i] (nan ignored unless all are nan)."""


@vinstr("vfredmin.vs", REDUCTION)
class VfredminVS(VV):
    """vd[0] = minimumNumber of vs1[0] and the active vs2[i] (nan ignored unless all are nan)."""


# ---- conversions --------------------------------------------------------------------------------

@vinstr("vfcvt.f.x.v")
class VfcvtFXV(V1):
    """vd[i] = the signed SEW-bit integer vs2[i] as a SEW-bit float, rounded to nearest even."""


@vinstr("vfcvt.f.xu.v")
class VfcvtFXuV(V1):
    """vd[i] = the unsigned SEW-bit integer vs2[i] as a SEW-bit float, rounded to nearest even."""


@vinstr("vfcvt.x.f.v")
class VfcvtXFV(V1):
    """vd[i] = the float vs2[i] rounded to the nearest signed SEW-bit integer (ties to even),
    saturating; nan gives the largest integer."""


@vinstr("vfcvt.xu.f.v")
class VfcvtXuFV(V1):
    """vd[i] = the float vs2[i] rounded to the nearest unsigned SEW-bit integer (ties to even),
    saturating (negative values give 0); nan gives the largest integer."""


@vinstr("vfcvt.rtz.x.f.v")
class VfcvtRtzXFV(V1):
    """vd[i] = the float vs2[i] truncated toward zero to a signed SEW-bit integer, saturating; nan
    gives the largest integer (C's (int) cast, made total)."""


@vinstr("vfcvt.rtz.xu.f.v")
class VfcvtRtzXuFV(V1):
    """vd[i] = the float vs2[i] truncated toward zero to an unsigned SEW-bit integer, saturating
    (negative values give 0); nan gives the largest integer."""


@vinstr("vfwcvt.f.f.v")
class VfwcvtFFV(V1):
    """vd[i] = the SEW-bit float vs2[i] widened exactly to 2*SEW bits (f16 -> f32, f32 -> f64); vd is
    a 2*LMUL register group."""


@vinstr("vfncvt.f.f.w")
class VfncvtFFW(V1):
    """vd[i] = the 2*SEW-bit float vs2[i] rounded to SEW bits, to nearest even (f32 -> f16,
    f64 -> f32; overflow gives inf); vs2 is a 2*LMUL register group."""


@vinstr("vsext.vf2")
class VsextVf2(V1):
    """vd[i] = the SEW/2-bit integer vs2[i] sign-extended to SEW bits (vs2 has LMUL/2 registers)."""
    factor = 2


@vinstr("vsext.vf4")
class VsextVf4(V1):
    """vd[i] = the SEW/4-bit integer vs2[i] sign-extended to SEW bits (vs2 has LMUL/4 registers)."""
    factor = 4


@vinstr("vsext.vf8")
class VsextVf8(V1):
    """vd[i] = the 8-bit integer vs2[i] sign-extended to SEW = 64 bits."""
    factor = 8


@vinstr("vzext.vf2")
class VzextVf2(V1):
    """vd[i] = the SEW/2-bit integer vs2[i] zero-extended to SEW bits (vs2 has LMUL/2 registers)."""
    factor = 2


@vinstr("vzext.vf4")
class VzextVf4(V1):
    """vd[i] = the SEW/4-bit integer vs2[i] zero-extended to SEW bits (vs2 has LMUL/4 registers)."""
    factor = 4


@vinstr("vzext.vf8")
class VzextVf8(V1):
    """vd[i] = the 8-bit integer vs2[i] zero-extended to SEW = 64 bits."""
    factor = 8
