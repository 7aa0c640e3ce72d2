"""The block IR: types, values/ops/blocks/regions, the op table, builder, printer, parser, verifier.

For backend passes, the whole API in a few lines:

    compiled = kernel.compile(*args, **meta)          # or compiler.compile(kernel, signature=..., constexprs=...)
    module = compiled.module                          # Module -> tt.func ops (one kernel)
    func = module.function()                          # func.body.args are the runtime parameters
    for op in module.walk():                          # pre-order; walk(post_order=True) to erase while walking
        if op.name == Op.LOAD:                        # names live in `Op` (StrEnum-like), also plain strings
            ptr = op.ptr                              # operands by their declared names (None if absent)
            src = ptr.owner                           # the defining Operation (a Block for block arguments)
            users = op.result.users                   # def-use lists: value.uses -> [Use(op, index)]
            op.attrs.get("cache")                     # plain dict of ints/floats/bools/strings/lists
            op.loc                                    # Loc(file, line, col) of the kernel source
    OP_DEFS[op.name].doc                              # the op's semantics in words; interpreter/ops.py runs them

Rewrites: `Builder` (create ops before an op), `value.replace_all_uses_with(new)`,
`op.replace_all_uses_with(values)`, `op.erase()`, `op.clone()`,
helpers in `patterns` (constant_value, defining_op, combine_kind for tt.reduce/tt.scan).
Structured control flow: scf.for (operands lb, ub, step, inits...; body args iv, iters...; ends in
scf.yield), scf.if (two regions, results yielded), scf.while (before region ends in scf.condition,
after region ends in scf.yield). Text: `print_module(m)` / `parse_module(text)` round-trip exactly;
`verify(m)` checks op contracts, terminators and dominance.
"""
from . import patterns, types
from .builder import Builder
from .core import Block, BlockArgument, Loc, Module, Operation, OpResult, Region, Use, Value
from .ops import OP_DEFS, Op, OpDef, VerifyError
from .parser import ParseError, parse_module, parse_type, reprint
from .printer import print_module, print_op
from .verifier import verify

__all__ = ["patterns", "types", "Builder", "Block", "BlockArgument", "Loc", "Module", "Operation", "OpResult",
           "Region", "Use", "Value", "OP_DEFS", "Op", "OpDef", "VerifyError", "ParseError", "parse_module",
           "parse_type", "print_module", "print_op", "reprint", "verify"]
