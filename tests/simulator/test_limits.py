"""Every launch is bounded: a program that runs past the step limit stops with a StepLimitError naming
the kernel, program id, PE and the instruction and source line where it stopped, on both executors;
the limit is a launch option (max_steps=) and an environment knob (MTIASIM_MAX_STEPS); long launches
show progress when stderr is a terminal."""
from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
import simulator.launch
from compiler.errors import StepLimitError
from simulator.launch import DEFAULT_MAX_STEPS, MAX_STEPS_ENV

from executors import EXECUTORS, launch

HERE = Path(__file__).name


def _line_of(kernel, text: str) -> int:
    lines, first = inspect.getsourcelines(kernel.fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


@triton.jit
def while_forever(o_ptr, n):
    i = 1
    while i < n:
        i = i * 1
    tl.store(o_ptr + tl.program_id(0), i)


@triton.jit
def for_to_2_31(o_ptr, n):
    t = 0
    for j in range(0, 2**31 - 1):
        t += j % n
    tl.store(o_ptr + tl.program_id(0), t)


def _where(executor) -> str:
    """The pattern of 'kernel, program id, PE' in each executor's errors."""
    if executor == "mtia":
        return r"{kernel} program \(0, 0, 0\) on PE 0 \(0, 0\), instruction \d+ `[^`]+` \(\S*{file}:{line}\): "
    return r"\(kernel '{kernel}', program id \(0, 0, 0\), PE 0, at \S*{file}:{line}:\d+\)"


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_while_loop_that_never_ends_stops_at_the_default_limit(executor):
    o = np.full(2, -7, np.int32)
    with pytest.raises(StepLimitError) as e:
        launch(while_forever, (2,), o, 10, executor=executor)
    msg = str(e.value)
    assert f"ran more than {DEFAULT_MAX_STEPS} steps" in msg and "max_steps=" in msg and MAX_STEPS_ENV in msg, msg
    line = _line_of(while_forever, "while i < n") + (executor == "interpreter")   # the condition, or the body
    where = _where(executor).format(kernel="while_forever", file=HERE, line=rf"({line - 1}|{line}|{line + 1})")
    assert re.search(where, msg), msg
    assert (o == -7).all()


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_for_loop_to_2_31_stops_at_the_launch_option_limit(executor):
    o = np.full(2, -7, np.int32)
    with pytest.raises(StepLimitError, match=r"ran more than 5000 steps") as e:
        launch(for_to_2_31, (2,), o, 10, executor=executor, max_steps=5000)
    line = _line_of(for_to_2_31, "for j in range")
    assert re.search(_where(executor).format(kernel="for_to_2_31", file=HERE, line=rf"({line}|{line + 1})"),
                     str(e.value)), str(e.value)
    assert (o == -7).all()


@triton.jit
def counted_loop(o_ptr, n):
    t = 0
    for j in range(0, n):
        t += j
    tl.store(o_ptr + tl.program_id(0), t)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_the_limit_counts_the_steps_of_each_program_not_of_the_launch(executor, monkeypatch):
    o = np.full(16, -1, np.int32)
    launch(counted_loop, (16,), o, 100, executor=executor, max_steps=4000)       # 16 x 100 iterations: fine
    assert (o == 4950).all()
    monkeypatch.setenv(MAX_STEPS_ENV, "150")                                    # the environment knob
    with pytest.raises(StepLimitError, match=r"ran more than 150 steps"):
        launch(counted_loop, (16,), o, 100, executor=executor)
    launch(counted_loop, (16,), o, 100, executor=executor, max_steps=4000)       # the option wins over it


@pytest.mark.parametrize("bad", [0, -5, 2.5, "many", True])
def test_a_bad_limit_is_refused_with_its_name(bad, monkeypatch):
    o = np.zeros(1, np.int32)
    with pytest.raises(ValueError, match=r"max_steps must be a positive integer"):
        counted_loop[(1,)](o, 3, max_steps=bad)
    monkeypatch.setenv(MAX_STEPS_ENV, str(bad))
    with pytest.raises(ValueError, match=rf"{MAX_STEPS_ENV} must be a positive integer"):
        counted_loop[(1,)](o, 3)


class _Bar:
    """Records what a progress bar is told."""
    instances: list = []

    def __init__(self, total, what):
        self.total, self.what, self.done, self.closed = total, what, 0, False
        _Bar.instances.append(self)

    def update(self, n):
        self.done += n

    def close(self):
        self.closed = True


@pytest.mark.parametrize("executor", EXECUTORS)
def test_long_launches_report_progress_per_program(executor, monkeypatch):
    _Bar.instances = []
    monkeypatch.setattr(simulator.launch, "progress", lambda total, what: _Bar(total, what))
    o = np.full(40, -1, np.int32)
    launch(counted_loop, (40,), o, 3, executor=executor)
    (bar,) = _Bar.instances
    assert bar.total == 40 and bar.done == 40 and bar.closed and "counted_loop" in bar.what


def test_progress_is_shown_only_on_a_terminal(monkeypatch):
    class Tty:
        def __init__(self, tty):
            self.tty = tty

        def isatty(self):
            return self.tty

        def write(self, s):
            return len(s)

        def flush(self):
            pass

    monkeypatch.setattr("sys.stderr", Tty(False))
    assert simulator.launch.progress(10 ** 6, "k") is None
    monkeypatch.setattr("sys.stderr", Tty(True))
    bar = simulator.launch.progress(10 ** 6, "k")
    assert bar is not None and bar.total == 10 ** 6
    bar.close()
