"""The IR's data structures: values with def-use lists, operations, blocks and regions.

One generic `Operation` class serves every op; what an op means is declared once in `ops.py`.
Control flow is structured (MLIR scf style): an op owns regions, a region owns one block, a block
owns its arguments and a list of ops. Values know their users (`value.uses`) and their definer
(`value.owner`: the op of a result, the block of a block argument), which is what rewrites need.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterator, Sequence

from .ops import OP_DEFS
from .types import Type


@dataclass(frozen=True)
class Loc:
    """A source location (1-based line, 1-based column) for error messages in any later stage."""
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


_SERIALS = itertools.count()


@dataclass(eq=False)
class Use:
    """Operand `index` of `op` reads the value this use hangs on."""
    op: "Operation"
    index: int


class Value:
    """An SSA value: the result of an op or an argument of a block. `serial` counts values in the
    order they were made: a deterministic order where passes need one (ids change from run to run)."""
    __slots__ = ("type", "uses", "name_hint", "serial")

    def __init__(self, type: Type, name_hint: str | None = None):
        self.type = type
        self.uses: list[Use] = []
        self.name_hint = name_hint
        self.serial = next(_SERIALS)

    @property
    def owner(self):  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def users(self) -> list["Operation"]:
        """The ops that read this value (an op reading it twice appears twice)."""
        return [u.op for u in self.uses]

    def replace_all_uses_with(self, new: "Value") -> None:
        if new is self:
            return
        for use in list(self.uses):
            use.op.set_operand(use.index, new)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name_hint or ''}: {self.type.ir}>"


class OpResult(Value):
    __slots__ = ("op", "index")

    def __init__(self, type: Type, op: "Operation", index: int):
        super().__init__(type)
        self.op = op
        self.index = index

    @property
    def owner(self) -> "Operation":
        return self.op


class BlockArgument(Value):
    __slots__ = ("block", "index")

    def __init__(self, type: Type, block: "Block", index: int, name_hint: str | None = None):
        super().__init__(type, name_hint)
        self.block = block
        self.index = index

    @property
    def owner(self) -> "Block":
        return self.block


class Operation:
    """An op: name, operands, results, attributes, regions and a source location."""

    def __init__(self, name: str, operands: Sequence[Value] = (), result_types: Sequence[Type] = (),
                 attrs: dict | None = None, regions: Sequence["Region"] = (), loc: Loc | None = None):
        self.name = getattr(name, "value", name)   # plain str, also for Op members
        self._operands: list[Value] = []
        self.results: list[OpResult] = [OpResult(t, self, i) for i, t in enumerate(result_types)]
        self.attrs: dict = dict(attrs or {})
        self.regions: list[Region] = []
        self.loc = loc
        self.parent: Block | None = None
        for v in operands:
            self._append_operand(v)
        for r in regions:
            self.add_region(r)

    # --- operands ---
    @property
    def operands(self) -> tuple[Value, ...]:
        return tuple(self._operands)

    def _append_operand(self, v: Value) -> None:
        if not isinstance(v, Value):
            raise TypeError(f"operand of {self.name} must be an IR Value, got {v!r}")
        v.uses.append(Use(self, len(self._operands)))
        self._operands.append(v)

    def set_operand(self, index: int, new: Value) -> None:
        old = self._operands[index]
        old.uses = [u for u in old.uses if not (u.op is self and u.index == index)]
        self._operands[index] = new
        new.uses.append(Use(self, index))

    def set_operands(self, values: Sequence[Value]) -> None:
        self._drop_operand_uses()
        self._operands = []
        for v in values:
            self._append_operand(v)

    def _drop_operand_uses(self) -> None:
        for i, v in enumerate(self._operands):
            v.uses = [u for u in v.uses if not (u.op is self and u.index == i)]

    def __getattr__(self, attr: str):
        """The operands by the names the op's declaration gives them: `load.mask` (None when the
        optional operand is absent), `for_.inits` (a tuple for a variadic)."""
        d = OP_DEFS.get(self.__dict__.get("name")) if not attr.startswith("_") else None
        if d is None or attr not in d.operand_kinds:
            raise AttributeError(f"{self.__dict__.get('name', 'an op')} has no operand or attribute {attr!r}")
        return d.operand_value(self, attr)

    # --- results ---
    @property
    def result(self) -> OpResult:
        if len(self.results) != 1:
            raise ValueError(f"{self.name} has {len(self.results)} results, not one")
        return self.results[0]

    def replace_all_uses_with(self, new) -> None:
        """Redirect every use of this op's results to `new` (an op or a sequence of values)."""
        values = new.results if isinstance(new, Operation) else list(new)
        if len(values) != len(self.results):
            raise ValueError(f"{self.name}: {len(self.results)} results replaced by {len(values)} values")
        for old, v in zip(self.results, values):
            old.replace_all_uses_with(v)

    # --- regions ---
    def add_region(self, region: "Region") -> "Region":
        region.parent = self
        self.regions.append(region)
        return region

    @property
    def body(self) -> "Block":
        """The single block of the op's first region (for.body, func.body, ...)."""
        return self.regions[0].block

    @property
    def parent_op(self) -> "Operation | None":
        blk = self.parent
        if blk is None or blk.parent is None:
            return None
        return blk.parent.parent

    # --- traversal and mutation ---
    def walk(self, post_order: bool = False) -> Iterator["Operation"]:
        """Every op nested in this one, this one included (pre-order unless asked otherwise).

        Safe to erase the op just yielded during a post-order walk."""
        if not post_order:
            yield self
        for region in list(self.regions):
            for block in list(region.blocks):
                for op in list(block.ops):
                    yield from op.walk(post_order)
        if post_order:
            yield self

    def erase(self) -> None:
        """Remove this op (and everything nested in it) from its block; its results must be unused."""
        for r in self.results:
            external = [u for u in r.uses if not is_inside(u.op, self)]
            if external:
                raise ValueError(f"cannot erase {self.name}: result still used by {external[0].op.name}")
        for op in self.walk(post_order=True):
            op._drop_operand_uses()
        if self.parent is not None:
            self.parent.ops.remove(self)
            self.parent = None

    def detach(self) -> "Operation":
        if self.parent is not None:
            self.parent.ops.remove(self)
            self.parent = None
        return self

    def move_before(self, anchor: "Operation") -> None:
        self.detach()
        anchor.parent.insert_before(anchor, self)

    def clone(self, mapping: dict | None = None) -> "Operation":
        """A deep copy of this op and everything nested in it. Operands defined outside are looked up
        in `mapping` (old value -> new value; kept as they are when absent), which the copy extends
        with its own results and block arguments."""
        mapping = {} if mapping is None else mapping
        new = Operation.__new__(type(self))
        Operation.__init__(new, self.name, [mapping.get(v, v) for v in self.operands],
                           [r.type for r in self.results], _copy_attrs(self.attrs), loc=self.loc)
        for old, r in zip(self.results, new.results):
            r.name_hint = old.name_hint
            mapping[old] = r
        for region in self.regions:
            blocks = []
            for blk in region.blocks:
                copy = Block([a.type for a in blk.args], [a.name_hint for a in blk.args])
                mapping.update(zip(blk.args, copy.args))
                for op in blk.ops:
                    copy.append(op.clone(mapping))
                blocks.append(copy)
            new.add_region(Region(blocks))
        return new

    @property
    def opdef(self):
        return OP_DEFS[self.name]

    def __repr__(self) -> str:
        from .printer import print_op
        return print_op(self).rstrip()


def _copy_attrs(value):
    """Attribute values are plain data: copy lists and dicts so that a clone can change its own."""
    if isinstance(value, dict):
        return {k: _copy_attrs(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_attrs(v) for v in value]
    return value


def is_inside(op: Operation, ancestor: Operation) -> bool:
    """Whether op is `ancestor` or nested in one of its regions."""
    while op is not None:
        if op is ancestor:
            return True
        op = op.parent_op
    return False


class Block:
    """A list of ops with typed arguments; the last op of a region's block is its terminator."""

    def __init__(self, arg_types: Sequence[Type] = (), arg_names: Sequence[str | None] = ()):
        self.args: list[BlockArgument] = []
        self.ops: list[Operation] = []
        self.parent: Region | None = None
        names = list(arg_names) + [None] * (len(arg_types) - len(arg_names))
        for t, n in zip(arg_types, names):
            self.add_arg(t, n)

    def add_arg(self, type: Type, name: str | None = None) -> BlockArgument:
        arg = BlockArgument(type, self, len(self.args), name)
        self.args.append(arg)
        return arg

    def erase_arg(self, index: int) -> None:
        arg = self.args[index]
        if arg.uses:
            raise ValueError(f"cannot erase block argument {index}: it still has uses")
        del self.args[index]
        for i, a in enumerate(self.args):
            a.index = i

    def append(self, op: Operation) -> Operation:
        op.parent = self
        self.ops.append(op)
        return op

    def insert(self, index: int, op: Operation) -> Operation:
        op.parent = self
        self.ops.insert(index, op)
        return op

    def insert_before(self, anchor: Operation, op: Operation) -> Operation:
        return self.insert(self.ops.index(anchor), op)

    @property
    def terminator(self) -> Operation | None:
        return self.ops[-1] if self.ops else None

    @property
    def parent_op(self) -> Operation | None:
        return self.parent.parent if self.parent else None

    def __iter__(self):
        return iter(list(self.ops))


class Region:
    """The body of a structured op; holds exactly one block in this IR."""

    def __init__(self, blocks: Sequence[Block] = ()):
        self.blocks: list[Block] = []
        self.parent: Operation | None = None
        for b in blocks:
            self.add_block(b)

    def add_block(self, block: Block) -> Block:
        block.parent = self
        self.blocks.append(block)
        return block

    @property
    def block(self) -> Block:
        return self.blocks[0]


class Module(Operation):
    """The top-level op (`builtin.module`): one region holding `tt.func` ops."""

    def __init__(self, loc: Loc | None = None):
        super().__init__("builtin.module", regions=[Region([Block()])], loc=loc)

    @property
    def functions(self) -> list[Operation]:
        return [op for op in self.body.ops if op.name == "tt.func"]

    def function(self, name: str | None = None) -> Operation:
        """The function called `name` (the only/first one when `name` is None)."""
        for f in self.functions:
            if name is None or f.attrs.get("sym_name") == name:
                return f
        raise KeyError(f"no function {name!r} in module")

    def __str__(self) -> str:
        from .printer import print_module
        return print_module(self)
