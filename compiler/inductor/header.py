"""The fixed import header of Inductor's generated Triton modules, and the one that replaces it.

Inductor starts every Triton kernel module it generates with the same imports (`import triton`,
`triton.language`, torch's `triton_helpers` and `triton_heuristics`, `libdevice`). We swap exactly
those lines for ours, line for line, so that a compile error's line number is the line Inductor
wrote. The header text is checked against what this torch version is known to write: a torch whose
header differs gets a clear error instead of a kernel half-bound to the real `triton`.
"""
from __future__ import annotations

import torch

from ..errors import CompilationError

# torch versions whose generated header we know (major.minor); add one after checking its header
KNOWN_TORCH = ("2.13",)

# the header lines Inductor writes (torch 2.13: codegen/triton.py gen_common_triton_imports) and ours
_IMPORTS = [
    ("import triton", "import compiler as triton"),
    ("import triton.language as tl", "import compiler.language as tl"),
    ("", ""),
    ("from torch._inductor.runtime import triton_helpers, triton_heuristics",
     "from compiler.inductor import launchers as triton_heuristics; from compiler.inductor.helpers import triton_helpers"),
    ("from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math",
     "from compiler.inductor.helpers import libdevice, tl_math"),
    ("from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties",
     "from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties"),
]
# pointwise and reduction kernels also select triton's CPU driver; ours needs no driver
_DRIVER = ("triton_helpers.set_driver_to_cpu()", "pass  # (Inductor selects triton's CPU driver here)")


def check_torch_version() -> None:
    """Refuse a torch whose generated code we have not checked."""
    version = torch.__version__.split("+")[0]
    if ".".join(version.split(".")[:2]) not in KNOWN_TORCH:
        raise RuntimeError(f"compiler.inductor supports torch {', '.join(KNOWN_TORCH)} (the 'inductor' extra pins "
                           f"torch==2.13.0); this is torch {torch.__version__}, whose generated Triton header is "
                           "unchecked")


def check_triton_package() -> None:
    """Refuse to start without the triton package. Inductor imports its code generation (no kernel runs
    on it), and without it lowers to stand-ins that fail deep inside ("LoweringException: TypeError:
    object() takes no arguments"); the `torch` extra alone does not install it."""
    try:
        import triton  # noqa: F401
    except ImportError:
        raise ImportError("compiler.inductor needs the triton package, whose code generation Inductor uses: "
                          "install the 'inductor' extra (pip install -e '.[inductor]')") from None


def swap_header(source: str, kernel_name: str) -> str:
    """The generated module `source` with its triton imports pointing at our compiler."""
    lines = source.split("\n")
    start = 0
    while start < len(lines) and lines[start] == "":      # templates (the convolution one) start with blank lines
        start += 1
    theirs = [t for t, _ in _IMPORTS]
    if lines[start:start + len(theirs)] != theirs:
        got = "\n".join(lines[start:start + len(theirs)])
        expected = "\n".join(theirs)
        raise CompilationError(f"Inductor's kernel {kernel_name} starts with an unknown header (torch "
                               f"{torch.__version__}):\n{got}\nexpected:\n{expected}")
    lines[start:start + len(theirs)] = [ours for _, ours in _IMPORTS]
    after = start + len(theirs)
    if after < len(lines) and lines[after] == _DRIVER[0]:
        lines[after] = _DRIVER[1]
    return "\n".join(lines)
