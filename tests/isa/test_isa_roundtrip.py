"""Every instruction prints and parses back; programs round-trip through text and JSON."""
import json
import random

import pytest

import isa
from isa import AsmError, Program

from isa_samples import sample_instr


@pytest.mark.parametrize("mnemonic", sorted(isa.REGISTRY))
def test_every_instruction_round_trips(mnemonic):
    cls = isa.REGISTRY[mnemonic]
    r = random.Random(mnemonic)
    for i in range(20):
        ins = sample_instr(cls, r, all_fields=i % 2 == 0)
        text = str(ins)
        assert text.startswith(mnemonic)
        back = isa.parse_instr(text)
        assert back == ins, text
        assert str(back) == text
        j = json.loads(json.dumps(isa.instr_to_json(ins)))
        assert isa.instr_from_json(j) == ins, j


def test_every_instruction_has_a_docstring_and_a_unit():
    for m, cls in isa.REGISTRY.items():
        assert (cls.__doc__ or "").strip(), m
        assert cls.unit in isa.UNITS


def _program():
    r = random.Random(7)
    p = Program("mixed")
    p.arg("a", "ptr", "f16", "x10")
    p.arg("n", "int", "i32", "x11")
    p.arg("alpha", "float", "f32", "f10")
    p.cb(0, "a_tiles", 0, 4096, 2)
    p.cb(1, "acc", 8192, 16384, 1)
    p.meta = {"source": "test.py", "grid": [4, 1, 1], "constexprs": {"BLOCK": 128}}
    p.label("entry")
    for cls in sorted(isa.REGISTRY.values(), key=lambda c: c.mnemonic):
        if any(n == "target" for n, _, _ in cls.fields):
            p.emit(isa.make(cls, **{n: ("entry" if n == "target" else 1) for n, _, d in cls.fields if not d}))
        else:
            p.emit(sample_instr(cls, r))
    p.label("end")
    return p


def test_program_round_trips_through_text():
    p = _program()
    text = p.to_asm()
    q = Program.from_asm(text)
    assert q == p
    assert q.to_asm() == text


def test_program_round_trips_through_json():
    p = _program()
    q = Program.from_json(json.loads(p.dumps()))
    assert q == p
    assert Program.from_json(p.dumps()).to_asm() == p.to_asm()


def test_asm_errors_name_the_line():
    with pytest.raises(AsmError, match=r"line 3: unknown instruction 'addd'"):
        Program.from_asm(".kernel k\n    addi x1, x0, 1\n    addd x1, x2, x3\n")
    with pytest.raises(AsmError, match=r"undefined label 'nowhere'"):
        Program.from_asm(".kernel k\n    j nowhere\n")
    with pytest.raises(AsmError, match=r"expected a tile like cb3.pop:f16\[128x32\]"):
        Program.from_asm(".kernel k\n    se.exp cb1.push:f32[8], cb2:f32[8]\n")
    with pytest.raises(AsmError, match=r"addi: expected 3 operand\(s\) \(rd, rs1, imm\), got 2"):
        Program.from_asm(".kernel k\n    addi x1, x2\n")


def test_source_comments_leave_the_program_as_it_was():
    """`to_asm(notes, headings)` (the kernel's file:line after an instruction, its source line above it) prints
    comments the parser skips: the text with them parses back to the same program."""
    p = _program()
    notes = {i: f"test.py:{10 + i // 3}" for i in range(len(p.instrs))}
    headings = {i: f"{10 + i // 3}: x = tl.load(p + offs)  # a comment\nin the source" for i in range(0, len(p.instrs), 3)}
    text = p.to_asm(notes, headings)
    assert "  # test.py:10\n" in text and "    # 10: x = tl.load(p + offs)  # a comment in the source\n" in text
    assert text.count("\n") == p.to_asm().count("\n") + len(headings)
    assert Program.from_asm(text) == p
