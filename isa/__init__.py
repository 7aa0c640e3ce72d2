"""The MTIA instruction set shared by the compiler and the simulator.

One declaration per instruction (fields, assembly form, docstring with its semantics), grouped by
where it runs: `scalar` (RISC-V control code), `vector` (RVV), `cb` (circular-buffer pointers),
`sync`, and the engines `dma`, `dpe`, `se`, `re`, `mlu`. `Program` holds a stream with its labels,
circular buffers and arguments, and prints/parses as text assembly and JSON.
"""
from . import cb, dma, dpe, mlu, re, scalar, se, sync, vector  # noqa: F401  (registers the instructions)
from .fields import AsmError
from .instruction import (
           ENGINES,
           REGISTRY,
           UNITS,
           Instr,
           format_instr,
           instr_from_json,
           instr_to_json,
           make,
           parse_instr,
)
from .program import ArgDecl, CBDecl, Program
from .types import DRAM_BASE, DTYPES, LS_BASE, SRAM_BASE, F, Tile, V, X, itemsize, np_dtype

__all__ = ["AsmError", "ENGINES", "REGISTRY", "UNITS", "Instr", "format_instr", "parse_instr", "instr_to_json",
           "instr_from_json", "make", "Program", "CBDecl", "ArgDecl", "Tile", "X", "F", "V", "DTYPES", "np_dtype",
           "itemsize", "LS_BASE", "SRAM_BASE", "DRAM_BASE"]
