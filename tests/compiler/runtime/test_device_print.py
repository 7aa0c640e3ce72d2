"""tl.device_print (and Python's print in a kernel, which Triton makes a device_print) prints on both executors,
host-side, the lines Triton's device print writes: one per element, `pid (x, y, z) idx (i, j)<prefix><value>`,
each program's lines in its program order. On MTIA each print is an SE command that runs once the values it
prints are computed. With TRITON_INTERPRET=1 in the environment, kernels run on the interpreter executor."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl

from executors import EXECUTORS, launch
from repo import ROOT


def _by_program(text: str) -> dict:
    """Each program's lines in the order it printed them (programs on different PEs interleave)."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"pid \((\d+), (\d+), (\d+)\)", line)
        assert m, line
        out.setdefault(m.groups(), []).append(line)
    return out


@triton.jit
def show(x_ptr, n, scale, N: tl.constexpr, M: tl.constexpr):
    rows = tl.arange(0, N)[:, None]
    cols = tl.arange(0, M)[None, :]
    x = tl.load(x_ptr + tl.program_id(0) * N * M + rows * M + cols)
    tl.device_print("x", x)
    y = x * scale + 1.0
    tl.device_print("y = ", y, n)          # Triton makes the prefix " y =: "
    tl.device_print("big ", (rows * M + cols) > 4)
    tl.device_print("bits", x.to(tl.int32, bitcast=True), hex=True)
    tl.device_print(" no values")
    print("count", tl.sum(tl.sum(rows + cols, axis=1), axis=0))
    for i in range(2):
        z = y + i
        tl.device_print("z", z)
    tl.device_print("zero", tl.zeros((N, M), tl.int32))                  # a uniform block: no tile of its own
    tl.device_print("col", tl.broadcast_to(tl.arange(0, M)[None, :], (N, M)))   # a broadcast: a view elsewhere


def _run_show(executor, capsys):
    capsys.readouterr()
    launch(show, (3,), _x(), 7, 0.5, N=2, M=16, executor=executor)
    return capsys.readouterr().out


def _x():
    return np.random.default_rng(0).integers(-40, 40, (3, 2, 16)).astype(np.float32) / 8


def test_both_executors_print_the_same_lines(capsys):
    outs = [_by_program(_run_show(ex, capsys)) for ex in EXECUTORS]
    assert outs[0] == outs[1]
    assert sorted(outs[0]) == [("0", "0", "0"), ("1", "0", "0"), ("2", "0", "0")]


def test_the_lines_are_tritons(capsys):
    lines = _by_program(_run_show("mtia", capsys))[("1", "0", "0")]
    x = _x()[1]
    assert lines[0] == f"pid (1, 0, 0) idx (0,  0) x: {x[0, 0]:f}"       # indices padded to 16's digits
    assert lines[17] == f"pid (1, 0, 0) idx (1,  1) x: {x[1, 1]:f}"
    assert lines[32] == f"pid (1, 0, 0) idx (0,  0) y =: (operand 0) {x[0, 0] * 0.5 + 1:f}"
    assert lines[64] == "pid (1, 0, 0) idx () y =: (operand 1) 7"
    assert lines[65] == "pid (1, 0, 0) idx (0,  0) big: 0"
    assert lines[70] == "pid (1, 0, 0) idx (0,  5) big: 1"
    assert lines[97] == f"pid (1, 0, 0) idx (0,  0) bits: 0x{int(x[0, 0:1].view(np.uint32)[0]):08x}"
    assert lines[129] == "pid (1, 0, 0) no values"
    assert lines[130] == "pid (1, 0, 0) idx () count: 256"
    assert lines[163 + 5] == f"pid (1, 0, 0) idx (0,  5) z: {x[0, 5] * 0.5 + 2:f}"   # the loop's 2nd pass
    assert lines[195 + 17] == "pid (1, 0, 0) idx (1,  1) zero: 0"
    assert lines[227 + 17] == "pid (1, 0, 0) idx (1,  1) col: 1"
    assert len(lines) == 259


@triton.jit
def running_sum(x_ptr, out_ptr, N: tl.constexpr, STEPS: tl.constexpr):
    """A value printed in each iteration of a loop, then overwritten: each print shows that iteration's."""
    acc = tl.zeros((N,), tl.int32)
    for i in range(STEPS):
        acc += tl.load(x_ptr + i * N + tl.arange(0, N))
        tl.device_print("acc", acc)
    tl.store(out_ptr + tl.arange(0, N), acc)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_loop_prints_each_iterations_value(executor, capsys):
    x = np.random.default_rng(1).integers(-9, 9, (5, 4)).astype(np.int32)
    out = np.full(4, -1, np.int32)
    capsys.readouterr()
    launch(running_sum, (1,), x, out, N=4, STEPS=5, executor=executor)
    sums = np.cumsum(x, axis=0)
    want = [f"pid (0, 0, 0) idx ({j}) acc: {sums[i, j]}" for i in range(5) for j in range(4)]
    assert capsys.readouterr().out.splitlines() == want
    np.testing.assert_array_equal(out, sums[-1])


@triton.jit
def bad_prefix(x_ptr):
    print(tl.load(x_ptr))


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_prefix_that_is_no_string_is_refused_at_the_line(executor):
    with pytest.raises(triton.CompilationError, match="is not string") as e:
        launch(bad_prefix, (1,), np.ones(1, np.float32), executor=executor)
    assert "print(tl.load(x_ptr))" in str(e.value)


_SCRIPT = """
import numpy as np
import compiler as triton
import compiler.language as tl

@triton.jit
def add_one(x_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)

x = np.arange(8, dtype=np.float32)
rec = add_one[(1,)](x, N=8)
print(rec.executor, x.tolist() == list(range(1, 9)))
"""


@pytest.mark.parametrize("value, executor", [("1", "interpreter"), ("0", "mtia"), (None, "mtia")])
def test_triton_interpret_in_the_environment_picks_the_interpreter(value, executor, tmp_path):
    script = tmp_path / "add_one.py"           # a file: @jit reads the kernel's source
    script.write_text(_SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    if value is not None:
        env["TRITON_INTERPRET"] = value
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, str(script)], check=False, env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [executor, "True"]


def test_a_timing_only_run_still_computes_what_it_prints(capsys):
    """A program that prints its tiles is not blind: numerics=False computes them and prints the same."""
    x = np.random.default_rng(1).integers(-9, 9, (5, 4)).astype(np.int32)
    capsys.readouterr()
    launch(running_sum, (1,), x, np.zeros(4, np.int32), N=4, STEPS=5, executor="mtia")
    numeric = capsys.readouterr().out
    launch(running_sum, (1,), x, np.zeros(4, np.int32), N=4, STEPS=5, executor="mtia", numerics=False)
    assert capsys.readouterr().out == numeric
