"""The loop a sampled launch shortens: a kernel's K loop, run for its first few trips.

A production-size GEMM program spends nearly all its time in one counted loop: 172 K steps of a
2048x4096x11008 GEMM's tiles, each as long as the one before once the pipelines are full. A timing-only
run that ends that loop after t1 and after t2 trips measures what one more trip costs, and
`sampling.extend_loop` extends every count to the loop's whole trip count T (read from the
registers at the loop's entry), as the first waves are extended to the launch's (`sampling.py`).

The loop is found in the program, as the backend lays out `scf.for` (compiler/backend/codegen):

    top:  li    ub, T              # (a constant bound, where the body reuses its register)
          bge   iv, ub, end        # the bound check (bgeu for unsigned)
          ...                      # the body; `addi iv, iv, step` (and sign extensions) its only writes to iv
          j     top
    end:

and only where it is the sole outermost such loop that issues DPE commands: that is the loop whose
trips are the kernel's work. A loop whose trip count differs between programs (a causal attention's
rows see more keys further down) is found by the run (`trips_seen` holds more than one value): the
caller must then not extend it.
"""
from __future__ import annotations

from dataclasses import dataclass

from isa import scalar as riscv

CHECKS = (riscv.Bge, riscv.Bgeu)
# writes of the induction variable besides its step: the backend's canonicalisation of i32 values
CANONICAL = (riscv.SextW, riscv.ZextW)


@dataclass(frozen=True)
class LoopSite:
    """A counted loop of a program: where its bound check is and how its induction variable moves."""
    check: int          # index of the bound check (the loop's first instruction but for a bound's `li`)
    exit: int           # index the check jumps to when the loop is done
    back: int           # index of the `j top` that closes the body
    iv: int             # x register of the induction variable ...
    ub: int             # ... of its bound ...
    step: int           # ... and the constant added each trip
    unsigned: bool

    def trips(self, x: list) -> int:
        """Trips left from the registers at the check: ceil((ub - iv) / step), at least 0."""
        a, b = x[self.iv], x[self.ub]
        if self.unsigned:
            a, b = a % (1 << 64), b % (1 << 64)
        return max(0, -(-(b - a) // self.step))


def sampled_loop(program) -> LoopSite | None:
    """The one loop a sampled run shortens (module docstring), or None."""
    loops = _counted_loops(program)
    dpe = [i for i, ins in enumerate(program.instrs) if type(ins).unit == "dpe"]
    working = [lp for lp in loops if any(lp.check < i < lp.back for i in dpe)]
    outer = [lp for lp in working if not any(o.check < lp.check and lp.back < o.back for o in loops)]
    return outer[0] if len(outer) == 1 else None


def _counted_loops(program) -> list[LoopSite]:
    instrs, labels = program.instrs, program.labels
    out = []
    for j, ins in enumerate(instrs):
        if type(ins) is not riscv.J:
            continue
        top = labels.get(ins.target)
        if top is None or top >= j:
            continue
        at = top                        # (a constant bound is loaded again at the top of each trip)
        while at < j and type(instrs[at]) is riscv.Li:
            at += 1
        check = instrs[at]
        if type(check) not in CHECKS or labels.get(check.target) != j + 1 or check.rs1 == 0:
            continue
        reloaded = any(instrs[k].rd == check.rs2 for k in range(top, at))
        steps = [k for k in range(at + 1, j) if getattr(instrs[k], "rd", None) == check.rs1]
        adds = [k for k in steps if type(instrs[k]) is riscv.Addi and instrs[k].rs1 == check.rs1]
        others = [k for k in steps if k not in adds and not (type(instrs[k]) in CANONICAL and
                                                             instrs[k].rs1 == check.rs1)]
        if len(adds) != 1 or others or instrs[adds[0]].imm <= 0 or check.rs2 == check.rs1 or \
                (not reloaded and any(getattr(instrs[k], "rd", None) == check.rs2 for k in range(at + 1, j))):
            continue
        out.append(LoopSite(at, j + 1, j, check.rs1, check.rs2, instrs[adds[0]].imm, type(check) is riscv.Bgeu))
    return out


def cap(core, site: LoopSite, trips: int, seen: set) -> None:
    """Make `core` leave the loop at `site` after `trips` trips (or earlier, where it ends by itself), and
    add each entry's whole trip count to `seen`."""
    fn, ins, kind, engine = core.code[site.check]
    done = 0
    entering = True

    def capped(c, i):
        nonlocal done, entering
        if entering:
            seen.add(site.trips(c.x))
            entering = False
        nxt = fn(c, i)
        if nxt is None and done < trips:
            done += 1
            return None
        done, entering = 0, True
        return site.exit if nxt is None else nxt
    core.code[site.check] = (capped, ins, kind, engine)
