"""Random instances of every instruction, for round-trip and fuzz tests."""
from __future__ import annotations

import random

import isa
from isa import fields as K
from isa.types import DTYPES, TILE_MODES, F, Tile, X

SAMPLE_TEXT = 'x = "quoted", # not a comment \\ done'


def sample_tile(r: random.Random) -> Tile:
    mode = r.choice(TILE_MODES)
    shape = tuple(r.choice([1, 2, 16, 32, 128]) for _ in range(r.randint(0, 3)))
    return Tile(r.randrange(16), mode, r.choice(list(DTYPES)), shape, 0 if mode == "push" else r.choice([0, 0, 1, 3]))


def sample_value(kind, r: random.Random):
    if kind is K.XReg:
        return r.randrange(32)
    if kind in (K.FReg, K.VReg):
        return r.randrange(32)
    if kind is K.Imm:
        return r.choice([0, 1, -1, 7, -2048, 2047, 1 << 40, -(1 << 62)])
    if kind is K.FImm:
        return r.choice([0.0, -1.5, 3.25e-8, float("inf"), float("-inf"), 1e30])
    if kind in (K.Label, K.Name):
        return r.choice(["loop", "k_loop.1", "_end", "L$2"])
    if kind is K.Text:
        return SAMPLE_TEXT
    if kind is K.Dtype:
        return r.choice(list(DTYPES))
    if kind is K.XOrImm:
        return r.choice([X(r.randrange(32)), r.randint(-100, 100)])
    if kind is K.FOrImm:
        return r.choice([F(r.randrange(32)), X(r.randrange(32)), 0.5, -2.0, float("inf")])
    if kind is K.IntList:
        return tuple(r.randint(0, 8) for _ in range(r.randint(0, 3)))
    if issubclass(kind, K.XList):
        return tuple(r.choice([X(r.randrange(32)), r.randint(0, 4096)]) for _ in range(r.randint(0, 4)))
    if kind is K.OptTile:
        return r.choice([None, sample_tile(r)])
    if kind is K.TileKind:
        return sample_tile(r)
    if kind is K.Src:
        return r.choice([sample_tile(r), F(r.randrange(32)), 1.25])
    if kind is K.OptSrc:
        return r.choice([None, sample_tile(r), X(r.randrange(32)), -3.0])
    if hasattr(kind, "values"):
        return r.choice(kind.values)
    raise AssertionError(f"no sampler for field kind {kind}")


def sample_instr(cls, r: random.Random, all_fields: bool = True):
    vals = {}
    for name, kind, has_default in cls.fields:
        if has_default and not all_fields and r.random() < 0.5:
            continue
        vals[name] = sample_value(kind, r)
    return isa.make(cls, **vals)
