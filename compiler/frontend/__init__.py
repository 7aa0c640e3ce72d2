"""Frontend: a @jit function + argument types + constexpr values -> an IR Module (one tt.func)."""
from __future__ import annotations

from ..errors import CompilationError
from ..ir.builder import Builder
from ..ir.core import Block, Module, Operation, Region
from ..ir.ops import Op
from ..ir.types import DType
from ..language.core import constexpr, tensor, unwrap
from ..language.semantic import Semantic
from .aggregate_params import AggregateParam, kernel_arg_names
from .ast_to_ir import RET, AstToIR, is_jit_function
from .source import FunctionSource, Param

__all__ = ["generate_ir", "FunctionSource", "Param", "is_jit_function"]


def generate_ir(src: FunctionSource, arg_types: dict[str, DType], constexprs: dict[str, object],
                arg_attrs: dict[str, dict] | None = None) -> Module:
    """Compile the kernel `src` specialised on `arg_types` (runtime parameters, in parameter order)
    and `constexprs` (every other parameter) into a Module holding one tt.func. A parameter given a
    host-built aggregate has an `AggregateParam` in `constexprs` and its runtime fields in `arg_types`
    under their paths (`epilogue.bias`): see aggregate_params.py."""
    arg_attrs = arg_attrs or {}
    runtime = kernel_arg_names(src.params, arg_types, constexprs)
    missing = [p.name for p in src.params if p.name not in arg_types and p.name not in constexprs]
    if missing:
        raise CompilationError(f"no value or type given for parameter(s) {', '.join(missing)} of {src.name}")
    module = Module(loc=src.loc(src.fndef))
    block = Block([arg_types[n] for n in runtime], list(runtime))
    attrs: dict = {"sym_name": src.name}
    per_arg = [dict(arg_attrs.get(n, {})) for n in runtime]
    if any(per_arg):
        attrs["arg_attrs"] = per_arg
    func = Operation(Op.FUNC, attrs=attrs, regions=[Region([block])], loc=src.loc(src.fndef))
    module.body.append(func)
    builder = Builder(block)
    sem = Semantic(builder)
    scope: dict = {}
    args = dict(zip(runtime, block.args))

    def value_of(name):
        return tensor(args[name], args[name].type) if name in args else constexpr(constexprs[name])
    gen = AstToIR(src, sem, scope)
    sem.ast_to_ir = gen
    with sem:
        for p in src.params:       # (a host tensor descriptor is rebuilt by the semantic's make_tensor_descriptor)
            layout = constexprs.get(p.name)
            scope[p.name] = layout.rebuild(p.name, value_of) if isinstance(layout, AggregateParam) else value_of(p.name)
        gen.visit_stmts(src.fndef.body)
    ret = gen.scope.get(RET)
    if ret is not None and unwrap(ret) is not None:
        raise gen.error(src.fndef, "a kernel launched with kernel[grid](...) cannot return a value")
    builder.loc = src.loc(src.fndef)
    builder.create(Op.RETURN)
    return module
