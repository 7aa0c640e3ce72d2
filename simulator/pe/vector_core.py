"""The RVV state of a PE's vector core: 32 registers of VLEN bits, vl and vtype (SEW, LMUL), and
the cycle and work counters the report reads.

The register file is one flat byte array, as in hardware it is one bit pattern: an LMUL group
(consecutive registers) is one slice of it, and any element width is a numpy view of that slice.
The instruction semantics (simulator/semantics/vector.py) read and write it through the helpers
here and charge their cycles with `charge`.

Timing: an instruction that processes n elements of dtype d costs ceil(n / ops_per_cycle[d])
cycles beyond the core's cpi; loads and stores add `load_cycles`; mask-register instructions
process VLEN bits per cycle.
"""
from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from ..semantics.vector_types import FLOAT, INT, UINT, VectorFault


class VectorCore:
    def __init__(self, cfg):
        v = cfg.pe.vector
        if v.vlen_bits % 64:
            raise ConfigError(f"pe.vector.vlen_bits = {v.vlen_bits}: must be a multiple of 64 so that "
                              f"every element width fills a register exactly")
        self.vlen = v.vlen_bits
        self.vlenb = v.vlen_bits // 8
        self.rate = dict(v.ops_per_cycle)
        self.load_cycles = v.load_cycles
        self.regs = np.zeros(32 * self.vlenb, np.uint8)
        # Work over the whole run (all program instances), for the report.
        self.instructions = 0
        self.cycles = 0                         # cycles charged beyond cpi
        self.ops = 0                            # element operations (an FMA counts 2)
        self.ops_by_dtype: dict[str, int] = {}
        self.bytes_loaded = 0
        self.bytes_stored = 0
        self.reset()

    def reset(self) -> None:
        """The state a program instance starts from: zero registers, vl = 0 and no vtype (RVV's
        vill), so every vector instruction but vsetvli faults until one runs."""
        self.regs[:] = 0
        self.vl = 0
        self.sew = 0
        self.lmul = 1

    # ---- vtype and vl ---------------------------------------------------------------------------
    def vlmax(self, sew: int | None = None, lmul: int | None = None) -> int:
        return self.vlen * (lmul or self.lmul) // (sew or self.sew)

    def setvl(self, avl: int | None, sew: int, lmul: int) -> int:
        """Set vtype and vl = min(avl, VLMAX); avl None keeps the current vl. Returns vl."""
        vlmax = self.vlmax(sew, lmul)
        if avl is None:
            if self.sew and self.vl > vlmax:
                raise VectorFault(f"vsetvli x0, x0 keeps vl = {self.vl}, which exceeds the new VLMAX {vlmax}")
            avl = self.vl
        self.sew, self.lmul, self.vl = sew, lmul, min(avl, vlmax)
        return self.vl

    def dtype(self, kind: str, sew: int | None = None) -> np.dtype:
        """The element type of kind 'i' (signed), 'u' (unsigned) or 'f' (float) at SEW (or `sew`)."""
        if not self.sew:
            raise VectorFault("vector instruction before any vsetvli: vtype is not set")
        sew = sew or self.sew
        table = {"i": INT, "u": UINT, "f": FLOAT}[kind]
        if sew not in table:
            what = "float" if kind == "f" else "integer"
            raise VectorFault(f"no {sew}-bit {what} elements (SEW = {self.sew})")
        return table[sew]

    def emul(self, eew: int) -> int:
        """Registers in a group of EEW-bit elements at the current SEW and LMUL: EEW/SEW*LMUL,
        at least one (fractional groups use part of one register)."""
        num = eew * self.lmul
        if num > 8 * self.sew or 8 * num < self.sew:
            raise VectorFault(f"EEW {eew} at SEW {self.sew} and LMUL {self.lmul} needs EMUL {eew}/{self.sew}*"
                              f"{self.lmul} = {num / self.sew:g} registers, outside 1/8..8")
        return max(1, num // self.sew)

    # ---- registers ------------------------------------------------------------------------------
    def group(self, reg: int, nregs: int) -> np.ndarray:
        """The bytes of register group v[reg]..v[reg+nregs-1] (a view)."""
        if reg % nregs:
            raise VectorFault(f"v{reg} does not start a group of {nregs} registers (LMUL {nregs} groups start "
                              f"at multiples of {nregs})")
        return self.regs[reg * self.vlenb:(reg + nregs) * self.vlenb]

    def read(self, reg: int, dt: np.dtype, n: int | None = None, nregs: int | None = None) -> np.ndarray:
        """A copy of the first n (default vl) elements of type dt in the group at v[reg], which
        has EMUL registers for that element width unless `nregs` says otherwise."""
        n = self.vl if n is None else n
        return self.group(reg, nregs or self.emul(dt.itemsize * 8)).view(dt)[:n].copy()

    def write(self, reg: int, values: np.ndarray, active: np.ndarray | None = None,
              nregs: int | None = None) -> None:
        """Write values[i] to element i of the group at v[reg] where active[i] (everywhere when
        active is None); elements past len(values) and inactive ones keep their value."""
        if active is not None and reg == 0:
            raise VectorFault("the destination of a masked instruction may not overlap v0, which holds the mask")
        group = self.group(reg, nregs or self.emul(values.dtype.itemsize * 8))
        dst = group.view(values.dtype)[:len(values)]
        if active is None:
            dst[:] = values
        else:
            np.copyto(dst, values, where=active)

    def read_mask(self, reg: int, n: int | None = None) -> np.ndarray:
        """Mask bits 0..n-1 (default vl) of v[reg] as booleans: bit i is bit i%8 of byte i//8."""
        n = self.vl if n is None else n
        return np.unpackbits(self.group(reg, 1), bitorder="little")[:n].astype(bool)

    def write_mask(self, reg: int, bits: np.ndarray, active: np.ndarray | None = None) -> None:
        """Set mask bits 0..len(bits)-1 of v[reg] where active; the other bits keep their value."""
        dst = self.group(reg, 1)
        allbits = np.unpackbits(dst, bitorder="little").astype(bool)
        head = allbits[:len(bits)]
        if active is None:
            head[:] = bits
        else:
            np.copyto(head, bits, where=active)
        dst[:] = np.packbits(allbits, bitorder="little")

    # ---- timing and work ------------------------------------------------------------------------
    def charge(self, core, elems: int, rate: str, ops: int = 1, mem: bool = False) -> None:
        """Charge the cycles of processing `elems` elements at ops_per_cycle[rate] ('mask': VLEN bits
        per cycle) to the control core, and count elems * ops element operations."""
        if elems <= 0:
            return
        per_cycle = self.vlen if rate == "mask" else self.rate.get(rate)
        if per_cycle is None:
            raise VectorFault(f"the config has no pe.vector.ops_per_cycle.{rate} for {rate} elements")
        cycles = -(-elems // per_cycle) + (self.load_cycles if mem else 0)
        core.extra += cycles
        self.cycles += cycles
        if ops:
            self.ops += elems * ops
            self.ops_by_dtype[rate] = self.ops_by_dtype.get(rate, 0) + elems * ops

    def stats(self) -> dict:
        """The vector work of the run, for the report."""
        return {"instructions": self.instructions, "cycles": self.cycles, "ops": self.ops,
                "ops_by_dtype": dict(self.ops_by_dtype), "bytes_loaded": self.bytes_loaded,
                "bytes_stored": self.bytes_stored}
