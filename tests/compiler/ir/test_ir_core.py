"""The IR data structures: building by hand, def-use lists, rewriting, walking, verifying, parsing."""
import pytest

from compiler.ir import (
    OP_DEFS,
    Block,
    Builder,
    Module,
    Op,
    Operation,
    ParseError,
    Region,
    VerifyError,
    parse_module,
    parse_type,
    print_module,
    verify,
)
from compiler.ir import types as T

from filecheck import check_ir

# launched on the reference interpreter unless MTIASIM_EXECUTOR names another (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("interpreter_by_default")


def make_kernel():
    """tt.func @k(%x: ptr<f32>, %n: i32): a scalar loop summing x[0..n) into x[0]."""
    m = Module()
    body = Block([T.PointerType(T.f32), T.i32], ["x", "n"])
    m.body.append(Operation(Op.FUNC, attrs={"sym_name": "k"}, regions=[Region([body])]))
    b = Builder(body)
    zero = b.constant(0, T.i32)
    one = b.constant(1, T.i32)
    init = b.constant(0.0, T.f32)
    loop_body = Block([T.i32, T.f32], ["i", "acc"])
    loop = b.create(Op.FOR, [zero, body.args[1], one, init], [T.f32], regions=[Region([loop_body])])
    with b.at_end(loop_body):
        p = b.create1(Op.ADDPTR, [body.args[0], loop_body.args[0]], body.args[0].type)
        v = b.create1(Op.LOAD, [p], T.f32)
        s = b.create1(Op.ADDF, [loop_body.args[1], v], T.f32)
        b.create(Op.YIELD, [s])
    b.create(Op.STORE, [body.args[0], loop.result])
    b.create(Op.RETURN)
    return m, loop


def test_build_print_verify_parse():
    m, _ = make_kernel()
    verify(m)
    text = print_module(m)
    check_ir(text, """
        CHECK: tt.func @k(%x: ptr<f32>, %n: i32) {
        CHECK-NEXT: %0 = arith.constant {value = 0} : i32
        CHECK-NEXT: %1 = arith.constant {value = 1} : i32
        CHECK-NEXT: %2 = arith.constant {value = 0.0} : f32
        CHECK-NEXT: %3 = scf.for %0, %n, %1, %2 : f32 {
        CHECK-NEXT: ^bb0(%i: i32, %acc: f32):
        CHECK-NEXT: %4 = tt.addptr %x, %i : ptr<f32>
        CHECK-NEXT: %5 = tt.load %4 : f32
        CHECK-NEXT: %6 = arith.addf %acc, %5 : f32
        CHECK-NEXT: scf.yield %6
        CHECK-NEXT: }
        CHECK-NEXT: tt.store %x, %3
        CHECK-NEXT: tt.return
    """)
    again = parse_module(text)
    verify(again)
    assert print_module(again) == text


def test_clone_is_a_deep_copy_that_prints_the_same_and_changes_alone():
    m, loop = make_kernel()
    copy = m.clone()
    verify(copy)
    assert print_module(copy, with_locs=True) == print_module(m, with_locs=True)
    copied_loop = next(op for op in copy.walk() if op.name == Op.FOR)
    assert copied_loop is not loop and copied_loop.body.args[1] is not loop.body.args[1]
    assert all(u.op in list(copied_loop.walk()) for u in copied_loop.body.args[1].uses)
    copied_loop.attrs["tt.num_stages"] = 2
    copy.function().body.ops[0].result.replace_all_uses_with(copy.function().body.ops[1].result)
    assert "tt.num_stages" not in loop.attrs and loop.lower.owner.attrs["value"] == 0


def test_def_use_navigation_and_rewrites():
    m, loop = make_kernel()
    func = m.function("k")
    x, n = func.body.args
    assert x.owner is func.body and loop.operands[1] is n
    load = next(op for op in m.walk() if op.name == Op.LOAD)
    addptr = load.operands[0].owner
    assert addptr.name == "tt.addptr" and addptr.parent_op is loop
    assert [u.op.name for u in x.uses] == ["tt.addptr", "tt.store"]
    assert load.ptr is addptr.result and load.mask is None and load.other is None
    # replace the loaded value by a constant, then the load is dead and can be erased
    b = Builder()
    b.set_insertion_point_before(load)
    c = b.constant(2.0, T.f32)
    load.replace_all_uses_with([c])
    assert not load.result.uses and c.users[0].name == Op.ADDF
    load.erase()
    addptr.erase()
    verify(m)
    assert "tt.load" not in print_module(m)
    with pytest.raises(ValueError, match="still used"):
        loop.operands[0].owner.erase()


def test_walk_orders():
    m, _ = make_kernel()
    pre = [op.name for op in m.walk()]
    post = [op.name for op in m.walk(post_order=True)]
    assert pre[:2] == ["builtin.module", "tt.func"] and post[-2:] == ["tt.func", "builtin.module"]
    assert pre.index("scf.for") < pre.index("tt.load") and post.index("tt.load") < post.index("scf.for")


def test_verifier_catches_type_and_dominance_errors():
    m, loop = make_kernel()
    add = next(op for op in m.walk() if op.name == Op.ADDF)
    bad = Operation(Op.ADDF, [add.operands[0], loop.operands[0]], [T.f32])   # f32 + i32
    add.parent.insert_before(add, bad)
    with pytest.raises(VerifyError, match="arith.addf' op requires all operands and the result to have one type"):
        verify(m)
    bad.erase()
    verify(m)
    # a use of a loop-body value after the loop does not dominate
    store = next(op for op in m.walk() if op.name == Op.STORE)
    store.set_operand(1, add.result)
    with pytest.raises(VerifyError, match="does not dominate"):
        verify(m)


def test_verifier_checks_region_terminators_and_yield_types():
    m, loop = make_kernel()
    term = loop.body.terminator
    term.set_operands([loop.body.args[0]])          # yields i32 for an f32 iter_arg
    with pytest.raises(VerifyError, match="yields \\(i32\\) but expects \\(f32\\)"):
        verify(m)
    term.erase()
    with pytest.raises(VerifyError, match="must end with scf.yield|does not end with a terminator"):
        verify(m)


def test_types_round_trip_through_text():
    for text in ["i1", "u64", "bf16", "f8e4m3", "ptr<f16>", "ptr<ptr<i8>>", "tensor<128x64xf32>",
                 "tensor<16xptr<bf16>>", "desc<64x32xf16>"]:
        assert parse_type(text).ir == text
    assert str(parse_type("tensor<4x8xf16>")) == "<[4, 8], fp16>"
    assert T.parse_type_name("*fp16") == T.PointerType(T.f16) and T.parse_type_name("i64") is T.i64


def test_parse_errors_name_the_line():
    with pytest.raises(ParseError, match="line 3: use of undefined value %nope"):
        parse_module("module {\n  tt.func @k() {\n    %0 = arith.addi %nope, %nope : i32\n  }\n}\n")
    with pytest.raises(ParseError, match="unknown type"):
        parse_type("tensor<4xq7>")


def test_attributes_of_every_kind_round_trip():
    m = Module()
    body = Block()
    m.body.append(Operation(Op.FUNC, attrs={"sym_name": "attrs"}, regions=[Region([body])]))
    b = Builder(body)
    for v, t in [(-3, T.i32), (0xFFFFFFFF, T.u32), (1.5e-7, T.f32), (float("-inf"), T.f32), (float("nan"), T.f64),
                 (True, T.i1)]:
        b.constant(v, t)
    b.create(Op.PRINT, [], [], {"prefix": 'quote " and \\ and {braces}', "hex": False, "list": [1, [2.5, "x"]]})
    b.create(Op.RETURN)
    text = print_module(m)
    assert print_module(parse_module(text)) == text
    with_locs = print_module(m, with_locs=True)
    assert print_module(parse_module(with_locs), with_locs=True) == with_locs


def test_every_op_is_declared_once_with_a_docstring():
    assert {o.value for o in Op} <= set(OP_DEFS)      # backends may declare more ops with `define`
    for d in OP_DEFS.values():
        assert d.doc and str(d.name).count(".") >= 1


def test_pattern_helpers():
    from compiler.ir import patterns
    text = """module {
  tt.func @r(%x: ptr<f32>) {
    %v = tt.load %x : f32
    %s = tt.splat %v : tensor<8xf32>
    %m = tt.reduce %s {axis = 0} : f32 {
    ^bb0(%a: f32, %b: f32):
      %c = arith.maxnumf %b, %a : f32
      tt.reduce.return %c
    }
    %k = arith.constant {value = 2.5} : f32
    %o = arith.mulf %m, %k : f32
    tt.store %x, %o
    tt.return
  }
}
"""
    m = parse_module(text)
    red = next(op for op in m.walk() if op.name == Op.REDUCE)
    mul = next(op for op in m.walk() if op.name == Op.MULF)
    assert patterns.combine_kind(red) == "max"
    assert patterns.constant_value(mul.operands[1]) == 2.5 and patterns.constant_value(mul.operands[0]) is None
    assert patterns.defining_op(mul.operands[0], Op.REDUCE) is red
    assert patterns.defining_op(red.body.args[0]) is None
