"""The Python source of a @jit function: its AST, parameters and where its lines live on disk."""
from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import weakref
from dataclasses import dataclass

from ..ir.core import Loc


@dataclass
class Param:
    name: str
    is_constexpr: bool
    default: object = inspect.Parameter.empty
    annotation: object = None       # a dtype annotation (e.g. `n: tl.int64`) forces the argument's type

    @property
    def has_default(self) -> bool:
        return self.default is not inspect.Parameter.empty


def _is_constexpr_annotation(ann) -> bool:
    if ann is None or ann is inspect.Parameter.empty:
        return False
    if isinstance(ann, str):
        return ann.split(".")[-1] == "constexpr"
    from ..language.core import constexpr
    return ann is constexpr or getattr(ann, "__name__", "") == "constexpr"


def _dtype_annotation(ann):
    """The scalar dtype an annotation forces on its argument, or None. Triton reads a dtype given as an
    object (`n: tl.int64`) or as text, as `from __future__ import annotations` leaves every annotation
    ("tl.int64", "uint8", "fp16"); text naming no dtype ("torch.Tensor", "tl.constexpr") forces nothing.
    Python's own int/float/bool (which Triton reads as i32/fp32/i1) are left to the value's type."""
    from ..ir.types import DType, PointerType, parse_type_name
    if isinstance(ann, str):
        name = ann.strip()
        name = name.removeprefix("tl.")   # only that prefix, as Triton (runtime/jit.py _normalize_ty)
        if name in ("int", "float", "bool"):
            return None
        from .. import language
        found = getattr(language, name, None)
        if isinstance(found, DType):
            ann = found
        else:
            try:
                ann = parse_type_name(name)
            except ValueError:
                return None
    return ann if isinstance(ann, DType) and not isinstance(ann, PointerType) else None


# While the runtime compiles a kernel, the list of (globals table, name, value) that its frontend read,
# the kernel's and its @jit callees' alike: module globals are compiled in (a Python number becomes a
# constexpr), so the runtime keys its cache on their values and recompiles when one changes.
GLOBALS_READ: list | None = None


class ReadGlobals:
    """A function's `__globals__` that notes every name the frontend reads from it in GLOBALS_READ."""

    def __init__(self, table: dict):
        self.table = table

    def __contains__(self, name: str) -> bool:
        return name in self.table

    def __getitem__(self, name: str):
        value = self.table[name]
        if GLOBALS_READ is not None:
            GLOBALS_READ.append((self.table, name, value))
        return value


# Source lines of functions that exec() made from a string (inspect cannot read those), keyed by the
# function (code objects compare by value: two exec'd copies of one template would share an entry)
_EXEC_SOURCES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def remember_exec_source(fn) -> None:
    """Keep the source of `fn` if exec() of a string defined it (as test generators that patch a
    kernel template do): at decoration time the string is still in the frame that called exec(),
    as a local variable or a constant. Called by @jit; does nothing for functions in files."""
    code = getattr(fn, "__code__", None)
    if code is None or not code.co_filename.startswith("<") or fn in _EXEC_SOURCES:
        return
    try:
        inspect.getsourcelines(fn)
        return
    except (OSError, TypeError):
        pass
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename != code.co_filename:
        frame = frame.f_back
    while frame is not None and frame.f_back is not None and frame.f_back.f_code.co_filename == code.co_filename:
        frame = frame.f_back
    caller = frame.f_back if frame is not None else None
    if caller is None:
        return
    texts = [v for v in caller.f_locals.values() if isinstance(v, str)]
    texts += [c for c in caller.f_code.co_consts if isinstance(c, str)]
    for text in texts:
        found = _def_lines(text, fn.__name__, code.co_firstlineno)
        if found is not None:
            _EXEC_SOURCES[fn] = found
            return


def _def_lines(text: str, name: str, first_line: int):
    """(lines, first line number) of the `def name` in `text` whose decorators start at `first_line`."""
    if f"def {name}" not in text:
        return None
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if start == first_line:
                lines = text.splitlines(keepends=True)[start - 1:node.end_lineno]
                return lines, start
    return None


def _source_lines(fn):
    try:
        return inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        found = _EXEC_SOURCES.get(fn)
        if found is None:
            raise ValueError(f"cannot read the source of {fn.__name__}: {e}") from None
        return found


class FunctionSource:
    """Parses a Python function once; gives the FunctionDef node and source locations of its nodes."""

    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__
        lines, start = _source_lines(fn)
        self.file = inspect.getsourcefile(fn) or fn.__code__.co_filename
        self.source_lines = lines
        self.first_line = start
        first = lines[0]
        self.col_offset = len(first) - len(first.lstrip())
        tree = ast.parse(textwrap.dedent("".join(lines)))
        defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if not defs:
            raise ValueError(f"{fn.__name__} is not a function definition")
        self.fndef: ast.FunctionDef = defs[0]
        self.source = "".join(lines)
        self.globals = ReadGlobals(fn.__globals__)
        self.closure = {}
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass
        sig = inspect.signature(fn)
        anns = getattr(fn, "__annotations__", {})
        self.params: list[Param] = []
        self.varargs: str | None = None     # a helper's `*args`: the extra positional arguments, as a tuple
        for p in sig.parameters.values():
            if p.kind == p.VAR_KEYWORD:
                raise ValueError(f"@jit function {fn.__name__} cannot take **kwargs")
            if p.kind == p.VAR_POSITIONAL:
                self.varargs = p.name
                continue
            ann = anns.get(p.name, p.annotation)
            self.params.append(Param(p.name, _is_constexpr_annotation(ann), p.default, _dtype_annotation(ann)))

    def loc(self, node: ast.AST) -> Loc:
        line = getattr(node, "lineno", 1) + self.first_line - 1
        col = getattr(node, "col_offset", 0) + self.col_offset + 1
        return Loc(self.file, line, col)

    def line_text(self, node: ast.AST) -> str:
        i = getattr(node, "lineno", 1) - 1
        return self.source_lines[i] if 0 <= i < len(self.source_lines) else ""
