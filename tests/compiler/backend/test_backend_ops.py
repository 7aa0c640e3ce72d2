"""The MTIA ops' operands by name: accessors declared once in each op's OpDef, and the verifier's count check."""
import pytest

import compiler.backend.dialect  # noqa: F401  (declares the mtia.* ops)
from compiler.ir import VerifyError, parse_module, verify

BOXES = """module {
  tt.func @k(%p: ptr<f32>, %n: i64, %o: f32) {
    %c1 = arith.constant {value = 1} : i64
    %c8 = arith.constant {value = 8} : i64
    %a = mtia.load_box %p, %c8, %c1, %n, %c8 {rank = 2} : tensor<4x8xf32>
    %b = mtia.load_box %p, %c1, %n, %o {rank = 1} : tensor<8xf32>
    mtia.store_box %p, %a, %c8, %c1, %n, %c8 {rank = 2}
    tt.return
  }
}
"""


def _ops(text):
    m = parse_module(text)
    verify(m)
    return m, [op for op in m.walk() if op.name.startswith("mtia.")]


def test_sized_variadics_and_an_optional_operand_by_name():
    m, (a, b, st) = _ops(BOXES)
    p, n, o = m.function().body.args
    c1, c8 = (op.result for op in m.function().body.ops[:2])
    assert a.ptr is p and a.strides == (c8, c1) and a.valid == (n, c8) and a.other is None
    assert b.strides == (c1,) and b.valid == (n,) and b.other is o
    assert st.value is a.result and st.strides == (c8, c1) and st.valid == (n, c8)


def test_an_operand_count_that_does_not_fit_the_rank_is_refused():
    with pytest.raises(VerifyError, match=r"'mtia.load_box' op has 4 operands; expected ptr, strides\*rank, "
                                          r"valid\*rank, remap\*remap_args, skip\*skip_args, other\?"):
        _ops(BOXES.replace("%c8, %c1, %n, %c8 {rank = 2} : tensor<4x8xf32>", "%c8, %c1, %n {rank = 2} : tensor<4x8xf32>"))
    with pytest.raises(VerifyError, match=r"needs an integer attribute 'rank'"):
        _ops(BOXES.replace("%o {rank = 1}", "%o {}"))


def test_an_absent_optional_mask_is_none_and_unknown_names_fail_loudly():
    m, (g,) = _ops("""module {
  tt.func @k(%p: ptr<f32>) {
    %i = arith.constant {value = 0} : tensor<8xi32>
    %v = mtia.gather %p, %i {pad = 0} : tensor<8xf32>
    tt.return
  }
}
""")
    assert g.ptr is m.function().body.args[0] and g.mask is None
    with pytest.raises(AttributeError, match="mtia.gather has no operand or attribute 'value'"):
        g.value
