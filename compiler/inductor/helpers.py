"""torch's `triton_helpers` (maximum, welford, online softmax, ...) compiled against our `tl`.

Inductor's kernels call `triton_helpers.<fn>`: small @triton.jit functions in torch's
`_inductor/runtime/triton_helpers.py`. We load that file with its one import of the real triton
(`from .triton_compat import ...`) pointed at ours; everything else in it is plain Triton.
"""
from __future__ import annotations

import inspect

import torch._inductor.runtime.triton_helpers as _theirs

from .. import language as tl
from ..language import math as tl_math  # noqa: F401  (the kernels' `tl_math`)
from ..language.extra import libdevice  # noqa: F401  (the kernels' `libdevice`)
from .loader import load_module

_THEIR_IMPORT = """from .triton_compat import (
    _log2,
    builtins_use_semantic_kwarg,
    JITFunction,
    libdevice,
    math,
    tl,
    triton,
)"""
# same number of lines, so errors point at the line numbers of torch's file
_OUR_IMPORT = """import compiler as triton
import compiler.language as tl
from compiler.language import math
from compiler.language.extra import libdevice
from compiler.language.standard import _log2
from compiler.runtime import JITFunction
builtins_use_semantic_kwarg = False   # our builtins take no _semantic/_builder argument
assert tl is not None
"""


def _load():
    source = inspect.getsource(_theirs)
    if source.count(_THEIR_IMPORT) != 1:
        raise RuntimeError(f"torch's {_theirs.__file__} no longer imports triton as compiler.inductor expects")
    return load_module("triton_helpers", source.replace(_THEIR_IMPORT, _OUR_IMPORT.rstrip("\n")))


triton_helpers = _load()
assert tl is not None
