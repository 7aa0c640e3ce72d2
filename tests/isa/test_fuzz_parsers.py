"""Fuzzing the text front doors: the assembly parser, the program JSON loader and the config loader.

Random text and mutations of valid inputs (tokens deleted, duplicated, swapped or replaced, numbers
changed, values of the wrong type, unknown keys, truncation) may only fail with the documented
error (`isa.AsmError` for assembly and JSON, `simulator.ConfigError` for configs), or load. What
loads must be valid: a program prints and parses back to itself, a config's overrides are in it.
Inputs that once crashed a loader are kept below as explicit `@example`s.
"""
from __future__ import annotations

import json
import random
import re

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import isa
from isa import AsmError, Program
from simulator import ConfigError, load_config
from simulator.config import CONFIG_DIR, Config, config_from_dict, read_yaml

from isa_samples import sample_instr

FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

MNEMONICS = sorted(isa.REGISTRY)


# ---- helpers ------------------------------------------------------------------------------------

def _program(r: random.Random, n: int = 6) -> Program:
    """A small valid program: args, CBs, meta, labels and `n` random instructions."""
    p = Program("fuzzed")
    p.arg("x_ptr", "ptr", "f32", "x10")
    p.arg("n", "int", "i32", "x11")
    p.arg("alpha", "float", "f32", "f10")
    p.cb(0, "a", 0, 4096, 2)
    p.cb(1, "acc", 8192, 1024, 1)
    p.meta = {"source": "fuzz.py", "grid": [2, 1, 1]}
    p.label("entry")
    for _ in range(n):
        cls = isa.REGISTRY[r.choice(MNEMONICS)]
        if any(name == "target" for name, _, _ in cls.fields):
            p.emit(isa.make(cls, **{name: ("entry" if name == "target" else 1) for name, _, d in cls.fields if not d}))
        else:
            p.emit(sample_instr(cls, r, all_fields=r.random() < 0.5))
    p.label("end")
    return p


def _check_program_round_trips(p: Program) -> None:
    """A program the loaders accepted is a valid one: text and JSON give it back unchanged."""
    text = p.to_asm()
    q = Program.from_asm(text)
    assert q == p, text
    assert q.to_asm() == text
    assert Program.from_json(json.loads(p.dumps())) == p


def _asm_or_error(text: str) -> None:
    try:
        p = Program.from_asm(text)
    except AsmError:
        return
    _check_program_round_trips(p)


def _json_or_error(j) -> None:
    try:
        p = Program.from_json(j)
    except AsmError:
        return
    _check_program_round_trips(p)


def _instr_or_error(text: str) -> None:
    try:
        ins = isa.parse_instr(text)
    except AsmError:
        return
    back = isa.parse_instr(str(ins))          # compare printed forms: nan != nan as a field value
    assert str(back) == str(ins), text
    j = json.loads(json.dumps(isa.instr_to_json(ins)))
    assert str(isa.instr_from_json(j)) == str(ins)


# mutations of token lists: what a typo, a bad merge or a cut-off file does to a valid input
NUMBERS = ["0", "-1", "1", "7", "4096", "0x10", "0b101", "1_000", "99999999999999999999999999", "-0", "1e400",
           "nan", "inf", "-inf", "1.5", "²", "٣", "0x", "", "1e", "--1", "+3"]
JUNK = ["x", "x32", "x-1", "f99", "v3", "cb", "cb0", "cb0.pop", "cb0.pop:f32", "cb0.pop:f32[", "cb0.pop:f32[x]",
        "cb0.pop:f32[0]", "cb0.push+1:f32[4]", "cb0.zap:f32[4]", "cb0.pop:f33[4]", "cb0.pop:f32[4x]",
        "[", "]", "[x5,", "[1, 2]", "[[1]]", "(", ")", "\"", "\"unterminated", "\"\\\"", "#", ":", "::", "=", "a=",
        "rs1=", "valid=", "pad=", "none", "loop", "entry", "end", ".kernel", ".arg", ".cb", ".meta", ".meta {",
        ".meta [", "\t", "\x00", "\u2028", "é", "ptr", "int", "float", "f16", "bf16", "i1", "base=", "slot=",
        "slots=", "halt", "add", "dma.in", "se.fill", "dpe.mm", "dbg.print", "j", "bne"]
TOKEN = re.compile(r"\s+|[,\[\]()=:]|[^\s,\[\]()=:]+")


@st.composite
def mutated(draw, text: str) -> str:
    """`text` after a few random edits at the token level, and maybe truncated."""
    toks = TOKEN.findall(text)
    for _ in range(draw(st.integers(1, 4))):
        if not toks:
            break
        i = draw(st.integers(0, len(toks) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "number", "junk", "insert"]))
        if op == "delete":
            del toks[i]
        elif op == "duplicate":
            toks.insert(i, toks[i])
        elif op == "swap":
            j = draw(st.integers(0, len(toks) - 1))
            toks[i], toks[j] = toks[j], toks[i]
        elif op == "number":
            toks[i] = re.sub(r"\d+", lambda m: draw(st.sampled_from(NUMBERS)), toks[i], count=1) \
                if re.search(r"\d", toks[i]) else draw(st.sampled_from(NUMBERS))
        elif op == "junk":
            toks[i] = draw(st.sampled_from(JUNK) | st.text(max_size=4))
        else:
            toks.insert(i, draw(st.sampled_from(JUNK)))
    out = "".join(toks)
    if draw(st.booleans()):
        out = out[: draw(st.integers(0, len(out)))]
    return out


# ---- assembly -----------------------------------------------------------------------------------

@FUZZ
@given(st.text())
@example("se.fill cb0.push:f32[x], 1.0")      # crashed: int('') on a tile shape of only 'x'
@example("add x\u00b2, x1, x2")                  # crashed: '²'.isdigit() but int('²') fails
@example("add x1, x1, x\u0663")                  # an Arabic-Indic digit is not a register number
@example('dbg.print "a\u2028b"')                 # a line break inside a string cannot print back
def test_parse_instr_raises_only_asm_error(text):
    _instr_or_error(text)


@FUZZ
@given(st.randoms(use_true_random=False), st.data())
def test_mutated_instructions_raise_only_asm_error(r, data):
    ins = sample_instr(isa.REGISTRY[r.choice(MNEMONICS)], r, all_fields=r.random() < 0.5)
    _instr_or_error(data.draw(mutated(str(ins))))


@FUZZ
@given(st.text())
@example(".kernel k\n.meta " + "[" * 50_000)     # crashed: RecursionError inside json.loads
@example(".kernel k\n.meta 5\n")                  # meta is a JSON object, not a number
@example(".kernel k\n.cb 0 a base=0 slot=1 slots=\u0663\n")
def test_from_asm_raises_only_asm_error(text):
    _asm_or_error(text)


@FUZZ
@given(st.lists(st.sampled_from(JUNK + NUMBERS + MNEMONICS + [",", " ", "\n", "    "]), max_size=30))
def test_token_soup_raises_only_asm_error(tokens):
    _asm_or_error(".kernel soup\n" + " ".join(tokens))


@FUZZ
@given(st.randoms(use_true_random=False), st.data())
def test_mutated_programs_raise_only_asm_error(r, data):
    _asm_or_error(data.draw(mutated(_program(r).to_asm())))


def test_valid_programs_round_trip():
    for seed in range(40):
        _check_program_round_trips(_program(random.Random(seed), n=20))


# ---- program JSON -------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=10**300) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


def _json_paths(j, prefix=()):
    """Every (path, value) of a JSON document, containers included."""
    yield prefix, j
    if isinstance(j, dict):
        for k, v in j.items():
            yield from _json_paths(v, prefix + (k,))
    elif isinstance(j, list):
        for i, v in enumerate(j):
            yield from _json_paths(v, prefix + (i,))


def _set(j, path, value):
    for p in path[:-1]:
        j = j[p]
    j[path[-1]] = value


def _delete(j, path):
    for p in path[:-1]:
        j = j[p]
    del j[path[-1]]


@FUZZ
@given(st.text())
@example("[" * 50_000)                            # crashed: RecursionError inside json.loads
def test_from_json_text_raises_only_asm_error(text):
    _json_or_error(text)


@FUZZ
@given(json_values)
@example({"kernel": "k", "instrs": [], "meta": "abc"})           # crashed: dict('abc') is a ValueError
@example({"kernel": "k", "instrs": [], "labels": {"a": "b"}})    # crashed: int('b') is a ValueError
@example({"kernel": "k", "instrs": [{"mnemonic": ["add"]}]})     # a list is not a mnemonic
@example({"kernel": "k", "instrs": [{"mnemonic": "fli", "rd": "f1", "imm": 10**400}]})   # float(10**400)
@example({"kernel": "k", "instrs": [{"mnemonic": "fli", "rd": "f1", "imm": "abc"}]})
@example({"kernel": "k", "instrs": [{"mnemonic": "fli", "rd": "f1", "imm": [1]}]})
@example({"kernel": "k", "instrs": [], "labels": {"a\n": 0}})    # a label with a newline cannot print
@example({"kernel": "k k", "instrs": []})                        # nor a kernel name with a space
@example({"kernel": "k", "instrs": [], "labels": {"a": 5}})      # a label past the end of the stream
@example({"kernel": "k", "instrs": [], "cbs": [{"id": "a", "name": 3, "base": "x", "slot_bytes": None,
                                                 "slots": 1.5}]})  # CB fields of the wrong types
@example({"kernel": "k", "instrs": [{"mnemonic": "se.exp", "out": {"cb": 0, "mode": "push", "dtype": [1],
                                                                   "shape": [4]}, "a": 1.0}]})
def test_random_json_documents_raise_only_asm_error(doc):
    _json_or_error(doc)


@FUZZ
@given(st.randoms(use_true_random=False), st.data())
def test_mutated_program_json_raises_only_asm_error(r, data):
    doc = _program(r).to_json()
    doc = json.loads(json.dumps(doc))
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p, _ in _json_paths(doc) if p]
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        op = data.draw(st.sampled_from(["delete", "replace", "unknown key", "wrong type"]))
        if op == "delete":
            _delete(doc, path)
        elif op == "replace":
            _set(doc, path, data.draw(json_values))
        elif op == "unknown key":
            container = doc
            for p in path[:-1]:
                container = container[p]
            if isinstance(container, dict):
                container[data.draw(st.text(max_size=6))] = data.draw(json_values)
        else:
            old = data.draw(st.sampled_from([p for p, _ in _json_paths(doc) if p] or [path]))
            _set(doc, old, data.draw(st.sampled_from([None, True, -1, 1.5, "x", "", [], {}, [1, "a"], {"cb": 0}])))
    _json_or_error(doc)
    if data.draw(st.booleans()):                 # the same document as text, cut short
        text = json.dumps(doc)
        _json_or_error(text[: data.draw(st.integers(0, len(text)))])


# ---- configs ------------------------------------------------------------------------------------

BASE = read_yaml(CONFIG_DIR / "mtia-small.yaml")       # the full mapping, `extends` resolved


def _leaf_paths(d, prefix=()):
    for k, v in d.items():
        if isinstance(v, dict):
            yield prefix + (k,)
            yield from _leaf_paths(v, prefix + (k,))
        else:
            yield prefix + (k,)


PATHS = list(_leaf_paths(BASE))
DOTTED = [".".join(p) for p in PATHS]
yaml_scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10)
                | st.sampled_from([0, -1, 1, 2**31, 2**64, 1e-300, 1e300, "1e3", "0x10", "fast", "", "2020-02-30"]))
yaml_values = st.recursive(yaml_scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)


def _load_text(tmp_path_factory, text: str | bytes) -> None:
    path = tmp_path_factory.mktemp("cfg") / "fuzz.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    try:
        cfg = load_config(path)
    except ConfigError:
        return
    assert isinstance(cfg, Config)
    assert config_from_dict(cfg.model_dump()) == cfg          # what loaded validates again unchanged


@FEW
@given(st.text())
@example("extends: mtia-small\nname: 2020-02-30\n")      # crashed: PyYAML's date constructor raises ValueError
@example("extends: 5\n")                                  # crashed: Path(5)
@example("extends: [mtia-small]\n")
@example("extends: /nonexistent/mtia.yaml\n")            # crashed: FileNotFoundError
@example("extends: /\n")                                  # crashed: IsADirectoryError
@example("extends: \"mtia\\0small\"\n")                  # crashed: embedded null byte
@example("extends: " + "a" * 5000 + "\n")                # crashed: file name too long
@example("[" * 5000)                                      # crashed: RecursionError in the YAML composer
@example("extends: mtia-small\ndram:\n  bandwidth_gbps: .inf\n")     # infinite bandwidth is not a config
@example("extends: mtia-small\nclock_ghz: .nan\n")
@example("extends: mtia-small\n1: 2\n")
def test_random_yaml_text_raises_only_config_error(tmp_path_factory, text):
    _load_text(tmp_path_factory, text)


@FEW
@given(st.binary(max_size=200))
@example(b"\xff\xfe\x00name: x")                         # crashed: UnicodeDecodeError
def test_random_yaml_bytes_raise_only_config_error(tmp_path_factory, data):
    _load_text(tmp_path_factory, data)


@FEW
@given(st.data())
def test_mutated_configs_raise_only_config_error(tmp_path_factory, data):
    doc = json.loads(json.dumps(BASE))
    for _ in range(data.draw(st.integers(1, 3))):
        paths = list(_leaf_paths(doc))
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        parent = doc
        for p in path[:-1]:
            parent = parent[p]
        op = data.draw(st.sampled_from(["delete", "value", "unknown key", "rename", "scale"]))
        if op == "delete":
            del parent[path[-1]]
        elif op == "value":
            parent[path[-1]] = data.draw(yaml_values)
        elif op == "unknown key":
            parent[data.draw(st.text(min_size=1, max_size=8) | st.integers())] = data.draw(yaml_scalars)
        elif op == "rename":
            parent[f"{path[-1]}{data.draw(st.sampled_from(['_', 's', 'x']))}"] = parent.pop(path[-1])  # keys may be ints
        elif isinstance(parent[path[-1]], (int, float)) and not isinstance(parent[path[-1]], bool):
            parent[path[-1]] = parent[path[-1]] * data.draw(st.sampled_from([-1, 0, 0.5, 1000, 1e9]))
    text = yaml.safe_dump(doc, sort_keys=data.draw(st.booleans()))
    if data.draw(st.booleans()):
        text = data.draw(mutated(text))
    _load_text(tmp_path_factory, text)


@FUZZ
@given(st.dictionaries(st.sampled_from(DOTTED) | st.sampled_from(DOTTED).map(lambda k: k + ".x")
                       | st.sampled_from(DOTTED).map(lambda k: k[:-1]) | st.text(max_size=12)
                       | st.just("pe.dpe.macs_per_cycle.f99") | st.just("pe..dma"), yaml_values, max_size=3))
@example({"dram.foo": 1})
@example({"dram.bandwidth_gbps": float("inf")})
def test_dotted_overrides_raise_only_config_error(overrides):
    try:
        cfg = load_config("mtia-small", overrides)
    except ConfigError:
        return
    dump = cfg.model_dump()
    for dotted, value in overrides.items():        # what was accepted is what the config holds
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            node = dump
            for part in dotted.split("."):
                node = node[part]
            assert node == value, (dotted, node, value)


def test_override_error_lists_known_keys_even_with_odd_keys_in_the_yaml(tmp_path):
    # crashed: sorting the known keys of a section that has a non-string key raised TypeError
    p = tmp_path / "odd.yaml"
    p.write_text("extends: mtia-small\ndram:\n  1: 2\n")
    with pytest.raises(ConfigError, match=r"override 'dram\.nope': unknown key 'nope' \(known: 1, [a-z_, ]*bandwidth_gbps"):
        load_config(p, {"dram.nope": 3})


@FEW
@given(st.text(max_size=300) | st.sampled_from(["mtia-small", "mtia-2i.yaml", "", ".", "/", "configs",
                                               "a\x00b", "x" * 5000, "../configs/mtia-small"]))
def test_config_names_raise_only_config_error(name):
    try:
        load_config(name)
    except ConfigError:
        pass
