"""The reference interpreter of the IR (numpy, one program at a time): the oracle for every op.

`ops.EVAL` defines each op; `Interpreter` runs structured control flow and the grid; the runtime's
default executor (`compiler.runtime.interpreter_executor`) drives it.
"""
from .interpreter import Interpreter
from .memory import FlatMemory
from .ops import EVAL

__all__ = ["Interpreter", "FlatMemory", "EVAL"]
