"""The reference interpreter of the IR (numpy, one program at a time): the oracle for every op.

`ops.EVAL` defines each op; `Interpreter` runs structured control flow and the grid;
`InterpreterExecutor` is the runtime's default executor.
"""
from .executor import InterpreterExecutor, pe_for_program
from .interpreter import Interpreter
from .memory import FlatMemory
from .ops import EVAL

__all__ = ["InterpreterExecutor", "Interpreter", "FlatMemory", "EVAL", "pe_for_program"]
