"""The pass pipeline: the list of passes by name, run in order, optionally printing after each."""
from __future__ import annotations

import sys
from typing import Sequence

from ..printer import print_module
from ..verifier import verify
from .constant_fold import ConstantFold
from .cse import CommonSubexpressionElimination
from .dce import DeadCodeElimination
from .fuse_dot_add import FuseDotAdd

PASSES = {p.name: p for p in (ConstantFold(), FuseDotAdd(), CommonSubexpressionElimination(), DeadCodeElimination())}
DEFAULT_PIPELINE = ("constant-fold", "fuse-dot-add", "cse", "dce")


def pipeline(module, passes: Sequence = DEFAULT_PIPELINE, print_after_each: bool = False,
             verify_each: bool = True, stream=None) -> dict:
    """Run `passes` (names or pass objects) on `module` in place.

    Returns {"ir.<pass name>": IR text after that pass}; with `print_after_each`, also writes each
    text to `stream` (stdout by default), like MLIR's -mlir-print-ir-after-all."""
    stages = {}
    for p in passes:
        p = PASSES[p] if isinstance(p, str) else p
        p.run(module)
        if verify_each:
            verify(module)
        text = print_module(module)
        stages[f"ir.{p.name}"] = text
        if print_after_each:
            print(f"// -----// IR Dump After {p.name} //----- //\n{text}", file=stream or sys.stdout)
    return stages


run_pipeline = pipeline
