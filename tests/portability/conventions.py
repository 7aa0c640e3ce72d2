"""What the kernel files, tests/end_to_end/test_portability.py and gpu_check.py agree on (no Triton imports here).

A kernel file `kNN_name.py` defines, next to its `@triton.jit` kernels:

    CASES                    list of keyword dicts, one per case
    make_inputs(rng, **case) -> {name: numpy array or plain Python value}    (arrays never all zeros)
    host(lib, **inputs)      -> ({name: output array}, [launch handles])
    reference(**inputs)      -> {name: numpy array}
    TOLERANCE                {output name: (rtol, atol)}; an output not named must match exactly
    GOLDEN                   optional: outputs recorded on a GPU into golden/ (GOLDEN_TOLERANCE likewise)

`lib` is the array side of the host code: `lib.tensor(np_array)` (a device copy), `lib.output(shape,
dtype)` (poisoned: NaN, or the most negative int), `lib.zeros`, `lib.full`, `lib.numpy(t)`,
`lib.stride(t, dim)` (in elements), `lib.numel(t)` and dtypes `lib.float32`, `lib.int8`, ... It is
numpy in our tests and torch on CUDA in gpu_check.py. Array inputs (ndim >= 1) become `lib.tensor`s,
other inputs (numbers, strings, bools) are passed as they are.
"""
from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
GOLDEN_DIR = HERE / "golden"


def kernel_files() -> list[Path]:
    return sorted(HERE.glob("k[0-9][0-9]_*.py"))


def is_array(v) -> bool:
    """Inputs that become device tensors; anything else (numbers, strings) is passed as it is."""
    return isinstance(v, np.ndarray) and v.ndim >= 1


def case_inputs(stem: str, mod, index: int) -> dict:
    """The inputs of case `index` of kernel file `stem`: the same on every machine."""
    rng = np.random.default_rng(zlib.crc32(f"{stem}/{index}".encode()))
    return mod.make_inputs(rng, **mod.CASES[index])


def golden_name(stem: str, index: int, output: str) -> str:
    return f"{stem}.case{index}.{output}"


def golden_path(stem: str, index: int, output: str) -> Path:
    return GOLDEN_DIR / (golden_name(stem, index, output) + ".npy")


def compare(mod, outs: dict, ref: dict) -> dict:
    """{output: (ok, max abs error, message)} comparing `outs` with `ref` under the file's TOLERANCE."""
    tol = getattr(mod, "TOLERANCE", {})
    result = {}
    for name in sorted(set(ref) | set(outs)):
        if name not in outs or name not in ref:
            result[name] = (False, None, "missing from " + ("outputs" if name not in outs else "reference"))
            continue
        got, want = np.asarray(outs[name]), np.asarray(ref[name])
        if got.shape != want.shape:
            result[name] = (False, None, f"shape {got.shape} != {want.shape}")
            continue
        if got.dtype.kind == "f" and np.isnan(got).any() and not np.isnan(want).any():
            result[name] = (False, None, f"{int(np.isnan(got).sum())} elements left unwritten (NaN)")
            continue
        err = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)), initial=0.0))
        rtol, atol = tol.get(name, (0, 0))
        if rtol == 0 and atol == 0:
            bad = int(np.count_nonzero(got != want))
        else:
            bad = int(np.count_nonzero(~np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                                                   atol=atol)))
        result[name] = (bad == 0, err, "ok" if bad == 0 else
                        f"{bad} of {got.size} elements differ (max abs error {err:.3g}, rtol={rtol}, atol={atol})")
    return result
