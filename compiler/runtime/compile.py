"""Compile a @jit function for one specialisation: frontend -> verify -> pass pipeline -> CompiledKernel."""
from __future__ import annotations

import os

from ..errors import CompilationError
from ..frontend import generate_ir
from ..frontend.aggregate_params import kernel_arg_names
from ..ir import print_module, verify
from ..ir.ops import VerifyError
from ..ir.passes import DEFAULT_PIPELINE, run_pipeline
from ..ir.types import parse_type_name
from .compiled import CompiledKernel

# When true, every compile also checks that each printed IR stage parses back to the same text
# (the test suite turns it on; it costs a parse per stage).
CHECK_ROUNDTRIP = os.environ.get("MTIA_CHECK_IR_ROUNDTRIP") == "1"


def compile_ir(jitfn, arg_types: dict, constexprs: dict, arg_attrs: dict, passes=None) -> CompiledKernel:
    src = jitfn.source
    module = generate_ir(src, arg_types, constexprs, arg_attrs)
    try:
        verify(module)
    except VerifyError as e:   # a frontend bug, not a user error: say so plainly
        raise CompilationError(f"internal error: the frontend produced invalid IR for {src.name}: {e}") from None
    stages = {"source": src.source, "ir.frontend": print_module(module)}
    # each pass's output is verified in the checking mode the tests run in; a plain compile verifies
    # the pipeline's result once (a verify after each of the 4 + 14 passes was a third of a compile)
    stages.update(run_pipeline(module, passes if passes is not None else DEFAULT_PIPELINE,
                               verify_each=CHECK_ROUNDTRIP))
    verify(module)
    stages["ir"] = next(reversed(stages.values()))      # the last pass's text (the module as it is now)
    if CHECK_ROUNDTRIP:
        check_roundtrip(stages)
    names = kernel_arg_names(src.params, arg_types, constexprs)
    return CompiledKernel(src.name, module, names, {n: arg_types[n].ir for n in names}, dict(constexprs),
                          src.source, src.file, stages)


def check_roundtrip(stages: dict) -> None:
    """Raise if a printed IR stage does not parse back to the same text (or does not verify)."""
    from ..ir import reprint
    for name, text in stages.items():
        if name.startswith("ir") and reprint(text) != text:
            raise CompilationError(f"internal error: IR stage {name!r} does not round-trip through the parser")


def compile(fn, signature: dict | None = None, constexprs: dict | None = None, attrs: dict | None = None,
            args: tuple | None = None, kwargs: dict | None = None, passes=None) -> CompiledKernel:
    """Compile without launching, like `triton.compile(ASTSource(fn, signature, constexprs))`.

    Either give `signature` ({param: "*fp32" | "i32" | "f32" | ...}) plus `constexprs` ({param: value})
    and optional `attrs` ({param: {"tt.divisibility": 16}}), or example `args`/`kwargs` as for a launch.
    """
    if args is not None or kwargs is not None:
        return fn.compile(*(args or ()), **(kwargs or {}))
    signature = dict(signature or {})
    constexprs = dict(constexprs or {})
    arg_types = {}
    for p in fn.source.params:
        if p.name in constexprs:
            continue
        if p.name in signature and signature[p.name] != "constexpr":
            arg_types[p.name] = parse_type_name(signature[p.name])
        elif p.has_default:
            constexprs[p.name] = p.default
        else:
            raise CompilationError(f"compile(): no type in `signature` and no value in `constexprs` for "
                                   f"parameter '{p.name}' of {fn.__name__}")
    fn.compile_count += 1
    return compile_ir(fn, arg_types, constexprs, attrs or {}, passes)
