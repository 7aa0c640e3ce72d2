"""AST -> IR: visits a @jit function's Python AST and emits structured SSA IR.

Names map to values in `self.scope`: runtime `tensor`s, `constexpr`s, tuples, dtypes, functions.
Structured control flow follows Triton's code generator:
- runtime `if` -> scf.if whose results are the names (re)assigned in a branch and live after it;
- `for ... in range/tl.range` -> scf.for, `while` -> scf.while; loop-carried values are the names
  assigned in the body that exist before the loop (their type must not change);
- `tl.static_range` and constexpr `if` are resolved at compile time (unrolled / dead branch dropped);
- calls to other @jit functions are inlined; `return` inside a runtime `if` (outside loops) is
  handled by moving the statements after the `if` into the branches that fall through.
Assigning a Python number to a plain name makes a runtime value (as in Triton); use
`X: tl.constexpr = ...` to keep it compile-time.
"""
from __future__ import annotations

import ast
import builtins as py
import inspect
import math
import operator
import os
import types

from ..errors import CompilationError, CompileTimeError
from ..ir import types as T
from ..ir.core import Block, Operation, Region
from ..ir.ops import Op
from ..language import builtins as tlb
from ..language.aggregate import is_aggregate
from ..language.core import constexpr, constexpr_type, is_builtin, tensor, tensor_descriptor, unwrap
from .aggregates import BoundJitMethod, Flat, flatten, leaf_names
from .source import FunctionSource

RET = "$return"          # scope key holding the function's return value once it returned
MAX_INLINE_DEPTH = 64

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitAnd: operator.and_,
           ast.BitOr: operator.or_, ast.BitXor: operator.xor}
_CMPOPS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
           ast.Eq: operator.eq, ast.NotEq: operator.ne}
_PY_SCALARS = (bool, int, float, str, type(None))


def is_jit_function(fn) -> bool:
    return getattr(fn, "__triton_jit__", False)


def _wrap(v):
    """Python scalars coming out of calls/attributes become constexprs."""
    return constexpr(v) if isinstance(v, _PY_SCALARS) else v


class _Unsupported(CompileTimeError):
    pass


class _InHelper(Exception):
    """A called @jit helper's CompilationError, on its way to the caller's node; `note` says where in
    the helper (and the helpers it called) it arose."""

    def __init__(self, error: CompilationError, note: str):
        super().__init__(error.error_message)
        self.error, self.note = error, note


class AstToIR(ast.NodeVisitor):
    def __init__(self, src: FunctionSource, sem, scope: dict, depth: int = 0):
        self.src = src
        self.sem = sem
        self.b = sem.b
        self.scope = scope
        self.depth = depth
        self.loop_depth = 0
        self.pending_constexprs: set[str] = set()   # names declared `x: tl.constexpr` and not yet assigned

    # --- errors and locations -----------------------------------------------------------------
    def visit(self, node):
        with self.b.at_loc(self.src.loc(node)):
            try:
                return super().visit(node)
            except CompilationError:
                raise
            except _InHelper as e:     # an error in a @jit helper this node called: reported here, as Triton does
                raise self.error(node, e.error.error_message, note=e.note) from _bare(e.error)
            except RecursionError:
                raise self.error(node, "maximum recursion depth exceeded while compiling") from None
            except Exception as e:   # user errors from the semantic layer, reported at this node
                raise self.error(node, _message(e)) from _bare(e)

    def error(self, node, msg: str, note: str | None = None) -> CompilationError:
        loc = self.src.loc(node)
        return CompilationError(msg, loc.file, loc.line, loc.col, self.src.line_text(node), note)

    def generic_visit(self, node):
        raise _Unsupported(f"unsupported AST node type: {type(node).__name__}")

    # --- statements ---------------------------------------------------------------------------
    def visit_stmts(self, stmts: list) -> None:
        for i, stmt in enumerate(stmts):
            if RET in self.scope:
                return
            if isinstance(stmt, ast.If) and _contains_return(stmt):
                cond = self.visit(stmt.test)
                if isinstance(unwrap(cond), tensor):
                    # Early return in a runtime if: the rest of the list runs in the branches that fall through.
                    with self.b.at_loc(self.src.loc(stmt)):
                        try:
                            self.runtime_if(stmt, cond, stmt.body + stmts[i + 1:], stmt.orelse + stmts[i + 1:],
                                            to_end=True)
                        except CompilationError:
                            raise
                        except Exception as e:
                            raise self.error(stmt, _message(e)) from _bare(e)
                    return
                # a compile-time if: its taken branch and the rest of the list are one list, so that an
                # early return in a runtime if inside the branch keeps the rest in its fall-through path
                self.visit_stmts((stmt.body if _static_truth(cond) else stmt.orelse) + stmts[i + 1:])
                return
            self.visit(stmt)

    def visit_FunctionDef(self, node):
        self.visit_stmts(node.body)

    def visit_Pass(self, node):
        pass

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring
        if isinstance(node.value, ast.Call):
            self._check_result_used(node.value)
        self.visit(node.value)

    def _check_result_used(self, call: ast.Call):
        """A call made a statement drops its result: refused for functions marked must_use_result."""
        if not isinstance(call.func, (ast.Name, ast.Attribute)):
            return
        try:
            fn = self.visit(call.func)
        except Exception:   # noqa: BLE001  (the call itself reports a name it cannot resolve)
            return
        why = getattr(fn, "_must_use_result", False)
        if why:
            raise CompileTimeError(" ".join([f"The result of {ast.unparse(call.func)} is not being used."] +
                                            ([why] if isinstance(why, str) else [])))

    def visit_Return(self, node):
        if self.loop_depth:
            raise CompileTimeError("Cannot have `return` statements inside `while` or `for` statements in triton "
                                   "(note that this also applies to `return` statements that are inside functions "
                                   "transitively called from within `while`/`for` statements)")
        self.scope[RET] = self.visit(node.value) if node.value is not None else constexpr(None)

    def visit_Assign(self, node):
        value = self.visit(node.value)
        for target in node.targets:
            self.assign(target, value)

    def visit_AnnAssign(self, node):
        ann = self.visit(node.annotation) if not isinstance(node.annotation, ast.Constant) else node.annotation.value
        is_constexpr = unwrap(ann) is constexpr or (isinstance(ann, str) and ann.endswith("constexpr"))
        if node.value is None:
            # `d0: tl.constexpr` alone declares that the next assignment to d0 (`d0, d1 = shape` included)
            # keeps its value a compile-time one, as in Triton (code_generator's pending_annotations)
            if is_constexpr and isinstance(node.target, ast.Name):
                self.pending_constexprs.add(node.target.id)
            return
        value = self.visit(node.value)
        if is_constexpr:
            if not isinstance(node.target, ast.Name):
                raise _Unsupported("constexpr annotations are only supported on plain names")
            if isinstance(unwrap(value), tensor):
                # Triton keeps a runtime value as it is (code_generator's normalize_value): the annotation
                # only keeps a number from becoming a runtime scalar
                self.assign(node.target, value)
                return
            self.scope[node.target.id] = constexpr(value)
            return
        self.assign(node.target, value)

    def visit_NamedExpr(self, node):
        """`(x := value)`: assigns as `x = value` does (a number becomes a runtime scalar unless `x` was
        declared `tl.constexpr`) and is the value x now holds."""
        self.assign(node.target, self.visit(node.value))
        return self.scope[node.target.id]

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Attribute):      # an aggregate's field: refused by assign()
            lhs = self.visit_Attribute(node.target)
        elif not isinstance(node.target, ast.Name):
            raise _Unsupported(f"unsupported augmented assignment target: {ast.unparse(node.target)}")
        else:
            lhs = self.lookup(node.target.id, node.target)
        rhs = self.visit(node.value)
        self.assign(node.target, self.binop(type(node.op), lhs, rhs))

    def assign(self, target, value) -> None:
        if isinstance(target, ast.Name) and target.id in self.pending_constexprs:
            self.pending_constexprs.discard(target.id)
            if not isinstance(unwrap(value), tensor):      # a runtime value stays one, as in Triton
                self.scope[target.id] = constexpr(value)
                return
        if isinstance(target, ast.Name):
            value = self.sanitize(value)
            if isinstance(value, tensor) and value.handle.name_hint is None and hasattr(value.handle, "op"):
                value.handle.name_hint = target.id
            self.scope[target.id] = value
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            vals = unwrap(value)
            if not isinstance(vals, (tuple, list)):
                raise CompileTimeError(f"cannot unpack a non-tuple value {value!r}")
            if len(vals) != len(target.elts):
                raise CompileTimeError(f"cannot unpack {len(vals)} values into {len(target.elts)} names")
            for t, v in zip(target.elts, vals):
                self.assign(t, v)
            return
        if isinstance(target, ast.Attribute):
            obj = unwrap(self.visit(target.value))
            if is_aggregate(obj):
                setattr(obj, target.attr, value)      # raises: an unknown field, or a built (immutable) one
        raise _Unsupported(f"unsupported assignment target: {ast.unparse(target)}")

    def sanitize(self, value):
        """Triton semantics: assigning a Python number to a name makes a runtime scalar."""
        v = unwrap(value)
        if isinstance(v, (bool, int, float)):
            return self.sem.to_tensor(v)
        if isinstance(v, (tuple, list)):
            items = [self.sanitize(x) for x in v]
            return type(v)(*items) if hasattr(type(v), "_fields") else tuple(items)   # a namedtuple keeps its class
        return value

    def visit_Assert(self, node):
        cond = self.visit(node.test)
        msg = unwrap(self.visit(node.msg)) if node.msg is not None else ""
        if isinstance(unwrap(cond), tensor):
            self.sem.device_assert(cond, str(msg) or f"Assertion `{ast.unparse(node.test)}` failed")
        elif not unwrap(cond):
            raise CompileTimeError(f"Assertion failed: {msg}" if msg else
                                   f"Assertion `{ast.unparse(node.test)}` failed")

    # --- if -----------------------------------------------------------------------------------
    def visit_If(self, node):
        cond = self.visit(node.test)
        if isinstance(unwrap(cond), tensor):
            self.runtime_if(node, cond, node.body, node.orelse, to_end=False)
        else:
            self.visit_stmts(node.body if _static_truth(cond) else node.orelse)

    def _scalar_cond(self, cond) -> tensor:
        cond = unwrap(cond)
        if cond.type.is_block():
            if cond.type.numel != 1:
                raise CompileTimeError(f"the condition of an if/while must be a scalar, got a block of shape "
                                       f"{list(cond.type.shape)}")
            cond = self.sem.reshape(cond, ())
        return self.sem._to_bool(cond)

    def runtime_if(self, node, cond, then_body, else_body, to_end: bool) -> None:
        cond = self._scalar_cond(cond)
        before = dict(self.scope)
        branches = []
        for body in (then_body, else_body):
            block = Block()
            self.scope = dict(before)
            with self.b.at_end(block):
                self.visit_stmts(body)
            if to_end:   # both branches run to the end of the function: a missing return returns None
                self.scope.setdefault(RET, constexpr(None))
            branches.append((block, self.scope))
        self.scope = before
        (then_blk, then_scope), (else_blk, else_scope) = branches
        names = [n for n in _ordered_union(then_scope, else_scope)
                 if n in then_scope and n in else_scope and
                 (then_scope[n] is not before.get(n) or else_scope[n] is not before.get(n))]
        merged, yields_then, yields_else, results = {}, [], [], []
        for n in names:
            tv, ev = then_scope[n], else_scope[n]
            if _same_static(tv, ev):
                merged[n] = tv
                continue
            with self.b.at_end(then_blk):
                ft = self._flat_runtime(tv, n, "then block")
            with self.b.at_end(else_blk):
                fe = self._flat_runtime(ev, n, "else block")
            if ft.signature != fe.signature:     # numbers in tuples that differ become runtime scalars, as
                with self.b.at_end(then_blk):    # a lone number does (`return 1, x` / `return 0, x`)
                    ft = self._flat_runtime(self.sanitize(tv), n, "then block")
                with self.b.at_end(else_blk):
                    fe = self._flat_runtime(self.sanitize(ev), n, "else block")
            if ft.signature != fe.signature:
                raise CompileTimeError(f"Mismatched type for {_display(n)} between then block ({ft.describe}) and "
                                       f"else block ({fe.describe})")
            yields_then.extend(ft.leaves)
            yields_else.extend(fe.leaves)
            results.append((n, ft))
        with self.b.at_end(then_blk):
            self.b.create(Op.YIELD, [v.handle for v in yields_then])
        with self.b.at_end(else_blk):
            self.b.create(Op.YIELD, [v.handle for v in yields_else])
        op = self.b.create(Op.IF, [cond.handle], [v.type for v in yields_then],
                           regions=[Region([then_blk]), Region([else_blk])])
        i = 0
        for n, flat in results:
            vals = op.results[i:i + len(flat.leaves)]
            i += len(flat.leaves)
            if n != RET:
                for r, hint in zip(vals, leaf_names(n, flat)):
                    r.name_hint = hint
            merged[n] = flat.rebuild(vals)
        self.scope.update(merged)

    def _flat_runtime(self, v, name, where) -> Flat:
        """The runtime leaves of a value merged by control flow (numbers become runtime scalars)."""
        u = unwrap(v)
        if isinstance(u, (bool, int, float)):
            v = self.sem.to_tensor(u)
        flat = flatten(v)
        if flat is None:
            raise CompileTimeError(f"{_display(name)} has different compile-time values in the two branches of a "
                                   f"runtime if ({where}: {u!r})")
        return flat

    def visit_IfExp(self, node):
        cond = self.visit(node.test)
        if not isinstance(unwrap(cond), tensor):
            return self.visit(node.body if _static_truth(cond) else node.orelse)
        cond = self._scalar_cond(cond)
        vals, blocks = [], []
        for expr in (node.body, node.orelse):
            block = Block()
            with self.b.at_end(block):
                vals.append(self.visit(expr))
            blocks.append(block)
        void = [unwrap(v) is None for v in vals]
        if all(void):   # `tl.store(a) if c else tl.store(b)`: an if for its side effects, no value
            for block in blocks:
                with self.b.at_end(block):
                    self.b.create(Op.YIELD, [])
            self.b.create(Op.IF, [cond.handle], [], regions=[Region([b]) for b in blocks])
            return None
        if any(void):
            raise CompileTimeError("Ternary expression with dynamic condition has a value in one branch only: "
                                   f"{'None' if void[0] else 'a value'} and {'None' if void[1] else 'a value'}")
        for i, block in enumerate(blocks):
            with self.b.at_end(block):
                vals[i] = self.sem.to_tensor(vals[i])
        if vals[0].type != vals[1].type:
            raise CompileTimeError(f"Ternary expression with dynamic condition has inconsistent types "
                                   f"{vals[0].type} and {vals[1].type}")
        for block, v in zip(blocks, vals):
            with self.b.at_end(block):
                self.b.create(Op.YIELD, [v.handle])
        op = self.b.create(Op.IF, [cond.handle], [vals[0].type], regions=[Region([b]) for b in blocks])
        return tensor(op.result, op.result.type)

    # --- loops --------------------------------------------------------------------------------
    def visit_For(self, node):
        if node.orelse:
            raise _Unsupported("for ... else is not supported")
        it = node.iter
        if not isinstance(it, ast.Call):
            seq = unwrap(self.visit(it))
            if isinstance(seq, (tuple, list)):      # iterating a compile-time tuple unrolls the loop
                self.static_for(node, seq)
                return
            raise _Unsupported("only `range`, `tl.range`, `tl.static_range` and tuple loops are supported")
        fn = unwrap(self.visit(it.func))
        args = [self.visit(a) for a in it.args]
        kwargs = {k.arg: self.visit(k.value) for k in it.keywords}
        if fn is tlb.static_range:
            self.static_for(node, tlb.static_range(*args, **kwargs))
            return
        if fn is py.range:
            rng = tlb.range(*args, **kwargs)
        elif fn is tlb.range:
            rng = tlb.range(*args, **kwargs)
        else:
            raise _Unsupported("only `range`, `tl.range` and `tl.static_range` loops are supported")
        if not isinstance(node.target, ast.Name):
            raise _Unsupported("the loop variable must be a plain name")
        self.runtime_for(node, rng)

    def static_for(self, node, rng) -> None:
        """Unroll: run the body once per value (a static_range, or the items of a tuple)."""
        values = rng if isinstance(rng, (tuple, list)) else [constexpr(k) for k in py.range(rng.start, rng.end,
                                                                                             rng.step)]
        for k in values:
            self._bind_static(node.target, k)
            self.loop_depth += 1
            try:
                self.visit_stmts(node.body)
            finally:
                self.loop_depth -= 1

    def _bind_static(self, target, value) -> None:
        """Bind an unrolled loop's target: compile-time values stay compile-time (no sanitizing)."""
        if isinstance(target, ast.Name):
            self.scope[target.id] = _wrap(value) if not isinstance(value, (tuple, list)) else value
        elif isinstance(target, (ast.Tuple, ast.List)):
            vals = unwrap(value)
            if not isinstance(vals, (tuple, list)) or len(vals) != len(target.elts):
                raise CompileTimeError(f"cannot unpack {value!r} into {len(target.elts)} names")
            for t, v in zip(target.elts, vals):
                self._bind_static(t, v)
        else:
            raise _Unsupported(f"unsupported loop target: {ast.unparse(target)}")

    def _bounds(self, rng):
        lb, ub, step = rng.start, rng.end, rng.step
        sv = unwrap(step)
        if isinstance(sv, int) and sv == 0:
            raise CompileTimeError("range() step must not be zero")
        negative = isinstance(sv, int) and sv < 0
        ts = [self.sem.to_tensor(v) for v in (lb, ub, step)]
        for t in ts:
            if t.type.is_block() or not t.type.scalar.is_int():
                raise CompileTimeError(f"loop bounds must be integer scalars, got {t.type}")
        ity = ts[0].type
        for t in ts[1:]:
            ity = self.sem.integer_promote(ity, t.type)
        if ity.bitwidth < 32:
            ity = T.i32
        if ity.is_int_unsigned():
            ity = T.i64 if ity.bitwidth == 64 else T.i32
        ts = [self.sem.cast(t, ity) for t in ts]
        if negative:
            # iterate k = 0, 1, ... over cdiv(lb - ub, -step) and compute iv = lb + k * step inside
            lbt, ubt, st = ts
            n = self.sem.floordiv(self.sem.sub(self.sem.add(self.sem.sub(lbt, ubt), -sv), 1), -sv)
            n = self.sem.maximum(n, self.sem.constant(0, ity))
            return self.sem.constant(0, ity), n, self.sem.constant(1, ity), (lbt, st)
        return ts[0], ts[1], ts[2], None

    def runtime_for(self, node, rng) -> None:
        lb, ub, step, negative = self._bounds(rng)
        before = dict(self.scope)
        carried = self._carried(node.body)
        inits = [leaf for _, flat in carried for leaf in flat.leaves]
        names = [h for n, flat in carried for h in leaf_names(n, flat)]
        body = Block([lb.type] + [v.type for v in inits], [node.target.id] + names)
        self.scope = dict(before)
        self._bind_carried(carried, body.args[1:])
        with self.b.at_end(body):
            iv = tensor(body.args[0], lb.type)
            if negative:
                iv = self.sem.add(negative[0], self.sem.mul(iv, negative[1]))
            self.scope[node.target.id] = iv
            self._visit_loop_body(node.body)
            yields = self._loop_yields(carried, before, node.body)
            self.b.create(Op.YIELD, [y.handle for y in yields])
        self.scope = before
        op = self.b.create(Op.FOR, [lb.handle, ub.handle, step.handle] + [v.handle for v in inits],
                           [v.type for v in inits], rng.attrs, regions=[Region([body])])
        self._bind_carried(carried, _drop_unchanged_iter_args(op, inits, names))

    def visit_While(self, node):
        if node.orelse:
            raise _Unsupported("while ... else is not supported")
        before = dict(self.scope)
        carried = self._carried(node.body)
        inits = [leaf for _, flat in carried for leaf in flat.leaves]
        names = [h for n, flat in carried for h in leaf_names(n, flat)]
        types = [v.type for v in inits]
        cond_blk = Block(types, names)
        self.scope = dict(before)
        self._bind_carried(carried, cond_blk.args)
        with self.b.at_end(cond_blk):
            cond = self.visit(node.test)
            if not isinstance(unwrap(cond), tensor):
                cond = self.sem.to_tensor(bool(unwrap(cond)))
            cond = self._scalar_cond(cond)
            self.b.create(Op.CONDITION, [cond.handle] + list(cond_blk.args))
        body = Block(types, names)
        self.scope = dict(before)
        self._bind_carried(carried, body.args)
        with self.b.at_end(body):
            self._visit_loop_body(node.body)
            yields = self._loop_yields(carried, before, node.body)
            self.b.create(Op.YIELD, [y.handle for y in yields])
        self.scope = before
        op = self.b.create(Op.WHILE, [v.handle for v in inits], types,
                           regions=[Region([cond_blk]), Region([body])])
        for r, hint in zip(op.results, names):
            r.name_hint = hint
        self._bind_carried(carried, op.results)

    def _visit_loop_body(self, stmts) -> None:
        self.loop_depth += 1
        try:
            self.visit_stmts(stmts)
        finally:
            self.loop_depth -= 1

    def _carried(self, body) -> list:
        """(name, Flat) of the names the loop body assigns that hold runtime values before the loop."""
        out = []
        for n in _assigned_names(body):
            if n in self.scope:
                flat = flatten(self.scope[n])
                if flat is not None:
                    out.append((n, flat))
        return out

    def _bind_carried(self, carried, values) -> None:
        i = 0
        for n, flat in carried:
            k = len(flat.leaves)
            self.scope[n] = flat.rebuild(list(values[i:i + k]))
            i += k

    def _loop_yields(self, carried, before, body_stmts) -> list:
        names = {n for n, _ in carried}
        for n in _assigned_names(body_stmts):
            if n in before and n not in names and not _same_static(self.scope.get(n), before[n]):
                raise CompileTimeError(f"cannot reassign constexpr {n} in the loop")
        out = []
        for n, init in carried:
            v = self.scope[n]
            if isinstance(unwrap(v), (bool, int, float)):
                v = self.sem.to_tensor(unwrap(v))
            flat = flatten(v)
            if flat is None:
                raise CompileTimeError(f"Loop-carried variable {n} has initial type {init.describe} but is "
                                       f"re-assigned to a compile-time value {unwrap(v)!r} in loop!")
            if flat.signature != init.signature:
                raise CompileTimeError(f"Loop-carried variable {n} has initial type {init.describe} but is "
                                       f"re-assigned to {flat.describe} in loop! Please make sure that the type "
                                       f"stays consistent.")
            out.extend(flat.leaves)
        return out

    # --- expressions --------------------------------------------------------------------------
    def visit_Constant(self, node):
        return constexpr(node.value)

    def visit_Name(self, node):
        if not isinstance(node.ctx, ast.Load):
            raise _Unsupported(f"unsupported use of name {node.id}")
        return self.lookup(node.id, node)

    def lookup(self, name: str, node):
        if name in self.scope:
            return self.scope[name]
        for table in (self.src.closure, self.src.globals):
            if name in table:
                return _global_value(table[name])
        if name in _ALLOWED_BUILTINS:
            return _ALLOWED_BUILTINS[name]
        if hasattr(py, name):
            raise CompileTimeError(f"unsupported function '{name}' in a @jit function")
        raise NameError(f"'{name}' is not defined")

    def visit_Attribute(self, node):
        base = self.visit(node.value)
        obj = unwrap(base)
        if isinstance(obj, tensor) and node.attr in ("shape",):
            return obj.shape
        if isinstance(base, constexpr) and node.attr == "type":      # a compile-time value's type is its value
            return base.type
        if isinstance(base, constexpr) and node.attr == "value":     # the value itself, as in Triton (`DT.value`)
            return _wrap(base.value)
        if is_aggregate(obj):
            return self.aggregate_attribute(obj, node.attr)
        try:
            return _wrap(getattr(obj, node.attr))
        except AttributeError:
            if isinstance(obj, types.ModuleType):
                raise AttributeError(f"'{ast.unparse(node.value)}' has no attribute '{node.attr}'"
                                     f"{_libdevice_hint(obj, node.attr)}") from None
            raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{node.attr}'") from None

    def aggregate_attribute(self, obj, name: str):
        """A field of an aggregate, or one of its methods (a @jit one bound to the instance)."""
        cls = type(obj)
        if name in cls.__aggregate_fields__:
            return _wrap(obj.__dict__[name])
        member = inspect.getattr_static(cls, name, None)
        if member is None:
            raise AttributeError(f"{cls.__name__} has no field or method '{name}' (its fields: "
                                 f"{', '.join(cls.__aggregate_fields__) or 'none'})")
        if is_jit_function(member):
            return BoundJitMethod(member, obj)
        return _wrap(getattr(obj, name))

    def call_aggregate_method(self, method, args, kwargs):
        """A plain Python method (or function) of an aggregate class, run at compile time; it gets the
        frontend's semantic as `_semantic` if it asks for it (as Triton's builtins do)."""
        try:
            params = inspect.signature(method).parameters
        except (TypeError, ValueError):
            params = {}
        extra = {"_semantic": self.sem} if "_semantic" in params else {}
        return _wrap(method(*args, **extra, **kwargs))

    def construct_aggregate(self, cls, args, kwargs):
        """`Cls(...)` in a kernel: the constructor runs now; a Python number it stored in a `tl.tensor`
        field becomes a runtime scalar, as assigning a number to a name does."""
        from ..language.core import tensor as tensor_cls
        instance = cls(*args, _semantic=self.sem, **kwargs)
        for name, ann in cls.__aggregate_annotations__.items():
            v = instance.__dict__[name]
            if ann is tensor_cls and isinstance(v, (bool, int, float)):
                object.__setattr__(instance, name, self.sem.to_tensor(v))
        return instance

    def aggregate_operator(self, obj, dunder: str, args):
        """`agg[i]`, `agg + x`: the class's dunder method, a @jit one inlined; None if it has none."""
        member = inspect.getattr_static(type(obj), dunder, None)
        if member is None:
            return None
        if is_jit_function(member):
            return self.call_jit(member, [obj] + list(args), {})
        return self.call_aggregate_method(getattr(obj, dunder), args, {})

    def visit_BinOp(self, node):
        if type(node.op) not in _BINOPS:
            raise _Unsupported(f"unsupported binary operator {type(node.op).__name__}")
        return self.binop(type(node.op), self.visit(node.left), self.visit(node.right))

    def binop(self, op_type, lhs, rhs):
        fn = _BINOPS[op_type]
        if op_type is ast.Pow and (isinstance(unwrap(lhs), tensor) or isinstance(unwrap(rhs), tensor)):
            raise _Unsupported("** is only supported between compile-time values")
        name = fn.__name__.strip("_")
        for obj, other, dunder in ((lhs, rhs, f"__{name}__"), (rhs, lhs, f"__r{name}__")):
            if is_aggregate(unwrap(obj)):
                result = self.aggregate_operator(unwrap(obj), dunder, [other])
                if result is not None:
                    return result
        return _wrap(fn(lhs, rhs))

    def visit_UnaryOp(self, node):
        v = self.visit(node.operand)
        u = unwrap(v)
        if isinstance(node.op, ast.Not):
            return self.sem.logical_not(u) if isinstance(u, tensor) else constexpr(not u)
        if isinstance(node.op, ast.USub):
            return _wrap(-v)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Invert):
            return _wrap(~v)
        raise _Unsupported(f"unsupported unary operator {type(node.op).__name__}")

    def visit_BoolOp(self, node):
        is_and = isinstance(node.op, ast.And)
        result = self.visit(node.values[0])
        for expr in node.values[1:]:
            if not isinstance(unwrap(result), tensor):
                if bool(unwrap(result)) != is_and:      # short-circuit like Python
                    return result
                result = self.visit(expr)
                continue
            rhs = self.visit(expr)
            result = self.sem.logical_and(result, rhs) if is_and else self.sem.logical_or(result, rhs)
        return result

    def visit_Compare(self, node):
        left = self.visit(node.left)
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            right = self.visit(right_node)
            if isinstance(op, (ast.Is, ast.IsNot)):
                same = unwrap(left) is unwrap(right)
                r = constexpr(same if isinstance(op, ast.Is) else not same)
            elif isinstance(op, (ast.In, ast.NotIn)):
                inside = unwrap(left) in unwrap(right)
                r = constexpr(inside if isinstance(op, ast.In) else not inside)
            else:
                r = _wrap(_CMPOPS[type(op)](left, right))
            if result is None:
                result = r
            elif isinstance(unwrap(result), tensor) or isinstance(unwrap(r), tensor):
                result = self.sem.logical_and(result, r)
            else:
                result = constexpr(bool(unwrap(result)) and bool(unwrap(r)))
            left = right
        return result

    def visit_ListComp(self, node):
        """`[f(v) for v in values if c]` over compile-time sequences (a tuple, a static range): unrolled
        at compile time, as Triton does; the names it binds do not leak out of it."""
        return self._comprehension(node)

    def visit_GeneratorExp(self, node):
        return tuple(self._comprehension(node))

    def _comprehension(self, node) -> list:
        out: list = []
        saved = dict(self.scope)
        try:
            self._comprehend(node.elt, node.generators, out)
        finally:
            self.scope = saved
        return out

    def _comprehend(self, elt, generators, out: list) -> None:
        gen, rest = generators[0], generators[1:]
        if gen.is_async:
            raise _Unsupported("async comprehensions are not supported")
        for k in self._static_items(gen.iter):
            self._bind_static(gen.target, k)
            conds = [unwrap(self.visit(c)) for c in gen.ifs]
            if any(isinstance(c, tensor) for c in conds):
                raise CompileTimeError("a comprehension's `if` must be a compile-time condition, not a tensor")
            if all(conds):
                self._comprehend(elt, rest, out) if rest else out.append(self.visit(elt))

    def _static_items(self, it) -> list:
        """The values a comprehension iterates: a tuple's or list's items, or a range of constexprs."""
        if isinstance(it, ast.Call):
            fn = unwrap(self.visit(it.func))
            if fn is tlb.static_range or fn is py.range or fn is tlb.range:
                args = [unwrap(self.visit(a)) for a in it.args]
                if not all(isinstance(a, int) for a in args):
                    raise CompileTimeError("a comprehension over a range needs compile-time bounds "
                                           "(a runtime loop cannot build a tuple)")
                return [constexpr(k) for k in py.range(*args)]
        seq = unwrap(self.visit(it))
        if isinstance(seq, (tuple, list)):
            return list(seq)
        raise _Unsupported("a comprehension iterates a tuple, a list or a tl.static_range")

    def visit_Tuple(self, node):
        return tuple(self.visit(e) for e in node.elts)

    def visit_List(self, node):
        return [self.visit(e) for e in node.elts]

    def visit_Slice(self, node):
        parts = [None if p is None else unwrap(self.visit(p)) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def visit_Subscript(self, node):
        base = self.visit(node.value)
        idx = self.visit(node.slice)
        obj = unwrap(base)
        if isinstance(obj, tensor):
            return obj[idx]
        if is_aggregate(obj):
            result = self.aggregate_operator(obj, "__getitem__", [idx])
            if result is None:
                raise TypeError(f"'{type(obj).__name__}' object is not subscriptable")
            return result
        i = unwrap(idx)
        if isinstance(i, tensor):
            raise CompileTimeError("tuples and lists can only be indexed by compile-time values")
        return _wrap(obj[i])

    def visit_JoinedStr(self, node):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                val = unwrap(self.visit(v.value))
                if isinstance(val, tensor):
                    raise CompileTimeError("f-strings in kernels can only format compile-time values")
                spec = unwrap(self.visit(v.format_spec)) if v.format_spec is not None else ""
                parts.append(format(val, spec))
        return constexpr("".join(parts))

    def visit_Call(self, node):
        fn = self.visit(node.func)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(unwrap(self.visit(a.value)))
            else:
                args.append(self.visit(a))
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                kwargs.update(unwrap(self.visit(kw.value)))
            else:
                kwargs[kw.arg] = self.visit(kw.value)
        return self.call_function(fn, args, kwargs)

    def call_function(self, fn, args, kwargs):
        fn = unwrap(fn)
        if is_jit_function(fn):
            return self.call_jit(fn, args, kwargs)
        if isinstance(fn, BoundJitMethod):
            return self.call_jit(fn.fn, [fn.instance] + list(args), kwargs)
        if isinstance(fn, type) and getattr(fn, "__triton_aggregate__", False):
            return self.construct_aggregate(fn, args, kwargs)
        if isinstance(fn, type) and issubclass(fn, tuple) and hasattr(fn, "_fields"):
            return fn(*args, **kwargs)          # a NamedTuple of kernel values, as Triton allows
        if is_builtin(fn) or getattr(getattr(fn, "__self__", None), "__class__", None) in (tensor, tensor_descriptor):
            return _wrap(fn(*args, **kwargs))
        if getattr(fn, "__triton_constexpr_function__", False):
            return _wrap(fn(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()}))
        if getattr(fn, "__triton_aggregate_method__", False):
            return self.call_aggregate_method(fn, args, kwargs)
        if fn in _PY_FUNCTIONS:
            return _PY_FUNCTIONS[fn](self, args, kwargs)
        if fn is constexpr:
            return constexpr(*args)
        if isinstance(getattr(fn, "__self__", None), T.Type) or fn in _ALLOWED_CLASSES:
            return _wrap(fn(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()}))
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
        plain_args = [unwrap(a) for a in args]
        plain_kwargs = {k: unwrap(v) for k, v in kwargs.items()}
        if callable(fn) and not any(isinstance(a, tensor) for a in [*plain_args, *plain_kwargs.values()]):
            # any other Python function (math.ceil, a user's helper) runs now, on compile-time values, as
            # Triton's code generator calls it
            return _wrap(fn(*plain_args, **plain_kwargs))
        if callable(fn):
            raise CompileTimeError(f"'{name}' is a plain Python function called with a tensor: it runs at compile "
                                   f"time, on compile-time values only; decorate it with @triton.jit to call it "
                                   f"on tensors")
        raise CompileTimeError(f"'{name}' is not callable")

    def call_jit(self, jitfn, args, kwargs):
        if self.depth >= MAX_INLINE_DEPTH:
            raise CompileTimeError(f"@jit calls nested deeper than {MAX_INLINE_DEPTH} (recursion is not supported)")
        src = jitfn.source
        scope = bind_arguments(src, args, kwargs)
        gen = AstToIR(src, self.sem, scope, self.depth + 1)
        # The callee is inlined: its own `return` ends the inlined body, wherever the call is (Triton allows
        # helpers that return to be called in loops; only a return inside the callee's own loops is refused).
        gen.loop_depth = 0
        try:
            gen.visit_stmts(src.fndef.body)
        except CompilationError as e:
            if e.file is None or type(e) is not CompilationError or _in_library(self.src.file):
                raise
            if not _in_library(src.file):
                # an error in a user's helper is reported at the call (the arguments may be its cause, a
                # dtype passed where a constexpr was meant), with where in the helper it arose, as Triton does
                raise _InHelper(e, e.where(f"in {src.fndef.name}()") + (f"\n{e.note}" if e.note else "")) from e
            # an error inside one of the language's own @jit functions (tl.dot_scaled's decoding, ...) is
            # the caller's: reported at the user's call, naming where in the library it arose
            raise ValueError(f"{e.error_message} (in {src.fndef.name}, {os.path.relpath(e.file, _PACKAGE_ROOT)}:"
                             f"{e.line})") from None
        return gen.scope.get(RET, constexpr(None))


# --- helpers --------------------------------------------------------------------------------------

def _drop_unchanged_iter_args(op, inits, names) -> list:
    """Rebuild scf.for without the iter_args its body yields back unchanged; returns one value per
    original iter_arg (the loop result, or the init value where the iter_arg was dropped)."""
    body, term = op.body, op.body.terminator
    keep = [i for i in range(len(inits)) if term.operands[i] is not body.args[1 + i]]
    for r, hint in zip(op.results, names):
        r.name_hint = hint
    if len(keep) == len(inits):
        return list(op.results)
    for i in range(len(inits)):
        if i not in keep:
            body.args[1 + i].replace_all_uses_with(inits[i].handle)
    term.set_operands([term.operands[i] for i in keep])
    for i in reversed(range(len(inits))):
        if i not in keep:
            body.erase_arg(1 + i)
    new = Operation(Op.FOR, list(op.operands[:3]) + [op.operands[3 + i] for i in keep],
                    [op.results[i].type for i in keep], dict(op.attrs), regions=[op.regions.pop()], loc=op.loc)
    op.parent.insert_before(op, new)
    op.erase()
    values = [v.handle for v in inits]
    for j, i in enumerate(keep):
        new.results[j].name_hint = names[i]
        values[i] = new.results[j]
    return values


def _libdevice_hint(module, name: str) -> str:
    """Where Triton 3 keeps a function a kernel looked for in tl.math (Triton 2's asin, erfinv, ...)."""
    from ..language import math as tl_math
    from ..language.extra import libdevice
    if module is tl_math and hasattr(libdevice, name):
        return (f" (Triton 3 keeps {name} in libdevice: `from compiler.language.extra import libdevice`, "
                f"as `triton.language.extra.libdevice`, then `libdevice.{name}(...)`)")
    return ""


_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_LIBRARY = os.path.join(_PACKAGE_ROOT, "compiler", "language") + os.sep


def _in_library(file: str | None) -> bool:
    """Whether source is the language's own (compiler/language/), not a user's kernel or helper."""
    return bool(file) and os.path.abspath(file).startswith(_LIBRARY)


def _message(e: Exception) -> str:
    if isinstance(e, (TypeError, ValueError, CompileTimeError, NameError, AttributeError, IndexError, KeyError,
                      AssertionError, ZeroDivisionError)):
        msg = str(e) or type(e).__name__
        return msg if not isinstance(e, (NameError, ZeroDivisionError, IndexError, KeyError)) \
            else f"{type(e).__name__}: {msg}"
    return f"{type(e).__name__}: {e}"


def _static_truth(cond) -> bool:
    v = unwrap(cond)
    if isinstance(v, tensor):
        raise CompileTimeError("expected a compile-time condition")
    return bool(v)


def _same_static(a, b) -> bool:
    """Whether two values are the same thing (tensors: the same IR value; tuples: element-wise)."""
    ua, ub = unwrap(a), unwrap(b)
    if isinstance(ua, (tuple, list)) or isinstance(ub, (tuple, list)):
        return isinstance(ua, (tuple, list)) and isinstance(ub, (tuple, list)) and len(ua) == len(ub) and \
            all(_same_static(x, y) for x, y in zip(ua, ub))
    if isinstance(ua, tensor) or isinstance(ub, tensor):
        return isinstance(ua, tensor) and isinstance(ub, tensor) and ua.handle is ub.handle
    if not isinstance(ua, _PY_SCALARS) or not isinstance(ub, _PY_SCALARS):
        return ua is ub or (type(ua) is type(ub) and isinstance(ua, T.Type) and ua == ub)
    try:
        return type(ua) is type(ub) and bool(ua == ub)
    except Exception:
        return ua is ub


def _display(name: str) -> str:
    return "the return value" if name == RET else name


def _ordered_union(*dicts) -> list:
    seen, out = set(), []
    for d in dicts:
        for k in d:
            if k not in seen:
                seen.add(k)
                out.append(k)
    return out


def _contains_return(node) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Return):
            return True
    return False


def _assigned_names(stmts) -> list:
    out = []

    def add_target(t):
        if isinstance(t, ast.Name):
            if t.id not in out:
                out.append(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                add_target(e)

    for stmt in stmts:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    add_target(t)
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
                add_target(n.target)
            elif isinstance(n, ast.NamedExpr):
                add_target(n.target)
    return out


def _global_value(v):
    if isinstance(v, constexpr):
        return v
    if isinstance(v, _PY_SCALARS):
        return constexpr(v)
    return v


def _bare(e: Exception) -> Exception:
    """The semantic layer's error without the compiler's frames: kept as the CompilationError's
    __cause__ (as Triton does), so `exc.__cause__` holds the plain message."""
    e.__context__ = None
    return e.with_traceback(None)


def bind_arguments(src: FunctionSource, args, kwargs) -> dict:
    """Map a called @jit function's parameters to the values it is called with. As in Triton, the
    arguments decide what is compile-time: a `tl.constexpr` annotation makes a Python value a
    constexpr, and a runtime value given to such a parameter stays a runtime value (the attention
    tutorial passes its `offs_m` block and `N_CTX` to parameters annotated `tl.constexpr`)."""
    params = src.params
    scope = {}
    if src.varargs:                       # `*args`: the positional arguments past the named ones, a tuple
        scope[src.varargs] = tuple(args[len(params):])
        args = args[:len(params)]
    if len(args) > len(params):
        raise CompileTimeError(f"{src.name}() takes {len(params)} arguments but {len(args)} were given")
    names = [p.name for p in params]
    for k in kwargs:
        if k not in names:
            raise CompileTimeError(f"{src.name}() got an unexpected keyword argument '{k}'")
    for i, p in enumerate(params):
        if i < len(args):
            if p.name in kwargs:
                raise CompileTimeError(f"{src.name}() got multiple values for argument '{p.name}'")
            v = args[i]
        elif p.name in kwargs:
            v = kwargs[p.name]
        elif p.has_default:
            v = constexpr(p.default) if not isinstance(p.default, constexpr) else p.default
        else:
            raise CompileTimeError(f"{src.name}() missing required argument '{p.name}'")
        if p.is_constexpr and not isinstance(unwrap(v), tensor):
            v = constexpr(v)
        elif isinstance(v, _PY_SCALARS) or isinstance(v, T.Type):
            v = constexpr(v)       # a dtype too: Triton's callee gets every non-tensor argument as a constexpr
        scope[p.name] = v
    return scope


# --- Python builtins usable in kernels -------------------------------------------------------------

def _py_minmax(pick_tensor, pick_py):
    def call(gen, args, kwargs):
        if kwargs:
            raise CompileTimeError("min/max keyword arguments are not supported in kernels")
        vals = list(args[0]) if len(args) == 1 else list(args)
        if not any(isinstance(unwrap(v), tensor) for v in vals):
            name = pick_py.__name__
            for v in map(unwrap, vals):        # Triton 3.9 refuses what Python and IEEE order differently
                if isinstance(v, float) and v != v:
                    raise CompileTimeError(f"constexpr {name} does not support NaN values")
                if isinstance(v, float) and v == 0.0 and math.copysign(1.0, v) < 0:
                    raise CompileTimeError(f"constexpr {name} does not support negative zero")
        result = vals[0]
        for v in vals[1:]:
            if isinstance(unwrap(result), tensor) or isinstance(unwrap(v), tensor):
                result = pick_tensor(gen.sem)(result, v)
            else:
                result = constexpr(pick_py(unwrap(result), unwrap(v)))
        return result
    return call


def _py_print(gen, args, kwargs):
    """Python's print in a kernel is tl.device_print, as Triton's code generator makes it: the first
    argument is the prefix, and every program prints at run time."""
    tlb.device_print(*args, **kwargs)
    return constexpr(None)


def _py_static(fn):
    def call(gen, args, kwargs):
        uargs = [unwrap(a) for a in args]
        if any(isinstance(a, tensor) for a in uargs) and fn not in (isinstance, getattr, hasattr, len):
            raise CompileTimeError(f"{fn.__name__}() needs compile-time arguments in a @jit function")
        if fn is len and isinstance(uargs[0], tensor):
            return constexpr(uargs[0].type.shape[0] if uargs[0].type.shape else 0)
        if fn is getattr:
            return _wrap(getattr(uargs[0], *uargs[1:]))
        return _wrap(fn(*uargs, **{k: unwrap(v) for k, v in kwargs.items()}))
    return call


def _py_abs(gen, args, kwargs):
    v = unwrap(args[0])
    return gen.sem.abs(v) if isinstance(v, tensor) else constexpr(abs(v))


_PY_FUNCTIONS = {
    py.min: _py_minmax(lambda s: s.minimum, py.min),
    py.max: _py_minmax(lambda s: s.maximum, py.max),
    py.print: _py_print,
    py.abs: _py_abs,
    **{f: _py_static(f) for f in (py.len, py.int, py.float, py.bool, py.isinstance, py.getattr, py.hasattr,
                                  py.tuple, py.list, py.str, py.zip, py.enumerate, py.reversed, py.sorted)},
}
_ALLOWED_BUILTINS = {f.__name__: f for f in _PY_FUNCTIONS} | {"range": py.range, "None": None, "True": True,
                                                             "False": False}
_ALLOWED_CLASSES = (constexpr, constexpr_type)
