"""The functional meaning of every instruction: one numpy function each, registered by class.

The timing model calls `SEMANTICS[type(ins)]` and never re-implements the math. Engine functions
take `(ctx, cmd)`: `ctx` is the PE (local store bytes, global memory), `cmd` the issued command with
its operand values resolved (`cmd.vals`) and its tiles' local-store addresses (`cmd.addr`). Scalar,
vector and CB functions take `(core, ins)` and act on the control core's registers.
"""
from __future__ import annotations

SEMANTICS: dict[type, object] = {}


def semantics(*classes):
    """Register the function as the meaning of the given instruction classes."""
    def wrap(fn):
        for cls in classes:
            if cls in SEMANTICS:
                raise ValueError(f"{cls.mnemonic} has two semantics functions")
            SEMANTICS[cls] = fn
        return fn
    return wrap


def load_all() -> None:
    from . import dma, dpe, mlu, re, scalar, se, vector  # noqa: F401


def missing() -> list[str]:
    """Mnemonics of declared instructions that have no semantics (the tests keep this empty)."""
    import isa
    load_all()
    from . import control  # noqa: F401
    return sorted(m for m, c in isa.REGISTRY.items() if c not in SEMANTICS)
