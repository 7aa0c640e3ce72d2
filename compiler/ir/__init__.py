"""The block IR: types, values/ops/blocks/regions, the op table, builder, printer, parser, verifier.

Walk a kernel with ``for op in module.walk(): ...``; match on ``op.name == Op.LOAD`` (or the
string ``"tt.load"``); follow data flow with ``value.owner`` and ``value.uses``.
"""
from . import patterns, types
from .builder import Builder
from .core import Block, BlockArgument, Loc, Module, Operation, OpResult, Region, Use, Value
from .ops import OP_DEFS, Op, OpDef, VerifyError
from .parser import ParseError, parse_module, parse_type
from .printer import print_module, print_op
from .verifier import verify

__all__ = ["patterns", "types", "Builder", "Block", "BlockArgument", "Loc", "Module", "Operation", "OpResult", "Region",
           "Use", "Value", "OP_DEFS", "Op", "OpDef", "VerifyError", "ParseError", "parse_module", "parse_type",
           "print_module", "print_op", "verify"]
